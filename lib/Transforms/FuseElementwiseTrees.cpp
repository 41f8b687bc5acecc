//===- FuseElementwiseTrees.cpp - one elementwise generic per tree ---------===//
//
// See the pass description (Passes.td). A consumer is fused with the whole
// tree of producers beneath it: the trees are found from the last op up, and
// each is rebuilt once, so the work is linear in the number of ops.
//
//===----------------------------------------------------------------------===//

#include "ember/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::ember {
#define GEN_PASS_DEF_FUSEELEMENTWISETREESPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

/// An elementwise generic: all loops parallel, one result written at the
/// identity map, its init not read by the body (its value is computed from
/// the inputs alone), tensors only.
bool isElementwise(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 1 || !op.hasPureTensorSemantics() ||
      op.getNumLoops() != op.getNumParallelLoops())
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity())
    return false;
  return op.getMatchingBlockArgument(init).use_empty();
}

/// Whether `producer` (an operand's definer) can be fused into `consumer`
/// at `operand`: elementwise, used by the consumer alone (once), over the
/// same loops, read at the element being computed.
bool fusable(linalg::GenericOp consumer, OpOperand &operand, linalg::GenericOp producer) {
  if (!producer || !isElementwise(producer) || !producer->getResult(0).hasOneUse() ||
      producer.getNumLoops() != consumer.getNumLoops() ||
      producer.getStaticLoopRanges() != consumer.getStaticLoopRanges() ||
      !consumer.getMatchingIndexingMap(&operand).isIdentity())
    return false;
  // linalg.index in either body refers to the same loops: fine.
  return producer->getBlock() == consumer->getBlock();
}

/// The value `value` stands for as an input: a reshape of another value is
/// the first identical reshape of it seen (the ops of a traced chain each
/// reshape the same argument: one input instead of thousands).
Value representative(Value value, DenseMap<std::pair<Value, Type>, Value> &reshapes) {
  Operation *op = value.getDefiningOp();
  if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
    return value;
  auto [it, inserted] = reshapes.try_emplace({op->getOperand(0), value.getType()}, value);
  if (inserted)
    return value;
  // The same source and result type: the same reassociation for these.
  Operation *first = it->second.getDefiningOp();
  return first->getAttrDictionary() == op->getAttrDictionary() &&
                 first->getPropertiesAsAttribute() == op->getPropertiesAsAttribute()
             ? it->second
             : value;
}

/// The element of a splat constant tensor operand (a scalar of the chain:
/// `t * 1.0001`), which the fused body uses directly instead of reading it.
TypedAttr splatOf(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto dense = constant ? dyn_cast<SplatElementsAttr>(constant.getValue()) : nullptr;
  return dense ? dense.getSplatValue<TypedAttr>() : nullptr;
}

struct FuseElementwiseTreesPass
    : ember::impl::FuseElementwiseTreesPassBase<FuseElementwiseTreesPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    llvm::SmallPtrSet<Operation *, 16> fused; // absorbed into a later tree
    for (linalg::GenericOp root : llvm::reverse(generics)) {
      if (fused.contains(root) || !isElementwise(root))
        continue;
      // The tree under `root`, producers before their consumers.
      SmallVector<linalg::GenericOp> tree;
      collect(root, tree, fused);
      if (tree.size() < 2)
        continue;
      rebuild(tree);
    }
  }

  /// Appends the fusable producers under `op` (depth first, producers
  /// first), then `op`.
  static void collect(linalg::GenericOp op, SmallVectorImpl<linalg::GenericOp> &tree,
                      llvm::SmallPtrSetImpl<Operation *> &fused) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto producer = input->get().getDefiningOp<linalg::GenericOp>();
      if (producer && !fused.contains(producer) && fusable(op, *input, producer)) {
        fused.insert(producer);
        collect(producer, tree, fused);
      }
    }
    tree.push_back(op);
  }

  /// One generic computing `tree`'s last op from the inputs of all of them
  /// that are not computed inside the tree (splat constants become scalars
  /// in the body: upstream folds them one at a time, copying the body each
  /// time).
  static void rebuild(ArrayRef<linalg::GenericOp> tree) {
    linalg::GenericOp root = tree.back();
    llvm::SmallPtrSet<Operation *, 16> members;
    for (linalg::GenericOp op : tree)
      members.insert(op);
    // The fused op's inputs: every operand of a member that no member
    // computes, once per (value, indexing map).
    llvm::MapVector<std::pair<Value, AffineMap>, unsigned> inputs;
    DenseMap<std::pair<Value, Type>, Value> reshapes;
    auto keyOf = [&](linalg::GenericOp op, OpOperand *input) {
      return std::make_pair(representative(input->get(), reshapes),
                            op.getMatchingIndexingMap(input));
    };
    for (linalg::GenericOp op : tree)
      for (OpOperand *input : op.getDpsInputOperands())
        if (!members.contains(input->get().getDefiningOp()) && !splatOf(input->get()))
          inputs.insert({keyOf(op, input), static_cast<unsigned>(inputs.size())});
    SmallVector<Value> inputValues;
    SmallVector<AffineMap> maps;
    for (auto &[key, index] : inputs) {
      inputValues.push_back(key.first);
      maps.push_back(key.second);
    }
    maps.push_back(root.getMatchingIndexingMap(root.getDpsInitOperand(0)));
    OpBuilder b(root);
    auto fusedOp = linalg::GenericOp::create(
        b, root.getLoc(), root->getResultTypes(), inputValues, root.getDpsInits(), maps,
        root.getIteratorTypesArray(),
        [&](OpBuilder &nb, Location loc, ValueRange arguments) {
          // Each member's body, its inputs mapped to the fused block's
          // arguments or to the values earlier members yielded.
          DenseMap<Operation *, Value> yielded;
          IRMapping mapping;
          for (linalg::GenericOp op : tree) {
            Block &body = op.getRegion().front();
            for (OpOperand *input : op.getDpsInputOperands()) {
              BlockArgument argument = op.getMatchingBlockArgument(input);
              Operation *producer = input->get().getDefiningOp();
              if (producer && members.contains(producer))
                mapping.map(argument, yielded.lookup(producer));
              else if (TypedAttr element = splatOf(input->get()))
                mapping.map(argument, arith::ConstantOp::create(nb, loc, element));
              else
                mapping.map(argument, arguments[inputs.lookup(keyOf(op, input))]);
            }
            for (Operation &inner : body.without_terminator())
              nb.clone(inner, mapping);
            auto yield = cast<linalg::YieldOp>(body.getTerminator());
            yielded[op] = mapping.lookupOrDefault(yield.getValues()[0]);
          }
          linalg::YieldOp::create(nb, loc, yielded.lookup(root));
        });
    fusedOp->setDiscardableAttrs(root->getDiscardableAttrDictionary());
    root->replaceAllUsesWith(fusedOp->getResults());
    for (linalg::GenericOp op : llvm::reverse(tree))
      op->erase();
  }
};

} // namespace
