//===- ParallelDimsOutermost.cpp - reductions inside parallel loops -------===//
//
// convert-linalg-to-parallel-loops keeps a generic's loop order, so a
// reduction over dimension 0 (a bias gradient: the sum of a [64, 256] batch
// over its rows) becomes a host loop of 64 iterations around a parallel
// loop: 64 kernel launches. With the parallel dimensions first it is one
// parallel loop around the reduction, which ember-map-to-gpu-kernels maps
// onto blocks.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::ember {
#define GEN_PASS_DEF_PARALLELDIMSOUTERMOSTPASS
#include "ember/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
struct ParallelDimsOutermostPass
    : ember::impl::ParallelDimsOutermostPassBase<ParallelDimsOutermostPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp generic) { generics.push_back(generic); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp generic : generics) {
      // Parallel dimensions first, each group in its order.
      SmallVector<unsigned> order;
      for (auto [d, iterator] : llvm::enumerate(generic.getIteratorTypesArray()))
        if (iterator == utils::IteratorType::parallel)
          order.push_back(d);
      for (auto [d, iterator] : llvm::enumerate(generic.getIteratorTypesArray()))
        if (iterator != utils::IteratorType::parallel)
          order.push_back(d);
      if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
        continue;
      rewriter.setInsertionPoint(generic);
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order)))
        return signalPassFailure();
    }
  }
};
} // namespace
