//===- FuseElementwiseOps.cpp - elementwise fusion that keeps matmuls -----===//
//
// See the pass description (Passes.td). Upstream's linalg-fuse-elementwise-ops
// with one more condition in its control function: into a contraction (a
// matmul, generalized) only a producer that moves its one input's elements
// (a transpose, a copy). GPU code tiles a matmul whose operands are read from
// buffers, as stored or transposed; one whose operand is computed in its body
// (a broadcast seed times a tensor, `dz * relu'(z)`) runs a thread per
// element of C there.
//
//===----------------------------------------------------------------------===//

#include "ember/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ember {
#define GEN_PASS_DEF_FUSEELEMENTWISEOPSPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

/// A generic that only moves its one input's elements: its body yields the
/// input's element, read at a permutation of its loops.
bool movesElements(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 || generic->getNumResults() != 1)
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getValues().size() == 1 &&
         yield.getValues()[0] == generic.getBody()->getArgument(0) &&
         generic.getMatchingIndexingMap(generic.getDpsInputOperand(0)).isPermutation();
}

struct FuseElementwiseOpsPass : ember::impl::FuseElementwiseOpsPassBase<FuseElementwiseOpsPass> {
  using FuseElementwiseOpsPassBase::FuseElementwiseOpsPassBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    bool keepContractions = contractionsTakeMovesOnly;
    linalg::ControlFusionFn control = [keepContractions](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      return !keepContractions || !consumer || !linalg::isaContractionOpInterface(consumer) ||
             movesElements(producer);
    };
    // As upstream's pass: fusion, reshapes folded by expansion, the
    // canonicalizations and constant folding it runs with.
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
