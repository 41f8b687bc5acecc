//===- ScheduleCollectives.cpp - collectives started early, awaited late --===//
//
// An ember.all_reduce lowers to a start where the op is and a wait just
// before its result's first use; whatever lies between runs while the
// collective travels. In a training step the op sits after the whole
// backward pass (the tape reduces the gradients when it has them all), so
// this pass moves each all_reduce, with the ops that only pack its operand
// (the bucket's reshapes and concatenation), up to where its operand is
// ready, and the side-effect-free ops that use its result (the bucket split
// back into gradients, an optimizer's arithmetic) down to just before their
// first use: the backward pass of the layers below then overlaps the
// reduction of the gradients above (PyTorch DDP's and Horovod's overlap).
//
//===----------------------------------------------------------------------===//

#include "ember/Dialect/Ember/IR/EmberOps.h"
#include "ember/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::ember {
#define GEN_PASS_DEF_SCHEDULECOLLECTIVESPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

/// Whether `op` may move past any op that does not define its operands.
bool movable(Operation *op) {
  return op->getNumRegions() == 0 && !op->hasTrait<OpTrait::IsTerminator>() &&
         isMemoryEffectFree(op);
}

/// The latest op of `op`'s block that defines one of its operands (null:
/// none does, they are block arguments or defined outside).
Operation *latestOperandDefinition(Operation *op) {
  Operation *latest = nullptr;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp())
      if (Operation *inBlock = op->getBlock()->findAncestorOpInBlock(*def))
        if (!latest || latest->isBeforeInBlock(inBlock))
          latest = inBlock;
  return latest;
}

/// Moves `op` up to just after `after` (to the start of its block if null).
void moveUpTo(Operation *op, Operation *after) {
  if (after)
    op->moveAfter(after);
  else
    op->moveBefore(&op->getBlock()->front());
}

/// Whether `op` packs values for a collective rather than computing them
/// (a bucket's reshapes, casts and concatenation): those move up with it.
/// Computations stay where they are, or they would move ahead of the
/// work the collective should overlap.
bool packs(Operation *op) { return isa<ember::ReshapeOp, ember::CastOp, ember::ConcatOp>(op); }

/// Moves `collective` and the packing ops that feed only it (and each
/// other) up to where their operands are ready; the collective itself never
/// passes an op with side effects (another collective, a print).
void startEarly(ember::AllReduceOp collective) {
  Operation *op = collective;
  llvm::SetVector<Operation *> feeding; // in reverse block order
  Operation *barrier = nullptr;
  for (Operation *before = op->getPrevNode(); before; before = before->getPrevNode()) {
    if (!movable(before)) {
      if (!barrier)
        barrier = before;
      continue;
    }
    bool onlyFeeds = llvm::all_of(before->getUsers(), [&](Operation *user) {
      return user == op || feeding.contains(user);
    });
    if (packs(before) && onlyFeeds)
      feeding.insert(before);
  }
  for (Operation *feeder : llvm::reverse(feeding))
    moveUpTo(feeder, latestOperandDefinition(feeder));
  Operation *after = latestOperandDefinition(op);
  if (barrier && (!after || after->isBeforeInBlock(barrier)))
    after = barrier;
  moveUpTo(op, after);
}

/// Moves the movable ops that use `collective`'s result, directly or
/// through each other, down to just before their first use.
void awaitLate(ember::AllReduceOp collective) {
  Block *block = collective->getBlock();
  llvm::SetVector<Operation *> users; // in block order
  llvm::SmallPtrSet<Value, 8> reached = {collective.getResult()};
  for (Operation *op = collective->getNextNode(); op; op = op->getNextNode()) {
    bool reaches = llvm::any_of(op->getOperands(), [&](Value v) { return reached.contains(v); });
    if (!reaches || !movable(op))
      continue;
    users.insert(op);
    reached.insert(op->result_begin(), op->result_end());
  }
  for (Operation *op : llvm::reverse(users)) {
    Operation *first = nullptr;
    for (Operation *user : op->getUsers())
      if (Operation *inBlock = block->findAncestorOpInBlock(*user))
        if (!first || inBlock->isBeforeInBlock(first))
          first = inBlock;
    if (first && first != op->getNextNode())
      op->moveBefore(first);
  }
}

struct ScheduleCollectivesPass
    : ember::impl::ScheduleCollectivesPassBase<ScheduleCollectivesPass> {
  void runOnOperation() override {
    SmallVector<ember::AllReduceOp> collectives;
    getOperation().walk([&](ember::AllReduceOp op) { collectives.push_back(op); });
    for (ember::AllReduceOp op : collectives)
      startEarly(op);
    for (ember::AllReduceOp op : collectives)
      awaitLate(op);
  }
};

} // namespace
