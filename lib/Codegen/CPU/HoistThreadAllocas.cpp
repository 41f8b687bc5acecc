//===- HoistThreadAllocas.cpp - stack buffers once per OpenMP thread -------===//
//
// A buffer that a parallel loop's iterations each need for themselves (a
// blocked matmul's packed panel of B, small enough for the stack) is an
// alloca in the loop body: buffer-loop-hoisting cannot take it out of a
// parallel loop, whose iterations may run at once. convert-scf-to-openmp
// wraps such a body in a memref.alloca_scope, which then stays: its one
// block cannot hold the branches convert-scf-to-cf makes of the loops
// inside it (verification failed: a traced 200x32 @ 32x200 matmul did not
// compile), and a stack save and restore per iteration would cost besides.
// The alloca goes to the start of the enclosing omp.parallel region instead,
// which every thread of the team runs once: each thread gets its own buffer
// and reuses it for all its iterations, as an iteration's buffer starts with
// undefined contents either way.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlir::ember {
#define GEN_PASS_DEF_HOISTTHREADALLOCASPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
struct HoistThreadAllocasPass : ember::impl::HoistThreadAllocasPassBase<HoistThreadAllocasPass> {
  void runOnOperation() override {
    SmallVector<std::pair<memref::AllocaOp, omp::ParallelOp>> allocas;
    getOperation().walk([&](omp::LoopNestOp nest) {
      auto team = nest->getParentOfType<omp::ParallelOp>();
      if (!team)
        return;
      // Allocas of the loop body itself or of the alloca scope that wraps
      // it, of static shape: one per iteration, none live across iterations.
      // (Allocas in loops nested deeper are left to buffer-loop-hoisting.)
      auto collect = [&](Block &block) {
        for (auto alloca : block.getOps<memref::AllocaOp>())
          if (alloca->getNumOperands() == 0)
            allocas.push_back({alloca, team});
      };
      for (Block &block : nest.getRegion()) {
        collect(block);
        for (auto scope : block.getOps<memref::AllocaScopeOp>())
          for (Block &inner : scope.getBodyRegion())
            collect(inner);
      }
    });
    for (auto [alloca, team] : allocas)
      alloca->moveBefore(&team.getRegion().front(), team.getRegion().front().begin());
  }
};
} // namespace
