//===- SplitReductions.cpp - full reductions as per-block partials ---------===//
//
// A reduction of a whole tensor to one value has no parallel dimension for
// ember-cpu-parallelize to split. With enough elements, its reduction
// dimension is split in two (linalg's split reduction): blocks whose partial
// results are computed along a new parallel dimension, which later runs on
// several threads, then one short reduction of the partials. The blocks are
// fixed (not one per thread), so the result does not depend on the number
// of threads.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace mlir::ember {
#define GEN_PASS_DEF_SPLITREDUCTIONSPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

struct SplitReductionsPass : ember::impl::SplitReductionsPassBase<SplitReductionsPass> {
  using SplitReductionsPassBase::SplitReductionsPassBase;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isLargeFullReduction(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : reductions) {
      linalg::LinalgOp reduction = op;
      rewriter.setInsertionPoint(op);
      // Several reduction dimensions (a 2-D tensor summed whole) first become
      // one, where the operands allow it.
      int64_t loops = op.getNumLoops();
      if (loops > 1) {
        ReassociationIndices all(llvm::to_vector(llvm::seq<int64_t>(0, loops)));
        if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {all}))
          continue;
        FailureOr<linalg::CollapseResult> collapsed =
            linalg::collapseOpIterationDims(op, {all}, rewriter);
        if (failed(collapsed))
          continue;
        rewriter.replaceOp(op, collapsed->results);
        reduction = collapsed->collapsedOp;
      }
      int64_t size = reduction.getStaticLoopRanges().front();
      int64_t ratio = std::gcd(size, blocks.getValue());
      if (ratio < 2)
        continue;
      rewriter.setInsertionPoint(reduction);
      (void)linalg::splitReduction(rewriter, reduction, [&](linalg::LinalgOp) {
        linalg::SplitReductionOptions options;
        options.ratio = ratio;
        options.index = 0;
        options.innerParallel = false;
        return options;
      });
    }
  }

  /// On tensors, every loop a reduction (a scalar result), static sizes
  /// with at least minElements iterations, one result.
  bool isLargeFullReduction(linalg::GenericOp op) {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != op.getNumLoops())
      return false;
    int64_t iterations = 1;
    for (int64_t range : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return false;
      iterations *= range;
    }
    return iterations >= minElements;
  }
};

} // namespace
