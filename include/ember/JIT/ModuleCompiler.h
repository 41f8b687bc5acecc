//===- ModuleCompiler.h - module to JIT-compiled code ------------*- C++ -*-===//
#ifndef EMBER_JIT_MODULECOMPILER_H
#define EMBER_JIT_MODULECOMPILER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/LogicalResult.h"

#include <memory>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace ember::jit {

/// The registry every compile context uses: ember plus the upstream dialects,
/// extensions and LLVM IR translations the pipelines need.
const mlir::DialectRegistry &compilerRegistry();

/// Runs ember-lower-to-llvm on `module` and JIT-compiles it for the host CPU
/// (its name and features, LLVM O3). Returns null and fills `error` with the
/// diagnostics on failure. Must run while the caller holds a diagnostic handler
/// on the module's context that records errors into `error`.
/// `afterLowering`, when given, sees the module in the LLVM dialect before it
/// is translated (to add facts only the caller knows, such as noalias).
/// `observeStage`, when given, receives the text of every stage: "optimized",
/// "linalg", "llvm" (MLIR's LLVM dialect) and "llvm-ir" (optimized LLVM IR).
using StageObserver = llvm::function_ref<void(llvm::StringRef stage, const std::string &text)>;
std::unique_ptr<mlir::ExecutionEngine>
compileModule(mlir::ModuleOp module, std::string &error,
              llvm::function_ref<void(mlir::ModuleOp)> afterLowering = {},
              StageObserver observeStage = {});

} // namespace ember::jit

#endif // EMBER_JIT_MODULECOMPILER_H
