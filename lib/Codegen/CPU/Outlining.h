//===- Outlining.h - ops moved into functions, identical ones shared -*- C++ -*-===//
#ifndef EMBER_LIB_CODEGEN_CPU_OUTLINING_H
#define EMBER_LIB_CODEGEN_CPU_OUTLINING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

#include <utility>

namespace mlir::ember {

/// The functions outlined so far, found again by structure: a hash of their
/// ops, then a comparison of the candidates (cheaper than printing each).
class OutlinedFunctions {
public:
  /// A function outlined before whose type and body are those of `function`
  /// (locations aside); if there is none, `function` itself, now known.
  func::FuncOp findOrAdd(func::FuncOp function);

private:
  static size_t hashOf(func::FuncOp function);
  llvm::DenseMap<size_t, SmallVector<func::FuncOp, 1>> byHash_;
};

/// Moves `op` (with its regions) into a private function `<parent><suffix>`
/// placed after `parent`, marked noinline for LLVM, and replaces it with a
/// call. Values from above become arguments, except constants and static
/// empty tensors, which are cloned in, so that ops differing only in the
/// values they capture stay
/// identical; an identical function outlined before (in `outlined`) is
/// called instead of a new one. Returns the callee and the call's operands.
std::pair<func::FuncOp, SmallVector<Value>>
outlineIntoFunction(Operation *op, func::FuncOp parent, StringRef suffix, SymbolTable &symbols,
                    OutlinedFunctions &outlined);

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CPU_OUTLINING_H
