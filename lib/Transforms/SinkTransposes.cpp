//===- SinkTransposes.cpp - transposes moved past elementwise ops ---------===//
//
// An elementwise op of transposed operands is the transpose of the op on
// the operands as they were: op(T(a), T(b)) = T(op(a, b)). Moving the
// transpose below the op lets it meet the next transpose back (which then
// folds away). Imported models need it: the ONNX importer runs
// convolutions channels-last between transposes from and back to the
// graph's NCHW, so that a residual block's additions and activations in
// NCHW read and wrote every activation through strided transposed loops
// (ResNet-18: 4 copies per block); sunk, the network stays channels-last
// from its input's transpose to its output's.
//
//===----------------------------------------------------------------------===//

#include "ember/Transforms/Passes.h"

#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ember {
#define GEN_PASS_DEF_SINKTRANSPOSESPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;
using namespace mlir::ember;

namespace {

/// `value` as a splat constant, or null.
DenseElementsAttr splatConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  auto values = constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : DenseElementsAttr();
  return values && values.isSplat() ? values : DenseElementsAttr();
}

/// op(T(a), T(b), splat) -> T(op(a, b, splat')) for an elementwise op whose
/// operands are transposes by one permutation (in the op's block) or splat
/// constants, when at least one of those transposes has no other use (so
/// that no more transposes run than before).
struct SinkTransposeBelowElementwise : RewritePattern {
  explicit SinkTransposeBelowElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!op->hasTrait<ember::Elementwise>() || op->getNumResults() != 1 || op->getNumRegions() != 0)
      return failure();
    ArrayRef<int64_t> permutation;
    Value source; // a transposed operand as it was (all have its shape)
    bool freed = false;
    for (Value operand : op->getOperands()) {
      if (splatConstant(operand))
        continue;
      auto transpose = operand.getDefiningOp<TransposeOp>();
      if (!transpose || (!permutation.empty() && transpose.getPermutation() != permutation))
        return failure();
      // Not into a loop's body from outside it (it would then run each step).
      if (transpose->getBlock() != op->getBlock())
        return failure();
      permutation = transpose.getPermutation();
      source = transpose.getOperand();
      freed =
          freed || llvm::all_of(transpose->getUsers(), [&](Operation *user) { return user == op; });
    }
    if (permutation.empty() || !freed)
      return failure();
    // The shape as it was: the transposed operands' before their transposes.
    auto untransposed = [&](Type type) {
      return RankedTensorType::get(cast<RankedTensorType>(source.getType()).getShape(),
                                   cast<RankedTensorType>(type).getElementType());
    };
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (DenseElementsAttr splat = splatConstant(operand)) {
        operands.push_back(
            ConstantOp::create(rewriter, op->getLoc(),
                               DenseElementsAttr::get(untransposed(operand.getType()),
                                                      splat.getSplatValue<Attribute>())));
        continue;
      }
      operands.push_back(operand.getDefiningOp<TransposeOp>().getOperand());
    }
    OperationState state(op->getLoc(), op->getName(), operands,
                         {untransposed(op->getResult(0).getType())}, op->getAttrs());
    Operation *moved = rewriter.create(state);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, moved->getResult(0), permutation);
    return success();
  }
};

struct SinkTransposesPass : ember::impl::SinkTransposesPassBase<SinkTransposesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkTransposeBelowElementwise>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
