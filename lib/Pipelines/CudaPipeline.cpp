//===- CudaPipeline.cpp - ember-lower-to-nvvm ------------------------------===//
//
// ember to NVIDIA GPUs: the same graph optimizations and linalg lowering as
// the CPU (without CPU-blocked matmuls), then buffers, one kernel per loop
// nest mapped onto blocks and threads (or, for a small function with control
// flow, the whole function as one kernel of one block), NVVM, and a GPU
// binary (PTX or cubin) embedded in host code that launches it through
// ember's runtime.
//
//===----------------------------------------------------------------------===//

#include "ember/Pipelines/Pipelines.h"

#include "PipelineSteps.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using ember::joinSteps;

// Buffers (kBufferizeSteps: results written straight into the caller's
// device buffers) and kernels, then the upstream NVVM lowering.
static const char *const kToGpuSteps[] = {
    // Small functions with control flow: one buffer per loop variable, so
    // that their temporaries are allocated once (shared memory, below).
    "func.func(ember-reuse-loop-buffers,buffer-loop-hoisting)",
    "buffer-deallocation-pipeline",
    "convert-bufferization-to-memref",
    // `?` sizes read from the values that give them, not from views of
    // buffers that nothing else uses (such a buffer, left on the host,
    // would need a host allocation of a run-time size); then those buffers
    // are dead.
    "func.func(resolve-ranked-shaped-type-result-dims,canonicalize)",
    // Every linalg op a parallel loop nest (reductions inside as scf.for);
    // a small function with control flow one kernel of one block, every
    // other nest a kernel.
    "func.func(ember-parallel-dims-outermost,convert-linalg-to-parallel-loops)",
    "func.func(ember-map-to-one-block-kernel{max-threads=%BLOCK%})",
    "ember-map-to-gpu-kernels{block-size=%BLOCK% tensor-cores=%TENSORCORES% tf32=%TF32%}",
    "func.func(convert-parallel-loops-to-gpu)",
    "lower-affine",
    "canonicalize",
    // f32 exp/log/tanh as polynomials in the kernels too: no libdevice needed.
    "func.func(ember-approximate-math)",
    // Constants back into the kernels (canonicalization hoisted them out of
    // the launches; outlining would make each a kernel parameter, so loop
    // bounds and divisors were unknown to the kernel's compiler).
    "func.func(gpu-launch-sink-index-computations)",
};

static const char *const kToNVVMSteps[] = {
    // Kernels outlined first, so that their shared buffers can be aligned
    // (the upstream pipeline's own outlining then finds nothing left).
    "gpu-kernel-outlining",
    "gpu.module(ember-align-workgroup-buffers,ember-cuda-lower-fault-reports)",
    // Faults of host code (none yet: the host touches no device memory).
    "ember-lower-fault-reports",
    // Outlining, NVVM, the host's launches (mgpu* calls, which ember's runtime
    // provides) and the binary; kernels take bare pointers (static shapes) or
    // memref descriptors (`?` dims: their sizes and strides).
    ("gpu-lower-to-nvvm-pipeline{cubin-chip=%CHIP% cubin-features=%FEATURES% "
     "cubin-format=%FORMAT% opt-level=3 kernel-bare-ptr-calling-convention=%BARE%}"),
    // Host temporaries from the runtime's device allocator.
    "ember-device-allocations",
    "ember-emit-entry-points",
};

/// Replaces every `name` in `text` by `value` (which may contain `name`).
static void substitute(std::string &text, llvm::StringRef name, const std::string &value) {
  for (size_t at = 0; (at = text.find(name.str(), at)) != std::string::npos; at += value.size())
    text.replace(at, name.size(), value);
}

/// Whether `chip` (sm_XY) has the tensor-core instructions the 16-bit
/// matmuls use: mma.sync on bfloat16 and cp.async (sm_80, Ampere, and later).
static bool hasTensorCores(llvm::StringRef chip) {
  unsigned version = 0;
  return chip.consume_front("sm_") &&
         !chip.take_while([](char c) { return llvm::isDigit(c); }).getAsInteger(10, version) &&
         version >= 80;
}

std::string ember::cudaStagePipelineText(LoweringStage stage, const CudaTargetOptions &options) {
  switch (stage) {
  case LoweringStage::Optimized:
    return stagePipelineText(LoweringStage::Optimized, 0);
  case LoweringStage::Linalg: {
    // Integer division by zero and gather indices out of range are guarded
    // (no trap, no out-of-bounds read) and reported: kernels to the
    // runtime's fault word (ember-cuda-lower-fault-reports). Matmuls stay
    // linalg.matmul (generalized; ember-map-to-gpu-kernels tiles their loop
    // nests), 16-bit operands as they are (tensor cores read them so), and
    // their operands are not fused into them unless the producer only moves
    // elements (a transpose): tiles and tensor cores read buffers.
    std::string steps = joinSteps(ember::kToLinalgSteps);
    substitute(steps, "func.func(linalg-fuse-elementwise-ops)",
               "func.func(ember-fuse-elementwise-ops{contractions-take-moves-only=true})");
    return "convert-ember-to-linalg{narrow-matmul-operands=true}," + steps;
  }
  case LoweringStage::LLVMDialect: {
    std::string gpu = joinSteps(ember::kBufferizeSteps) + "," + joinSteps(kToGpuSteps),
                nvvm = joinSteps(kToNVVMSteps);
    // Kernels take bare pointers, so every buffer they touch needs a static
    // layout: branch and loop results too (not the fully dynamic layout that
    // bufferization gives values of ops it cannot see through).
    substitute(gpu, "function-boundary-type-conversion=identity-layout-map ",
               "unknown-type-conversion=identity-layout-map "
               "function-boundary-type-conversion=identity-layout-map ");
    substitute(gpu, "%BLOCK%", std::to_string(options.blockSize));
    substitute(gpu, "%TENSORCORES%", hasTensorCores(options.chip) ? "true" : "false");
    substitute(gpu, "%TF32%", options.tf32 ? "true" : "false");
    substitute(nvvm, "%CHIP%", options.chip);
    substitute(nvvm, "%FEATURES%", options.features);
    substitute(nvvm, "%FORMAT%", options.format);
    substitute(nvvm, "%BARE%", options.barePointers ? "true" : "false");
    return gpu + "," + nvvm;
  }
  }
  return "";
}

std::string ember::lowerToNVVMPipelineText(const CudaTargetOptions &options) {
  std::string text = "builtin.module(";
  for (LoweringStage stage : kLoweringStages)
    text += (stage == LoweringStage::Optimized ? "" : ",") + cudaStagePipelineText(stage, options);
  return text + ")";
}

LogicalResult ember::buildLowerToNVVMPipeline(OpPassManager &pm,
                                              const CudaTargetOptions &options) {
  std::string text = lowerToNVVMPipelineText(options);
  llvm::StringRef inner = llvm::StringRef(text).drop_front(strlen("builtin.module(")).drop_back();
  return parsePassPipeline(inner, pm);
}

namespace {
struct LowerToNVVMOptions : PassPipelineOptions<LowerToNVVMOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("The GPU's architecture"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features, e.g. +ptx80 (the ISA version); empty: the lowest version "
                     "the chip supports"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("The binary: isa (PTX, compiled by the driver), bin (cubin, through "
                     "ptxas) or fatbin"),
      llvm::cl::init("isa")};
  Option<int64_t> blockSize{*this, "block-size", llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
  Option<bool> barePointers{
      *this, "bare-pointers",
      llvm::cl::desc("Kernels take one pointer per memref (static shapes only); false: memref "
                     "descriptors, needed for `?` dims"),
      llvm::cl::init(true)};
  Option<bool> tf32{*this, "tf32",
                    llvm::cl::desc("float32 matmuls on tensor cores, operands rounded to TF32 "
                                   "(sm_80 and later)"),
                    llvm::cl::init(false)};
};
} // namespace

void ember::registerCudaPipeline() {
  PassPipelineRegistration<LowerToNVVMOptions>(
      "ember-lower-to-nvvm",
      "Lower a module of ember and upstream ops on tensors to host code in the LLVM dialect "
      "that launches NVVM kernels (embedded as PTX or cubin) through ember's runtime",
      [](OpPassManager &pm, const LowerToNVVMOptions &options) {
        (void)ember::buildLowerToNVVMPipeline(pm, {options.chip, options.features, options.format,
                                                   options.blockSize, options.tf32,
                                                   options.barePointers});
      });
}
