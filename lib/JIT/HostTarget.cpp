//===- HostTarget.cpp - the CPU and GPU the JIT compiles for --------------===//
//
// $EMBER_CPU checked against this machine, the vector width blocked matmuls
// are sized to, and the GPU architecture of this process.
//
//===----------------------------------------------------------------------===//

#include "HostTarget.h"

#include "ember/Compiler/Compiler.h"
#include "ember/JIT/ModuleCompiler.h"

#include "emberrt/cuda.h"
#include "emberrt/runtime.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

/// The JIT links code for this machine (the compiler library initializes
/// every target it generates code for).
void ember::jit::initializeNativeTarget() {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// The width of the host's vector registers, which blocked matmuls are
/// sized to by default.
static unsigned hostVectorBits() {
  static const unsigned bits = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    if (features.lookup("avx512f"))
      return 512u;
    if (features.lookup("avx"))
      return 256u;
    return 128u;
  }();
  return bits;
}

/// What the JIT knows of the CPU $EMBER_CPU names: the width of its
/// vectors, or why code for it cannot run here.
struct ChosenCpu {
  unsigned vectorBits = 0;
  std::string error;
};

/// The CPU $EMBER_CPU names, checked once per name: an LLVM CPU of this
/// machine's architecture whose features this machine has (code for it
/// must run here).
static const ChosenCpu &chosenCpu(const std::string &name) {
  static std::mutex mutex;
  static std::map<std::string, ChosenCpu> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = known.try_emplace(name);
  if (!inserted)
    return it->second;
  ChosenCpu &cpu = it->second;
  ember::jit::initializeNativeTarget();
  std::string triple = llvm::sys::getProcessTriple(), lookupError;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), lookupError);
  if (!target || !ember::compiler::knowsCpu(*target, llvm::Triple(triple), name)) {
    cpu.error = "EMBER_CPU=" + name + ": not a CPU LLVM knows for " + triple;
    return cpu;
  }
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(llvm::Triple(triple), name, ""));
  // Features of the CPU that this machine's list names and lacks (tuning
  // flags are in neither list).
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  std::string missing;
  for (const llvm::SubtargetFeatureKV &feature : subtarget->getAllProcessorFeatures()) {
    auto known = host.find(feature.Key);
    if (known != host.end() && !known->second &&
        subtarget->checkFeatures(std::string("+") + feature.Key))
      missing += std::string(missing.empty() ? "" : ", ") + feature.Key;
  }
  if (!missing.empty()) {
    cpu.error = "EMBER_CPU=" + name + ": code for it would not run here, this machine lacks " +
                missing;
    return cpu;
  }
  cpu.vectorBits = ember::compiler::vectorBitsOf(*subtarget);
  return cpu;
}

std::string ember::jit::jitCpu() {
  const char *name = std::getenv("EMBER_CPU");
  return name ? name : "";
}

static std::atomic<unsigned> chosenVectorBits{0};

/// `bits` if it is a width blocked matmuls are made for, else 0 (none).
static unsigned supportedVectorBits(unsigned bits) {
  return bits == 128 || bits == 256 || bits == 512 ? bits : 0u;
}

unsigned ember::jit::vectorBits() {
  if (unsigned chosen = chosenVectorBits.load(std::memory_order_relaxed))
    return chosen;
  static const unsigned fromEnvironment = [] {
    const char *text = std::getenv("EMBER_VECTOR_BITS");
    return supportedVectorBits(text ? static_cast<unsigned>(std::strtoul(text, nullptr, 10)) : 0);
  }();
  if (fromEnvironment)
    return fromEnvironment;
  if (std::string cpu = jitCpu(); !cpu.empty())
    if (unsigned bits = chosenCpu(cpu).vectorBits)
      return bits;
  return hostVectorBits();
}

std::string ember::jit::bf16Instructions(std::string &error) {
  const char *limit = std::getenv("EMBER_BF16_MATMULS");
  std::string chosen = limit && *limit ? limit : "amx";
  if (!ember::compiler::isBF16Instructions(chosen)) {
    error = "EMBER_BF16_MATMULS=" + chosen + ": expected amx, avx512bf16 or none";
    return "";
  }
  // Tiles only once the OS has granted them to this process: a tile
  // instruction before that raises SIGILL.
  if (chosen == "amx" && !emberrt_request_amx())
    chosen = "avx512bf16";
  return chosen;
}

void ember::jit::setVectorBits(unsigned bits) {
  chosenVectorBits.store(supportedVectorBits(bits), std::memory_order_relaxed);
}

const std::string &ember::jit::cpuRefusal(const std::string &name) { return chosenCpu(name).error; }

static std::atomic<bool> allowTensorFloat32{true};

bool ember::jit::tensorFloat32() { return allowTensorFloat32.load(std::memory_order_relaxed); }

void ember::jit::setTensorFloat32(bool enabled) {
  allowTensorFloat32.store(enabled, std::memory_order_relaxed);
}

ember::CudaTargetOptions ember::jit::jitCudaTarget() {
  static const CudaTargetOptions chosen = [] {
    CudaTargetOptions o;
    int major = 0, minor = 0;
    if (const char *chip = std::getenv("EMBER_CUDA_CHIP"); chip && *chip)
      o.chip = chip;
    else if (emberrt_cuda_compute_capability(&major, &minor))
      o.chip = "sm_" + std::to_string(major * 10 + minor);
    return o;
  }();
  CudaTargetOptions options = chosen;
  options.tf32 = tensorFloat32();
  return options;
}
