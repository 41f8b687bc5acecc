//===- FinishedFunction.h - a built function, for the compile step -*- C++ -*-===//
//
// What the JIT's compile step (jit::compileFunction) sees of a
// FunctionBuilder: the MLIR module it built. Not for the front end, which
// sees MLIR-free headers only.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_TRACE_FINISHEDFUNCTION_H
#define EMBER_TRACE_FINISHEDFUNCTION_H

#include "ember/Trace/FunctionBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <span>
#include <string>

namespace ember::trace {

/// Every dialect, extension and LLVM IR translation a built function meets
/// on its way to machine code: the registry of the builders' contexts.
const mlir::DialectRegistry &dialectRegistry();

/// The context `builder`'s IR lives in (each thread has its own), where the
/// compile step collects diagnostics.
mlir::MLIRContext &contextOf(FunctionBuilder &builder);

struct FinishedFunction {
  mlir::ModuleOp module;
  mlir::func::FuncOp function; ///< the built function, in `module`
  std::string name;            ///< as the builder was named
};

/// Finishes `builder`'s function, returning the values `results`; false
/// (nothing changed) when an id is not a value in scope.
bool finish(FunctionBuilder &builder, std::span<const int> results, FinishedFunction &out);

} // namespace ember::trace

#endif // EMBER_TRACE_FINISHEDFUNCTION_H
