//===- DynamicResultsInOutParams.cpp - write dynamic results in place ------===//
//
// buffer-results-to-out-params replaces a statically shaped result buffer by
// the caller's (hoist-static-allocs), but a dynamically shaped one stays a
// fresh allocation that is copied into the caller's buffer at the end and
// never freed: a leak and a second pass over the result on every call. The
// caller allocates each result buffer with the result's own sizes (ember's
// calling convention), so the allocation can be the caller's buffer itself.
//
//===----------------------------------------------------------------------===//

#include "RowMajorView.h"

#include "ember/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::ember {
#define GEN_PASS_DEF_DYNAMICRESULTSINOUTPARAMSPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

struct DynamicResultsInOutParamsPass
    : ember::impl::DynamicResultsInOutParamsPassBase<DynamicResultsInOutParamsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &entry = function.getBody().front();
    SmallVector<memref::CopyOp> copies;
    for (Operation &op : entry)
      if (auto copy = dyn_cast<memref::CopyOp>(op))
        copies.push_back(copy);
    for (memref::CopyOp copy : copies) {
      // `copy %view, %out` just before the return, %out an argument that
      // nothing else touches and %view a buffer made in the function's
      // body, or a reshape of one (collapse_shape/expand_shape: the same
      // elements in the same order).
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      Value source = copy.getSource();
      while (
          isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(source.getDefiningOp()))
        source = source.getDefiningOp()->getOperand(0);
      auto alloc = source.getDefiningOp<memref::AllocOp>();
      if (!out || out.getOwner() != &entry || !out.hasOneUse() || !alloc ||
          alloc->getBlock() != &entry || alloc.getType().hasStaticShape() ||
          !alloc.getType().getLayout().isIdentity() ||
          !cast<MemRefType>(out.getType()).getLayout().isIdentity() ||
          alloc.getType().getElementType() != cast<MemRefType>(out.getType()).getElementType())
        continue;
      bool last = llvm::all_of(llvm::make_range(std::next(copy->getIterator()), entry.end()),
                               [](Operation &op) { return isa<memref::CopyOp, func::ReturnOp>(op); });
      bool freed = llvm::any_of(alloc->getUsers(),
                                [](Operation *user) { return isa<memref::DeallocOp>(user); });
      if (!last || freed)
        continue;
      copy.erase();
      OpBuilder b(alloc);
      Value view = alloc.getType() == out.getType()
                       ? Value(out)
                       : ember::rowMajorView(b, alloc.getLoc(), out, alloc.getType(),
                                             alloc.getMixedSizes());
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
  }
};

} // namespace
