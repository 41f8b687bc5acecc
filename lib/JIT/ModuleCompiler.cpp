//===- ModuleCompiler.cpp - a module to linked machine code, cached -------===//
//
// compileModule: the disk cache (DiskCache.cpp) or the compiler library with
// the JIT's options, then linking (Executable.cpp), for the CPU and GPU of
// HostTarget.cpp.
//
//===----------------------------------------------------------------------===//

#include "ember/JIT/ModuleCompiler.h"

#include "DiskCache.h"
#include "Executable.h"
#include "HostTarget.h"

#include "ember/Compiler/Compiler.h"
#include "ember/Init/InitAll.h"
#include "ember/Pipelines/Pipelines.h"

#include "emberrt/runtime.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
/// A copy of the object for the user (EMBER_KERNEL_OBJECT_DIR), best effort.
void writeCopy(const std::string &path, llvm::StringRef object) {
  std::string ignored;
  (void)ember::compiler::writeFileAtomically(path, {object}, ignored);
}
} // namespace

std::unique_ptr<ember::jit::Executable>
ember::jit::compileModule(ModuleOp module, std::string &error,
                          llvm::function_ref<void(ModuleOp)> afterLowering,
                          StageObserver observeStage, const std::string &objectPath, Target target,
                          bool splitDynamicSizes) {
  bool cuda = target == Target::Cuda;
  // Read once: the disk cache's key and the compile must agree (the TF32
  // switch may change on another thread).
  CudaTargetOptions cudaTarget = cuda ? jitCudaTarget() : CudaTargetOptions();
  std::string cpu = jitCpu();
  if (!cpu.empty())
    if (const std::string &refused = cpuRefusal(cpu); !refused.empty()) {
      error += refused;
      return nullptr;
    }
  std::string bf16 = cuda ? "none" : bf16Instructions(error);
  if (bf16.empty())
    return nullptr;
  // The disk cache, keyed by the module as given (without source locations:
  // they do not change the code) and the compiler's identity.
  std::string cacheDir = diskCacheDirectory(), key, path;
  if (!cacheDir.empty()) {
    llvm::raw_string_ostream os(key);
    os << compilerIdentity() << "cpu " << cpu << "\nvector-bits " << vectorBits() << "\n";
    if (!cuda)
      os << "bf16-matmuls " << bf16 << "\n";
    if (splitDynamicSizes)
      os << "split-dynamic-sizes\n";
    if (cuda)
      os << "cuda " << lowerToNVVMPipelineText(cudaTarget) << "\n";
    module->print(os, OpPrintingFlags().printGenericOpForm());
    path = cachePath(cacheDir, key);
    if (!observeStage)
      if (std::unique_ptr<llvm::MemoryBuffer> cached = readCache(path, key)) {
        if (!objectPath.empty())
          writeCopy(objectPath, cached->getBuffer());
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
    options.target.cuda = cudaTarget;
  } else {
    options.target.cpu = cpu; // empty: this machine's, with all its features
    options.target.vectorBits = vectorBits();
    options.target.bf16Instructions = bf16;
  }
  options.afterLowering = afterLowering;
  // ORC runs no constructors (a GPU module's kernel loads): the executable
  // calls them. And compile time first: kernels are compiled on a call.
  options.exposeInitializers = true;
  options.unrolling = compiler::Unrolling::CompileTimeFirst;
  options.splitDynamicSizes = splitDynamicSizes;
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
    writeCopy(objectPath, objectText);
  std::unique_ptr<ember::jit::Executable> executable =
      link(llvm::MemoryBuffer::getMemBufferCopy(objectText, "ember-kernel"), error);
  if (executable && cuda)
    executable->initialize();
  return executable;
}
