//===- Executable.cpp - object files linked into this process (ORC) -------===//
//
// An object file becomes callable code: ORC's LLJIT with JITLink, ember's
// runtime functions and the process's own symbols (libm) available to it.
//
//===----------------------------------------------------------------------===//

#include "Executable.h"
#include "HostTarget.h"

#include "ember/JIT/ModuleCompiler.h"

#include "emberrt/cuda.h"
#include "emberrt/runtime.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace {

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

} // namespace

std::unique_ptr<ember::jit::Executable> ember::jit::link(std::unique_ptr<llvm::MemoryBuffer> object,
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
  // Code that uses AMX tiles asks for them on entry (ember-cpu-request-amx-tiles).
  provide("emberrt_require_amx", &emberrt_require_amx);
  provide("emberrt_all_reduce_start_f32", &emberrt_all_reduce_start_f32);
  provide("emberrt_all_reduce_start_f64", &emberrt_all_reduce_start_f64);
  provide("emberrt_all_reduce_start_i32", &emberrt_all_reduce_start_i32);
  provide("emberrt_all_reduce_start_i64", &emberrt_all_reduce_start_i64);
  provide("emberrt_all_reduce_wait", &emberrt_all_reduce_wait);
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
