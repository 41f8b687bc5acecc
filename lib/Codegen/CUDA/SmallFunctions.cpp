//===- SmallFunctions.cpp - functions small enough for one block ----------===//

#include "SmallFunctions.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

bool mlir::ember::hasSmallStaticBuffers(func::FuncOp function, int64_t maxElements) {
  auto small = [&](Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    return !memref || (memref.hasStaticShape() && memref.getNumElements() <= maxElements);
  };
  if (!llvm::all_of(function.getArgumentTypes(), small))
    return false;
  WalkResult result = function.walk([&](Operation *op) {
    if (!llvm::all_of(op->getResultTypes(), small))
      return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!llvm::all_of(block.getArgumentTypes(), small))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

bool mlir::ember::hasControlFlowAroundWork(func::FuncOp function) {
  WalkResult result = function.walk([&](Operation *op) {
    if (!isa<scf::ForOp, scf::WhileOp, scf::IfOp>(op))
      return WalkResult::advance();
    WalkResult work = op->walk([](Operation *nested) {
      return isa<linalg::LinalgOp, scf::ParallelOp, memref::CopyOp>(nested)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    return work.wasInterrupted() ? WalkResult::interrupt() : WalkResult::advance();
  });
  return result.wasInterrupted();
}

int64_t mlir::ember::countWork(func::FuncOp function) {
  int64_t count = 0;
  function.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isa<linalg::LinalgOp, scf::ParallelOp, memref::CopyOp>(op))
      return WalkResult::advance();
    ++count;
    return WalkResult::skip();
  });
  return count;
}

bool mlir::ember::worthOneKernel(func::FuncOp function) {
  return hasControlFlowAroundWork(function) || countWork(function) >= 2;
}
