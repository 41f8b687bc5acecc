//===- FunctionCompiler.h - the JIT's compile driver -------------*- C++ -*-===//
#ifndef EMBER_LIB_JIT_FUNCTIONCOMPILER_H
#define EMBER_LIB_JIT_FUNCTIONCOMPILER_H

#include "ember/JIT/FunctionBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace ember::jit {

/// Compiles `function`, the finished and verified function of `module`
/// traced as `name`, for `target` (see FunctionBuilder::compile: stages,
/// differentiateWrt). Errors go to the context's diagnostics, which the
/// caller collects, or to `error`.
bool compileTracedFunction(mlir::ModuleOp module, mlir::func::FuncOp function,
                           const std::string &name, CompiledFunction &out, std::string &error,
                           const FunctionBuilder::StageSink &stages,
                           const std::optional<std::vector<int64_t>> &differentiateWrt,
                           Target target);

} // namespace ember::jit

#endif // EMBER_LIB_JIT_FUNCTIONCOMPILER_H
