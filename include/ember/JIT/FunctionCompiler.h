//===- FunctionCompiler.h - compile a built function --------------*- C++ -*-===//
//
// The compile step of a traced function: what a FunctionBuilder built goes
// through ember-lower-to-llvm (or the GPU pipeline) and the JIT, and comes
// back as an entry point to call. No MLIR types (the front end includes it);
// never throws: failures are diagnostic text.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_JIT_FUNCTIONCOMPILER_H
#define EMBER_JIT_FUNCTIONCOMPILER_H

#include "ember/JIT/KernelCompiler.h"
#include "ember/Support/DimPlan.h"
#include "ember/Trace/FunctionBuilder.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ember::jit {

/// A compiled function: call `entry` with pointers to the memref descriptors of
/// the arguments followed by one per result.
struct CompiledFunction {
  emberrt_entry_fn entry = nullptr;
  std::vector<TensorSpec> results;
  double compileSeconds = 0;
  bool fromDiskCache = false;  ///< loaded, not compiled
  std::shared_ptr<void> owner; ///< keeps the compiled code alive
  /// The ops that can fault at run time, by site number (see FaultSite).
  std::vector<FaultSite> faultSites;
  /// For arguments with `?` dims: the checks and the result sizes.
  DimPlan dims;
};

/// Receives the IR of every stage: "traced" (as built), "optimized",
/// "linalg", "llvm" (MLIR's LLVM dialect) and "llvm-ir".
using StageSink = std::function<void(const std::string &stage, const std::string &text)>;

/// Who calls the compiled code. A function's caller knows its arguments
/// only: with `?` dims it gets a DimPlan (the checks to make before the call,
/// each result's sizes; CompiledFunction::dims), and its `?` sizes are split
/// among threads (CompileOptions::splitDynamicSizes). An eager kernel's
/// caller has checked the exact shapes and sized the result itself: no plan
/// (which could not say every size an eager kernel's `?` dims give, e.g. a
/// concatenation along one), and its `?` sizes stay on one thread
/// (splitting would double its compile time; its hot shapes are specialized).
enum class Caller { Function, EagerKernel };

/// Finishes `builder`'s function (returning `results`) and compiles it for
/// `target`. With EMBER_DUMP_DIR=<dir> set, every stage is also written to
/// <dir>/<name>-<hash of the traced IR>.<n>-<stage>.mlir (".ll" for LLVM IR).
/// With `differentiateWrt` (argument indices, each a float tensor), what is
/// compiled is the function's reverse-mode derivative (ember-autodiff):
/// arguments, then one cotangent per result; returning the results, then
/// the gradient with respect to each listed argument, in that order.
/// On failure returns false with `error` set.
bool compileFunction(trace::FunctionBuilder &builder, std::span<const int> results,
                     CompiledFunction &out, std::string &error, const StageSink &stages = {},
                     const std::optional<std::vector<int64_t>> &differentiateWrt = std::nullopt,
                     Target target = Target::Host, Caller caller = Caller::Function);

} // namespace ember::jit

#endif // EMBER_JIT_FUNCTIONCOMPILER_H
