//===- ModuleCompiler.cpp - ember-lower-to-llvm plus the LLVM JIT ---------===//

#include "ember/JIT/ModuleCompiler.h"

#include "ember/Compiler/Compiler.h"
#include "ember/Init/InitAll.h"
#include "ember/Pipelines/Pipelines.h"
#include "EmberBuildId.h"

#include "emberrt/cuda.h"
#include "emberrt/runtime.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

using namespace mlir;

const DialectRegistry &ember::jit::compilerRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    ember::registerAllDialects(*r);
    return r;
  }();
  return *registry;
}

/// The JIT links code for this machine (the compiler library initializes
/// every target it generates code for).
static void initializeNativeTarget() {
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
  initializeNativeTarget();
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

void ember::jit::setVectorBits(unsigned bits) {
  chosenVectorBits.store(supportedVectorBits(bits), std::memory_order_relaxed);
}


/// The trip count of `loop` as MLIR lowers an scf.for with constant bounds:
/// a header phi from a constant, stepped by a constant, compared with a
/// constant bound (slt/ult, or ne); nothing otherwise.
static std::optional<int64_t> constantTripCount(const llvm::Loop &loop) {
  llvm::BasicBlock *header = loop.getHeader();
  for (llvm::PHINode &phi : header->phis()) {
    if (phi.getNumIncomingValues() != 2 || !phi.getType()->isIntegerTy())
      continue;
    llvm::ConstantInt *start = nullptr;
    llvm::BinaryOperator *next = nullptr;
    for (unsigned i = 0; i < 2; ++i) {
      llvm::Value *incoming = phi.getIncomingValue(i);
      if (loop.contains(phi.getIncomingBlock(i)))
        next = llvm::dyn_cast<llvm::BinaryOperator>(incoming);
      else
        start = llvm::dyn_cast<llvm::ConstantInt>(incoming);
    }
    if (!start || !next || next->getOpcode() != llvm::Instruction::Add ||
        next->getOperand(0) != &phi)
      continue;
    auto *step = llvm::dyn_cast<llvm::ConstantInt>(next->getOperand(1));
    if (!step || step->getSExtValue() <= 0)
      continue;
    for (llvm::User *user : phi.users()) {
      auto *compare = llvm::dyn_cast<llvm::ICmpInst>(user);
      if (!compare || compare->getOperand(0) != &phi)
        continue;
      auto *bound = llvm::dyn_cast<llvm::ConstantInt>(compare->getOperand(1));
      if (!bound || (compare->getPredicate() != llvm::ICmpInst::ICMP_SLT &&
                     compare->getPredicate() != llvm::ICmpInst::ICMP_ULT))
        continue;
      int64_t span = bound->getSExtValue() - start->getSExtValue();
      return span <= 0 ? 0 : (span + step->getSExtValue() - 1) / step->getSExtValue();
    }
  }
  return std::nullopt;
}

/// Kernels have small constant trip counts that LLVM's O3 would fully
/// unroll, nest after nest, which made compile time grow with the tensor size
/// (5 ms at 7 elements, 25 ms at 105). Only tiny innermost loops stay
/// eligible for unrolling (a 10-wide matmul row becomes 8 + 2 SLP-vectorized
/// lanes with the accumulators in registers): every other loop gets
/// `llvm.loop.unroll.disable`, and the tiny ones `llvm.loop.unroll.runtime
/// .disable`. Loop metadata, not LLVM's process-wide unroll options, so a
/// program embedding ember next to other LLVM users keeps their settings.
/// (It replaced -unroll-threshold=64 -unroll-runtime=false
/// -unroll-allow-partial=false; callgrind then measured about -27%
/// instructions per elementwise compile.)
static void limitLoopUnrolling(llvm::Module &module) {
  // Unrolled size allowed, in IR instructions before optimization (which
  // removes about half of a loop body's: address arithmetic, casts).
  constexpr int64_t kMaxUnrolledInstructions = 128;
  llvm::LLVMContext &context = module.getContext();
  auto loopMetadata = [&](llvm::StringRef property) {
    llvm::MDNode *property_ = llvm::MDNode::get(context, llvm::MDString::get(context, property));
    return property_;
  };
  ember::compiler::forEachLoop(module, [&](llvm::Loop &loop) {
    int64_t instructions = 0;
    for (llvm::BasicBlock *block : loop.blocks())
      instructions += static_cast<int64_t>(block->size());
    std::optional<int64_t> trips = constantTripCount(loop);
    bool tiny =
        loop.isInnermost() && trips && *trips * instructions <= kMaxUnrolledInstructions;
    ember::compiler::addLoopProperty(loop, loopMetadata(tiny ? "llvm.loop.unroll.runtime.disable"
                                                             : "llvm.loop.unroll.disable"));
  });
}

//===----------------------------------------------------------------------===//
// Disk cache
//===----------------------------------------------------------------------===//

std::string ember::jit::diskCacheDirectory() {
  if (const char *dir = std::getenv("EMBER_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/ember";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/ember";
  return "";
}

namespace {
// An entry: magic, then the lengths of the key and the object and a hash of
// the object, then the key itself and the object. A reader checks all of
// them, so a truncated, corrupt or colliding entry is never loaded.
constexpr char kCacheMagic[8] = {'E', 'M', 'B', 'R', 'K', 'C', '0', '1'};
struct CacheHeader {
  char magic[8];
  uint64_t keySize;
  uint64_t objectSize;
  uint64_t objectHash;
};

std::string cachePath(const std::string &dir, const std::string &key) {
  return dir + "/" + llvm::utohexstr(llvm::xxh3_64bits(key), /*LowerCase=*/true) + ".o";
}

/// The cached object for `key`, or null if absent or invalid.
std::unique_ptr<llvm::MemoryBuffer> readCache(const std::string &path, const std::string &key) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return nullptr;
  llvm::StringRef data = (*file)->getBuffer();
  CacheHeader header;
  if (data.size() < sizeof header)
    return nullptr;
  std::memcpy(&header, data.data(), sizeof header);
  if (std::memcmp(header.magic, kCacheMagic, sizeof kCacheMagic) != 0 ||
      header.keySize != key.size() ||
      data.size() != sizeof header + header.keySize + header.objectSize ||
      data.substr(sizeof header, header.keySize) != key)
    return nullptr;
  llvm::StringRef object = data.substr(sizeof header + header.keySize);
  if (llvm::xxh3_64bits(object) != header.objectHash)
    return nullptr;
  return llvm::MemoryBuffer::getMemBufferCopy(object, path);
}

/// Best effort (a cache, a copy for the user): a file that cannot be
/// written is left out. Cache entries check their own size and hash, so they
/// skip the fsync (`sync` = false): a torn one after a crash is a miss.
void writeFileAtomically(const std::string &path, llvm::ArrayRef<llvm::StringRef> pieces,
                         bool sync = true) {
  std::string ignored;
  (void)ember::compiler::writeFileAtomically(path, pieces, ignored, sync);
}

void writeCache(const std::string &dir, const std::string &path, const std::string &key,
                llvm::StringRef object) {
  if (llvm::sys::fs::create_directories(dir))
    return; // caching is best effort
  CacheHeader header;
  std::memcpy(header.magic, kCacheMagic, sizeof kCacheMagic);
  header.keySize = key.size();
  header.objectSize = object.size();
  header.objectHash = llvm::xxh3_64bits(object);
  writeFileAtomically(path,
                      {llvm::StringRef(reinterpret_cast<const char *>(&header), sizeof header),
                       key, object},
                      /*sync=*/false);
}

/// Everything that determines the object besides the module: ember's build,
/// the pipeline, the CPU and its features.
const std::string &compilerIdentity() {
  static const std::string identity = [] {
    std::string id = std::string("ember ") + EMBER_BUILD_ID + "\nllvm " LLVM_VERSION_STRING "\n";
    id += ember::lowerToLLVMPipelineText() + "\n";
    id += llvm::sys::getHostCPUName().str() + "\n";
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      if (feature.second)
        id += feature.first().str() + ",";
    return id;
  }();
  return identity;
}

/// malloc for compiled code, from the same cache as its aligned_alloc, so
/// that the one `free` it calls is right for either.
void *scratchMalloc(size_t size) { return emberrt_scratch_allocate(16, size); }

/// EMBER_PERF_MAP=1: appends every linked function (internal ones too, e.g.
/// outlined loop nests and OpenMP regions' bodies) to /tmp/perf-<pid>.map,
/// so that `perf report` names compiled code instead of showing raw
/// addresses. The functions come from the object's symbol table: JITLink's
/// graph keeps no names for local symbols (the OpenMP bodies, where
/// parallel code spends its time); each is placed at its section's address
/// plus its offset.
class PerfMapPlugin : public llvm::orc::ObjectLinkingLayer::Plugin {
public:
  explicit PerfMapPlugin(llvm::MemoryBufferRef object) {
    auto file = llvm::object::ObjectFile::createObjectFile(object);
    if (!file) {
      llvm::consumeError(file.takeError());
      return;
    }
    // Whether `value` holds one (its error, if any, dropped: a symbol that
    // cannot be read is left out).
    auto ok = [](auto &value) {
      if (value)
        return true;
      llvm::consumeError(value.takeError());
      return false;
    };
    for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
      auto type = symbol.getType();
      auto name = symbol.getName();
      auto section = symbol.getSection();
      auto offset = symbol.getValue();
      bool read[] = {ok(type), ok(name), ok(section), ok(offset)}; // every error consumed
      if (!llvm::all_of(read, [](bool each) { return each; }) ||
          *type != llvm::object::SymbolRef::ST_Function || *section == (*file)->section_end())
        continue;
      auto sectionName = (*section)->getName();
      if (!ok(sectionName))
        continue;
      uint64_t size = 0;
      if (llvm::isa<llvm::object::ELFObjectFileBase>(file->get()))
        size = llvm::object::ELFSymbolRef(symbol).getSize();
      if (size > 0)
        functions.push_back({name->str(), sectionName->str(), *offset, size});
    }
  }

  void modifyPassConfig(llvm::orc::MaterializationResponsibility &, llvm::jitlink::LinkGraph &,
                        llvm::jitlink::PassConfiguration &config) override {
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph &graph) {
      static std::mutex mutex;
      std::lock_guard<std::mutex> lock(mutex);
      std::error_code failure;
      llvm::raw_fd_ostream map(
          "/tmp/perf-" + std::to_string(llvm::sys::Process::getProcessId()) + ".map", failure,
          llvm::sys::fs::OF_Append);
      if (failure)
        return llvm::Error::success(); // a profiling aid: never fail a link over it
      for (const ObjectFunction &function : functions) {
        // A section is one block of the graph (ELF): its address is where
        // the section went.
        llvm::jitlink::Section *section = graph.findSectionByName(function.section);
        if (!section || section->blocks_size() != 1)
          continue;
        uint64_t address = (*section->blocks().begin())->getAddress().getValue() + function.offset;
        map << llvm::format_hex_no_prefix(address, 1) << " "
            << llvm::format_hex_no_prefix(function.size, 1) << " " << function.name << "\n";
      }
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility &) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib &, llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib &, llvm::orc::ResourceKey,
                                   llvm::orc::ResourceKey) override {}

private:
  /// A function of the object: its section, and where in it.
  struct ObjectFunction {
    std::string name, section;
    uint64_t offset, size;
  };
  std::vector<ObjectFunction> functions;
};

/// A JIT holding `object`, with ember's runtime functions and the process's
/// symbols (libm) available to it.
std::unique_ptr<ember::jit::Executable> link(std::unique_ptr<llvm::MemoryBuffer> object,
                                             std::string &error) {
  initializeNativeTarget();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    error += llvm::toString(jit.takeError());
    return nullptr;
  }
  if (const char *perfMap = std::getenv("EMBER_PERF_MAP"); perfMap && *perfMap && *perfMap != '0')
    if (auto *linker = llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&(*jit)->getObjLinkingLayer()))
      linker->addPlugin(std::make_shared<PerfMapPlugin>(object->getMemBufferRef()));
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  // Parallel loops call LLVM's OpenMP runtime (__kmpc_*): loaded into the
  // process once, where the lookup below finds it.
  static const bool openMPLoaded = [] {
    for (const char *name : {"libomp.so.5", "libomp.so"})
      if (!llvm::sys::DynamicLibrary::LoadLibraryPermanently(name))
        return true;
    return false;
  }();
  (void)openMPLoaded;
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    error += llvm::toString(process.takeError());
    return nullptr;
  }
  main.addGenerator(std::move(*process));
  llvm::orc::SymbolMap runtime;
  auto provide = [&](llvm::StringRef name, auto *function) {
    runtime[(*jit)->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                              llvm::JITSymbolFlags::Exported};
  };
  provide("memrefCopy", &emberrt_memref_copy);
  // Compiled code's temporaries (the only memory it allocates: results are
  // caller-provided) come from the runtime's per-thread cache, so a function
  // called in a loop does not map and unmap its large temporaries each time.
  provide("aligned_alloc", &emberrt_scratch_allocate);
  provide("malloc", &scratchMalloc); // not emitted today; must pair with free
  provide("free", &emberrt_scratch_free);
  provide("emberrt_print_i1", &emberrt_print_i1);
  provide("emberrt_print_i32", &emberrt_print_i32);
  provide("emberrt_print_i64", &emberrt_print_i64);
  provide("emberrt_print_f32", &emberrt_print_f32);
  provide("emberrt_print_f64", &emberrt_print_f64);
  // Integer division by zero, gather indices out of range (see runtime.h).
  provide("emberrt_report_fault", &emberrt_report_fault);
  // The team size of parallel loops (see ember-omp-num-threads).
  provide("emberrt_num_threads", &emberrt_num_threads);
  // What the host code of GPU functions calls (emberrt/cuda.h), by address:
  // a program linked statically does not export them to the JIT's lookup in
  // the process.
  provide("mgpuModuleLoad", &mgpuModuleLoad);
  provide("mgpuModuleLoadJIT", &mgpuModuleLoadJIT);
  provide("mgpuModuleUnload", &mgpuModuleUnload);
  provide("mgpuModuleGetFunction", &mgpuModuleGetFunction);
  provide("mgpuLaunchKernel", &mgpuLaunchKernel);
  provide("mgpuStreamCreate", &mgpuStreamCreate);
  provide("mgpuStreamDestroy", &mgpuStreamDestroy);
  provide("mgpuStreamSynchronize", &mgpuStreamSynchronize);
  provide("mgpuStreamWaitEvent", &mgpuStreamWaitEvent);
  provide("mgpuEventCreate", &mgpuEventCreate);
  provide("mgpuEventDestroy", &mgpuEventDestroy);
  provide("mgpuEventSynchronize", &mgpuEventSynchronize);
  provide("mgpuEventRecord", &mgpuEventRecord);
  provide("mgpuMemAlloc", &mgpuMemAlloc);
  provide("mgpuMemFree", &mgpuMemFree);
  provide("mgpuMemcpy", &mgpuMemcpy);
  provide("mgpuMemset32", &mgpuMemset32);
  provide("mgpuMemset16", &mgpuMemset16);
  provide("mgpuSetDefaultDevice", &mgpuSetDefaultDevice);
  provide("emberrt_cuda_host_malloc", &emberrt_cuda_host_malloc);
  provide("emberrt_cuda_aligned_alloc", &emberrt_cuda_aligned_alloc);
  provide("emberrt_cuda_free_any", &emberrt_cuda_free_any);
  provide("emberrt_cuda_upload", &emberrt_cuda_upload);
  provide("emberrt_cuda_download", &emberrt_cuda_download);
  if (llvm::Error failure = main.define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
    error += llvm::toString(std::move(failure));
    return nullptr;
  }
  if (llvm::Error failure = (*jit)->addObjectFile(std::move(object))) {
    error += llvm::toString(std::move(failure));
    return nullptr;
  }
  return std::make_unique<ember::jit::Executable>(std::move(*jit));
}
} // namespace

ember::jit::Executable::Executable(std::unique_ptr<llvm::orc::LLJIT> jit) : jit_(std::move(jit)) {}
ember::jit::Executable::~Executable() {
  if (finalize_)
    finalize_();
}

void ember::jit::Executable::initialize() {
  for (llvm::StringRef name : {kModuleInit, kModuleFini}) {
    auto address = jit_->lookup(name);
    if (!address) { // no constructors or no destructors
      llvm::consumeError(address.takeError());
      continue;
    }
    auto function = address->toPtr<void (*)()>();
    if (name == kModuleInit)
      function();
    else
      finalize_ = function;
  }
}

void *ember::jit::Executable::lookup(llvm::StringRef symbol, std::string &error) {
  auto address = jit_->lookup(symbol);
  if (!address) {
    error += llvm::toString(address.takeError());
    return nullptr;
  }
  return address->toPtr<void *>();
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

/// Replaces `llvm.global_ctors` / `llvm.global_dtors` (a GPU module's kernel
/// loads and unloads) by two exported functions that call them in order,
/// kModuleInit and kModuleFini: ORC runs no constructors of an object file
/// added to it, and the executable calls these at the right moments instead.
static void exposeInitializers(llvm::Module &module) {
  auto expose = [&](llvm::StringRef global, llvm::StringRef name, bool reverse) {
    llvm::GlobalVariable *list = module.getGlobalVariable(global);
    if (!list)
      return;
    std::vector<std::pair<uint64_t, llvm::Function *>> entries;
    if (auto *array = llvm::dyn_cast_or_null<llvm::ConstantArray>(list->getInitializer()))
      for (llvm::Value *element : array->operands()) {
        auto *entry = llvm::cast<llvm::ConstantStruct>(element);
        auto *priority = llvm::cast<llvm::ConstantInt>(entry->getOperand(0));
        if (auto *function = llvm::dyn_cast<llvm::Function>(entry->getOperand(1))) {
          // In order of priority; equal priorities in the list's order.
          std::pair<uint64_t, llvm::Function *> item(priority->getZExtValue(), function);
          entries.insert(std::upper_bound(entries.begin(), entries.end(), item,
                                          [](auto &a, auto &b) { return a.first < b.first; }),
                         item);
        }
      }
    if (reverse)
      std::reverse(entries.begin(), entries.end());
    list->eraseFromParent();
    llvm::LLVMContext &context = module.getContext();
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
    auto *function =
        llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", function));
    for (auto &[priority, callee] : entries)
      b.CreateCall(callee);
    b.CreateRetVoid();
  };
  expose("llvm.global_ctors", ember::jit::kModuleInit, /*reverse=*/false);
  expose("llvm.global_dtors", ember::jit::kModuleFini, /*reverse=*/true);
}

ember::CudaTargetOptions ember::jit::jitCudaTarget() {
  static const CudaTargetOptions options = [] {
    CudaTargetOptions o;
    int major = 0, minor = 0;
    if (const char *chip = std::getenv("EMBER_CUDA_CHIP"); chip && *chip)
      o.chip = chip;
    else if (emberrt_cuda_compute_capability(&major, &minor))
      o.chip = "sm_" + std::to_string(major * 10 + minor);
    return o;
  }();
  return options;
}

std::unique_ptr<ember::jit::Executable>
ember::jit::compileModule(ModuleOp module, std::string &error,
                          llvm::function_ref<void(ModuleOp)> afterLowering,
                          StageObserver observeStage, const std::string &objectPath,
                          Target target) {
  bool cuda = target == Target::Cuda;
  std::string cpu = jitCpu();
  if (!cpu.empty())
    if (const std::string &refused = chosenCpu(cpu).error; !refused.empty()) {
      error += refused;
      return nullptr;
    }
  // The disk cache, keyed by the module as given (without source locations:
  // they do not change the code) and the compiler's identity.
  std::string cacheDir = diskCacheDirectory(), key, path;
  if (!cacheDir.empty()) {
    llvm::raw_string_ostream os(key);
    os << compilerIdentity() << "cpu " << cpu << "\nvector-bits " << vectorBits() << "\n";
    if (cuda)
      os << "cuda " << lowerToNVVMPipelineText(jitCudaTarget()) << "\n";
    module->print(os, OpPrintingFlags().printGenericOpForm());
    path = cachePath(cacheDir, key);
    if (!observeStage)
      if (std::unique_ptr<llvm::MemoryBuffer> cached = readCache(path, key)) {
        if (!objectPath.empty())
          writeFileAtomically(objectPath, {cached->getBuffer()});
        std::unique_ptr<ember::jit::Executable> executable = link(std::move(cached), error);
        if (executable) {
          if (cuda) // GPU code loads its kernels; CPU code has nothing to run
            executable->initialize();
          executable->fromDiskCache = true;
          return executable;
        }
        error.clear(); // an unusable entry is rebuilt below
      }
  }

  // A miss: compile, for this machine's CPU (with the chosen vector width)
  // or its GPU.
  compiler::CompileOptions options;
  if (cuda) {
    options.target.kind = compiler::Target::Kind::Cuda;
    options.target.cuda = jitCudaTarget();
  } else {
    options.target.cpu = cpu; // empty: this machine's, with all its features
    options.target.vectorBits = vectorBits();
  }
  options.afterLowering = afterLowering;
  auto prepareLLVMModule = [](llvm::Module &translated) {
    exposeInitializers(translated);
    limitLoopUnrolling(translated);
  };
  options.afterTranslation = prepareLLVMModule;
  auto observe = [&](compiler::Phase phase, const std::string &text) {
    observeStage(compiler::infoOf(phase).name, text);
  };
  if (observeStage)
    options.observePhase = observe;
  std::string object;
  if (failed(compiler::compile(module, options, object, error)))
    return nullptr;
  llvm::StringRef objectText(object);
  if (!path.empty())
    writeCache(cacheDir, path, key, objectText);
  if (!objectPath.empty())
    writeFileAtomically(objectPath, {objectText});
  std::unique_ptr<ember::jit::Executable> executable =
      link(llvm::MemoryBuffer::getMemBufferCopy(objectText, "ember-kernel"), error);
  if (executable && cuda)
    executable->initialize();
  return executable;
}
