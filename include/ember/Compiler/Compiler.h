//===- Compiler.h - ember's compiler as a library ---------------*- C++ -*-===//
//
// One compile path for every use: the JIT (eager ops, traced functions),
// ember-compile (ahead of time) and the GPU. A module of ember and upstream
// ops on tensors, plus typed options (the target, the optimization level, the
// phase to stop after, who sees each phase's IR), becomes the artifact: an
// object file (for the CPU, or host code with the GPU kernels embedded), or
// the text of an earlier phase. Never throws, never changes LLVM's global
// options; diagnostics go to the caller's handler.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_COMPILER_COMPILER_H
#define EMBER_COMPILER_COMPILER_H

#include "ember/Pipelines/Pipelines.h"
#include "ember/Support/DimPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <optional>
#include <string>

namespace llvm {
class Loop;
class MCSubtargetInfo;
class MDNode;
class Module;
class Target;
class TargetMachine;
class Triple;
} // namespace llvm

namespace ember::compiler {

/// The phases of compilation, in order. Their names are the one list used by
/// ember-compile's --emit, EMBER_DUMP_DIR file names and the front end's
/// ir_stages ("traced" is what the tracer built, before this compiler).
enum class Phase { Optimized, Linalg, LLVMDialect, LLVMIR, Assembly, Object };

struct PhaseInfo {
  Phase phase;
  llvm::StringLiteral name;      ///< "optimized", "linalg", "llvm", "llvm-ir", "asm", "obj"
  llvm::StringLiteral extension; ///< of a file holding it: ".mlir", ".ll", ".s", ".o"
  llvm::StringLiteral summary;
};
llvm::ArrayRef<PhaseInfo> phases();
const PhaseInfo &infoOf(Phase phase);
/// The phase named `name` ("llvm-ir"), or nothing.
std::optional<Phase> phaseNamed(llvm::StringRef name);

/// What the code runs on.
struct Target {
  enum class Kind { CPU, Cuda };
  Kind kind = Kind::CPU;
  /// CPU: the LLVM target triple ("aarch64-linux-gnu"); empty: this machine's.
  std::string triple;
  /// CPU: its name ("x86-64-v3", "skylake-avx512", "neoverse-n1"); empty:
  /// this machine's when the triple is too, else "generic".
  std::string cpu;
  /// CPU: LLVM features ("+avx2,-avx512f"); empty: this machine's when the
  /// CPU is, else the CPU's own.
  std::string features;
  /// CPU: the vector width blocked matmuls are sized to; 0: from the
  /// target's features (512 with AVX-512, 256 with AVX, else 128).
  unsigned vectorBits = 0;
  /// CPU: the most that bfloat16 matmuls may use, "amx" (AMX tiles),
  /// "avx512bf16" (vdpbf16ps) or "none" (widened to float32); they use the
  /// best of these that the target has. The JIT lowers it where the OS
  /// refuses AMX, or as $EMBER_BF16_MATMULS says.
  std::string bf16Instructions = "amx";
  /// Cuda: the GPU (its host code is for this machine).
  CudaTargetOptions cuda;

  /// This machine's CPU.
  static Target host();
  /// "host" (also "cpu"), "cuda" (sm_90) or "cuda:sm_XX". False, with
  /// `error` set, for anything else.
  static bool parse(llvm::StringRef text, Target &out, std::string &error);
  /// One line naming everything that changes the code (a cache key's part).
  std::string describe() const;
};

/// How LLVM may unroll loops.
enum class Unrolling {
  /// As LLVM's optimizer decides at optLevel.
  Full,
  /// Compile time first (the JIT's choice, which compiles on a call):
  /// kernels' constant trip counts would have O3 unroll nest after nest, so
  /// compile time grew with the tensor size; only tiny innermost loops stay
  /// eligible. The code can be slower where a larger unroll would have paid.
  CompileTimeFirst,
};

/// The functions that run an object's initializers and finalizers when
/// CompileOptions::exposeInitializers is set.
inline constexpr const char *kModuleInit = "ember_module_init";
inline constexpr const char *kModuleFini = "ember_module_fini";

struct CompileOptions {
  Target target = Target::host();
  unsigned optLevel = 3; ///< 0 to 3, as -O0 ... -O3
  Phase stopAfter = Phase::Object;
  Unrolling unrolling = Unrolling::Full;
  /// CPU: ops and matmuls whose sizes are known only at run time (`?` dims)
  /// are shared among threads when they turn out large enough. The JIT's
  /// eager kernels leave it off: the OpenMP region doubles a shape-generic
  /// kernel's compile time, and their hot shapes are specialized instead.
  bool splitDynamicSizes = true;
  /// Replaces llvm.global_ctors and llvm.global_dtors (a GPU module's kernel
  /// loads and unloads) by exported functions kModuleInit and kModuleFini,
  /// for loaders that run no constructors (the JIT's ORC linking).
  bool exposeInitializers = false;
  /// Sees the module in the LLVM dialect before translation (to add facts
  /// only the caller knows, such as noalias).
  llvm::function_ref<void(mlir::ModuleOp)> afterLowering = {};
  /// Sees LLVM IR before optimization (after the steps the options above ask for).
  llvm::function_ref<void(llvm::Module &)> afterTranslation = {};
  /// Receives the text of every phase up to stopAfter (but the object), as
  /// it is produced; costs printing each.
  llvm::function_ref<void(Phase, const std::string &)> observePhase = {};
  /// MLIR's pass instrumentation, as mlir-opt's flags: the IR after every
  /// pass (to stderr) and the time each pass took (a report on stderr).
  bool printIRAfterAll = false;
  bool timing = false;
  /// When a pass fails or crashes, the IR it started from and the pipeline
  /// of its stage are written to this file (MLIR's crash reproducer; run it
  /// again with `ember-opt <file> --run-reproducer`). A crash is then
  /// recovered from and reported as a failure.
  std::string crashReproducerPath;
};

/// Compiles `module` (changed in place up to the LLVM dialect) and sets `out`
/// to the output of options.stopAfter: IR or assembly text, or the object
/// file's bytes. On failure the diagnostics went to the context's handler
/// and `error` says what else failed.
llvm::LogicalResult compile(mlir::ModuleOp module, const CompileOptions &options,
                            std::string &out, std::string &error);

/// Readies a module read from a file for compile(), as ember-compile does:
/// every public function with a body gets an entry point (C interface), and
/// one with `?` dims in its arguments its DimPlan (planDynamicDims). Fails,
/// with an error at the op, where a plan cannot be made. Returns how many
/// functions are exported.
llvm::FailureOr<int> markEntryPoints(mlir::ModuleOp module);

/// Runs ember-plan-dynamic-dims on `module` (ember ops): every function with
/// `?` dims in its arguments gets its plan, read by dimPlanOf. Fails, with an
/// error at the function naming the op, where a `?` dim meets an op whose
/// sizes cannot be followed.
llvm::LogicalResult planDynamicDims(mlir::ModuleOp module);
/// The plan planDynamicDims wrote on `function` (empty for static shapes).
DimPlan dimPlanOf(mlir::Operation *function);

/// On a module in the LLVM dialect: every function `f` that has an entry
/// point `ember_entry_f` (and its C wrapper `_mlir_ciface_f`) becomes
/// internal and always inlined, so the object exports the entry points alone
/// and LLVM optimizes one function, not three (callgrind, six elementwise
/// JIT compiles: 832M instructions, 490M internal, 442M always inlined).
/// `noAlias`: the caller promises that no buffer argument aliases another
/// (the JIT's outputs are fresh), so LLVM vectorizes without overlap checks.
void keepOnlyEntryPoints(mlir::ModuleOp lowered, bool noAlias);

/// The width of the vector registers of the CPU `subtarget` describes, which
/// blocked matmuls are sized to: 512 with AVX-512, 256 with AVX, else 128
/// (NEON; SVE widths are not fixed).
unsigned vectorBitsOf(const llvm::MCSubtargetInfo &subtarget);
/// What bfloat16 matmuls multiply on for `subtarget` (see
/// stagePipelineText), at most `limit`: "amx" with amx-tile and amx-bf16
/// (Sapphire Rapids and later), else "avx512bf16" with avx512bf16 (Cooper
/// Lake, Zen 4), else "none".
std::string bf16InstructionsOf(const llvm::MCSubtargetInfo &subtarget,
                               llvm::StringRef limit = "amx");
/// Whether `name` is one of "amx", "avx512bf16", "none".
bool isBF16Instructions(llvm::StringRef name);
/// Whether LLVM's `target` knows the CPU `cpu` for `triple` (asked of the
/// target's default subtarget: one made for an unknown CPU prints LLVM's own
/// "not a recognized processor" warning first).
bool knowsCpu(const llvm::Target &target, const llvm::Triple &triple, llvm::StringRef cpu);

/// Calls `body` on every loop of `module`'s functions, outer loops first.
void forEachLoop(llvm::Module &module, llvm::function_ref<void(llvm::Loop &)> body);
/// Adds `property` (`!{!"llvm.loop.unroll.disable"}`, say) to `loop`'s loop
/// metadata, keeping the properties it has.
void addLoopProperty(llvm::Loop &loop, llvm::MDNode *property);

/// Writes `pieces` to `path` whole or not at all through Support's writer
/// (support::writeFileWhole: a unique temporary name, synced unless `sync`
/// is false, renamed); false with `error` set (nothing left behind) when it
/// cannot. For IR dumps, objects and the JIT's disk cache.
bool writeFileAtomically(const std::string &path, llvm::ArrayRef<llvm::StringRef> pieces,
                         std::string &error, bool sync = true);

} // namespace ember::compiler

#endif // EMBER_COMPILER_COMPILER_H
