//===- ReadOnlyArguments.cpp - callers' tensors are never written ---------===//
//
// A public function's tensor arguments are its caller's tensors, which ember
// never changes (tensors are values). One-shot bufferization takes function
// arguments as writable unless told otherwise, so an op that updates a
// tensor in place (a scatter's loop inserting into its operand) would write
// into the caller's buffer. Marked read-only, such an argument is copied
// first where it is written. Private functions (outlined matmuls that add
// into the buffer they are given) keep their writable arguments.
//
//===----------------------------------------------------------------------===//

#include "ember/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::ember {
#define GEN_PASS_DEF_READONLYARGUMENTSPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
struct ReadOnlyArgumentsPass : ember::impl::ReadOnlyArgumentsPassBase<ReadOnlyArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isPrivate() || function.isExternal())
      return;
    auto readOnly = BoolAttr::get(&getContext(), false);
    for (BlockArgument argument : function.getArguments())
      if (isa<TensorType>(argument.getType()))
        function.setArgAttr(argument.getArgNumber(),
                            bufferization::BufferizationDialect::kWritableAttrName, readOnly);
  }
};
} // namespace
