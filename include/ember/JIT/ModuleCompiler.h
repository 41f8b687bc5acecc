//===- ModuleCompiler.h - module to machine code, with a disk cache -*- C++ -*-===//
//
// Runs ember-lower-to-llvm on a module, optimizes and compiles the LLVM IR
// for the host CPU into an object file, and links it into an ORC JIT. Object
// files are cached on disk by a hash of everything that determines them (the
// module, the pipeline, the CPU and its features, and ember's own build), so
// a second process compiles nothing it compiled before.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_JIT_MODULECOMPILER_H
#define EMBER_JIT_MODULECOMPILER_H

#include "ember/Compiler/Compiler.h"
#include "ember/JIT/KernelCompiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/LogicalResult.h"

#include <memory>
#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace ember {
struct CudaTargetOptions;
} // namespace ember

namespace ember::jit {

/// Linked machine code; symbols stay valid while it lives. Code for a GPU
/// loads its kernels when linked and unloads them when destroyed.
class Executable {
public:
  explicit Executable(std::unique_ptr<llvm::orc::LLJIT> jit);
  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;
  /// The address of `symbol`, or null with `error` set.
  void *lookup(llvm::StringRef symbol, std::string &error);
  /// True if the code came from the disk cache.
  bool fromDiskCache = false;

  /// Runs the module's initializers (a GPU module's kernel loads), which
  /// the object's constructors would run in a linked program; the
  /// destructor runs its finalizers. Only GPU code has any.
  void initialize();

private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  void (*finalize_)() = nullptr;
};

/// The functions that run a module's initializers and finalizers.
using compiler::kModuleFini;
using compiler::kModuleInit;

/// Receives the text of each stage: "optimized", "linalg", "llvm" (MLIR's LLVM
/// dialect) and "llvm-ir" (optimized LLVM IR).
using StageObserver = llvm::function_ref<void(llvm::StringRef stage, const std::string &text)>;

/// Compiles `module` for `target` (or loads it from the disk cache). `afterLowering` sees
/// the module in the LLVM dialect before translation (to add facts only the
/// caller knows, such as noalias). With an observer every stage is produced,
/// so the disk cache is not read. `objectPath`, when not empty, receives a
/// copy of the object file. `splitDynamicSizes`: CompileOptions'. Returns
/// null and fills `error` on failure; must run while the caller holds a
/// diagnostic handler that records errors.
std::unique_ptr<Executable>
compileModule(mlir::ModuleOp module, std::string &error,
              llvm::function_ref<void(mlir::ModuleOp)> afterLowering = {},
              StageObserver observeStage = {}, const std::string &objectPath = "",
              Target target = Target::Host, bool splitDynamicSizes = true);

/// The options of GPU code compiled for this process: the architecture of
/// its GPU (sm_90 without one, or $EMBER_CUDA_CHIP), PTX that the driver
/// compiles when the module loads.
CudaTargetOptions jitCudaTarget();

/// The CPU compiled code is for: $EMBER_CPU, an LLVM CPU name ("x86-64-v3",
/// "znver3", "haswell"), read whenever code is compiled; empty: this
/// machine's, with every feature it has. Code for another CPU must run here
/// (compiling fails, naming the features this machine lacks, otherwise): on
/// an AVX-512 host, EMBER_CPU=x86-64-v3 runs the AVX2 code that a machine
/// without AVX-512 would get. Code already compiled keeps its CPU.
std::string jitCpu();

/// The width of the vector registers that blocked matmuls are sized to: the
/// CPU's (512 with AVX-512, 256 with AVX2; the host's, or $EMBER_CPU's)
/// unless $EMBER_VECTOR_BITS or setVectorBits names one (128, 256 or 512).
/// Code for a wider width still runs on a narrower host (LLVM splits the
/// vectors), so tests name the width they check instead of depending on the
/// machine.
unsigned vectorBits();
/// The most that bfloat16 matmuls may use ("amx", "avx512bf16" or "none";
/// they use the best of these the CPU has): $EMBER_BF16_MATMULS when set
/// (e.g. avx512bf16 on an AMX host: the code a Zen 4 or Cooper Lake gets),
/// else "amx", lowered to "avx512bf16" where the OS refuses this process AMX
/// tiles (Linux grants them from 5.16, when asked). An unknown name: "",
/// and `error` says why.
std::string bf16Instructions(std::string &error);
/// Sets the width for code compiled from now on; 0 goes back to the default.
/// Kernels already cached in memory keep the width they were compiled for.
void setVectorBits(unsigned bits);

/// The disk cache's directory: $EMBER_CACHE_DIR, else $XDG_CACHE_HOME/ember,
/// else ~/.cache/ember; empty when EMBER_CACHE_DIR is set but empty
/// (caching off).
std::string diskCacheDirectory();

} // namespace ember::jit

#endif // EMBER_JIT_MODULECOMPILER_H
