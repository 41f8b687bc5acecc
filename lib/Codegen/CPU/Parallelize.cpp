//===- Parallelize.cpp - loops with enough work as parallel loops ----------===//
//
// On buffers, before loops are lowered: the outermost parallel dimension of
// every linalg op with enough work is tiled into an scf.parallel of row
// blocks, and a blocked matmul's loop over panels (or over row blocks) becomes
// an scf.parallel. convert-scf-to-openmp later makes them OpenMP work-sharing
// loops, run by a team whose size the runtime gives (ember-omp-num-threads).
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"
#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::ember {
#define GEN_PASS_DEF_PARALLELIZEPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

/// Whether `op` sits in a loop that already runs in parallel.
bool insideParallelLoop(Operation *op) { return op->getParentOfType<scf::ParallelOp>() != nullptr; }

/// Whether `loop` runs at least twice, as far as its constant bounds tell.
bool runsTwice(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  return trips && trips->sge(2);
}

/// `loop` (no results) as an scf.parallel over the same range.
void makeParallel(RewriterBase &rewriter, scf::ForOp loop) {
  rewriter.setInsertionPoint(loop);
  auto parallel = scf::ParallelOp::create(rewriter, loop.getLoc(), loop.getLowerBound(),
                                          loop.getUpperBound(), loop.getStep());
  for (NamedAttribute attribute : loop->getDiscardableAttrs())
    parallel->setAttr(attribute.getName(), attribute.getValue());
  Block *body = parallel.getBody();
  // The for body without its scf.yield, before the parallel body's reduce.
  rewriter.eraseOp(loop.getBody()->getTerminator());
  rewriter.inlineBlockBefore(loop.getBody(), body->getTerminator(), body->getArguments());
  rewriter.eraseOp(loop);
}

struct ParallelizePass : ember::impl::ParallelizePassBase<ParallelizePass> {
  using ParallelizePassBase::ParallelizePassBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Blocked matmuls: their panels when there are several (each writes its
    // own columns of C and packs its own panel of B), else their row blocks.
    // With splitDynamicSizes, a matmul with `?` sizes (its work unknown, 0)
    // is shared too: its panels when there are several, else its row
    // blocks, whose number the code knows when it runs (one block runs on
    // the calling thread: the OpenMP region's `if`, ember-omp-num-threads).
    SmallVector<scf::ForOp> matmulLoops;
    getOperation().walk([&](scf::ForOp rows) {
      auto work = rows->getAttrOfType<IntegerAttr>("ember.blocked_matmul_rows");
      if (!work || rows.getNumResults() != 0 || insideParallelLoop(rows))
        return;
      bool unknownWork = work.getInt() == 0;
      if ((unknownWork && !splitDynamicSizes) || (!unknownWork && work.getInt() < minMatmulWork))
        return;
      auto panels = dyn_cast<scf::ForOp>(rows->getParentOp());
      bool byPanels = panels && panels->hasAttr("ember.blocked_matmul") &&
                      panels.getNumResults() == 0 && runsTwice(panels);
      scf::ForOp loop = byPanels ? panels : rows;
      if (runsTwice(loop) || (unknownWork && !loop.getStaticTripCount()))
        matmulLoops.push_back(loop);
    });
    for (scf::ForOp loop : matmulLoops)
      makeParallel(rewriter, loop);

    // Linalg ops (elementwise bodies, reductions along rows, small matmuls)
    // split along their outermost dimension when it is parallel.
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && !insideParallelLoop(op) && worthSplitting(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      if (op.hasDynamicShape()) {
        splitWhenLargeEnough(rewriter, op);
        continue;
      }
      int64_t rows = op.getStaticLoopRanges().front();
      int64_t blocks = std::min<int64_t>(rows, maxBlocks);
      SmallVector<int64_t> tileSizes(op.getNumLoops(), 0);
      tileSizes[0] = (rows + blocks - 1) / blocks;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(
          rewriter, op,
          linalg::LinalgTilingOptions().setTileSizes(tileSizes).setLoopType(
              linalg::LinalgTilingLoopType::ParallelLoops));
      if (succeeded(tiled))
        rewriter.eraseOp(op);
    }
  }

  /// A parallel outermost dimension of at least two, and at least
  /// minElements iterations (for dynamic sizes: possibly, which the code
  /// then checks). (Ops that report faults split too:
  /// ember-lower-fault-reports gives each thread its own flag.)
  bool worthSplitting(linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || ranges.front() == 0 || ranges.front() == 1 ||
        op.getIteratorTypesArray().front() != utils::IteratorType::parallel)
      return false;
    int64_t iterations = 1;
    for (int64_t range : ranges) {
      if (ShapedType::isDynamic(range))
        return splitDynamicSizes; // then decided when the code runs
      iterations *= range;
    }
    return iterations >= minElements;
  }

  /// A shape-generic op: its rows split into at most maxBlocks parallel
  /// blocks of ceil(rows / blocks) when its sizes turn out large enough (at
  /// least two rows and minElements iterations), else into one block of all
  /// rows, which runs serially without starting a team (the OpenMP region's
  /// `if`, ember-omp-num-threads): one copy of the loop either way.
  void splitWhenLargeEnough(IRRewriter &rewriter, linalg::LinalgOp op) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    SmallVector<Range> ranges = op.createLoopRanges(rewriter, loc);
    auto index = [&](int64_t value) { return arith::ConstantIndexOp::create(rewriter, loc, value); };
    Value rows = getValueOrCreateConstantIndexOp(rewriter, loc, ranges.front().size);
    Value iterations = index(1);
    for (const Range &range : ranges)
      iterations = arith::MulIOp::create(
          rewriter, loc, iterations, getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
    Value enough = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, rows, index(2)),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, iterations,
                              index(minElements)));
    // Neither a divisor nor a step may be 0 (rows are 0 in an empty batch):
    // the division runs whichever tile is selected.
    Value whole = arith::MaxUIOp::create(rewriter, loc, rows, index(1));
    Value blocks = arith::MinUIOp::create(rewriter, loc, whole, index(maxBlocks));
    Value split = arith::CeilDivUIOp::create(rewriter, loc, rows, blocks);
    Value tile = arith::SelectOp::create(rewriter, loc, enough, split, whole);
    linalg::LinalgTilingOptions options;
    options.setLoopType(linalg::LinalgTilingLoopType::ParallelLoops);
    options.setTileSizeComputationFunction([&](OpBuilder &b, Operation *) {
      SmallVector<Value> sizes(op.getNumLoops(), arith::ConstantIndexOp::create(b, loc, 0));
      sizes[0] = tile;
      return sizes;
    });
    if (succeeded(linalg::tileLinalgOp(rewriter, op, options)))
      rewriter.eraseOp(op);
  }
};

} // namespace
