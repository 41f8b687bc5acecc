//===- ApproximateMath.cpp - vectorizable float32 transcendentals ---------===//
//
// libm's expf/logf/tanhf are calls per element, which keep loops scalar
// (tanhf costs about 30 ns an element here). MLIR's polynomial
// approximations are plain arithmetic: LLVM vectorizes the loops around them.
//
//===----------------------------------------------------------------------===//

#include "ember/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::ember {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
bool isApproximated(StringRef name) {
  name.consume_front("math.");
  return llvm::StringSwitch<bool>(name)
      .Cases({"exp", "expm1", "log", "log1p", "log2", "tanh"}, true)
      .Default(false);
}

struct ApproximateMathPass : ember::impl::ApproximateMathPassBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
