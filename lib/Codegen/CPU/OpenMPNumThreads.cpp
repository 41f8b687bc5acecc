//===- OpenMPNumThreads.cpp - team sizes from the runtime ------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::ember {
#define GEN_PASS_DEF_OPENMPNUMTHREADSPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
struct OpenMPNumThreadsPass : ember::impl::OpenMPNumThreadsPassBase<OpenMPNumThreadsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<omp::ParallelOp> regions;
    module.walk([&](omp::ParallelOp region) {
      if (!region.getNumThreads())
        regions.push_back(region);
    });
    if (regions.empty())
      return;
    StringRef name = "emberrt_num_threads";
    OpBuilder b(&getContext());
    Type i32 = b.getI32Type();
    if (!SymbolTable::lookupSymbolIn(module, name)) {
      b.setInsertionPointToStart(module.getBody());
      func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType({}, {i32}))
          .setPrivate();
    }
    for (omp::ParallelOp region : regions) {
      b.setInsertionPoint(region);
      Value count = func::CallOp::create(b, region.getLoc(), name, TypeRange{i32}).getResult(0);
      region.getNumThreadsMutable().assign(count);
      if (Value several = severalIterations(b, region))
        region.getIfExprMutable().assign(several);
    }
  }

  /// Whether the region's one work-sharing loop has more than one iteration,
  /// computed before the region from its bounds (null when they are
  /// constants, or the region holds something else). A shape-generic loop
  /// has one iteration when its sizes are too small to share
  /// (ember-cpu-parallelize): the region then runs on the calling thread,
  /// without starting a team.
  static Value severalIterations(OpBuilder &b, omp::ParallelOp region) {
    SmallVector<omp::LoopNestOp> nests;
    region.walk([&](omp::LoopNestOp nest) { nests.push_back(nest); });
    if (nests.size() != 1 || nests.front().getLoopLowerBounds().size() != 1)
      return {};
    omp::LoopNestOp nest = nests.front();
    Value lower = nest.getLoopLowerBounds().front(), upper = nest.getLoopUpperBounds().front(),
          step = nest.getLoopSteps().front();
    auto outside = [&](Value v) { return !region->isAncestor(v.getParentRegion()->getParentOp()); };
    auto constant = [](Value v) { return matchPattern(v, m_Constant()); };
    if (!outside(lower) || !outside(upper) || !outside(step) ||
        (constant(lower) && constant(upper) && constant(step)))
      return {};
    Location loc = region.getLoc();
    Value span = arith::SubIOp::create(b, loc, upper, lower);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, span, step);
  }
};
} // namespace
