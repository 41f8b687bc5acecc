//===- LowerDynamicExpandShapes.cpp - dynamic expand_shape as a view -------===//
//
// Upstream's expand-strided-metadata (MLIR 22) crashes on a memref.expand_shape
// that splits one dim into several dynamic ones (`memref<?xf32>` into
// `memref<?x?xf32>`, what a shape-generic elementwise kernel does when it
// unflattens its result). Such an expansion of a contiguous buffer is only a
// new view: a reinterpret_cast with the output sizes and their row-major
// strides, which every later pass handles.
//
//===----------------------------------------------------------------------===//

#include "RowMajorView.h"

#include "ember/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::ember {
#define GEN_PASS_DEF_LOWERDYNAMICEXPANDSHAPESPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

/// Whether one reassociation group of `expand` holds two dynamic dims or more
/// (the case upstream cannot take).
bool splitsIntoDynamicDims(memref::ExpandShapeOp expand) {
  MemRefType result = expand.getResultType();
  for (const ReassociationIndices &group : expand.getReassociationIndices())
    if (llvm::count_if(group, [&](int64_t d) { return result.isDynamicDim(d); }) > 1)
      return true;
  return false;
}

struct LowerDynamicExpandShapesPass
    : ember::impl::LowerDynamicExpandShapesPassBase<LowerDynamicExpandShapesPass> {
  void runOnOperation() override {
    SmallVector<memref::ExpandShapeOp> expands;
    getOperation().walk([&](memref::ExpandShapeOp expand) {
      // Only identity layouts on both sides: a contiguous buffer from offset
      // 0, whose view has row-major strides.
      if (splitsIntoDynamicDims(expand) && expand.getSrcType().getLayout().isIdentity() &&
          expand.getResultType().getLayout().isIdentity())
        expands.push_back(expand);
    });
    for (memref::ExpandShapeOp expand : expands) {
      OpBuilder b(expand);
      Value view = ember::rowMajorView(b, expand.getLoc(), expand.getSrc(), expand.getResultType(),
                                       expand.getMixedOutputShape());
      expand.replaceAllUsesWith(view);
      expand.erase();
    }
  }
};

} // namespace
