//===- Losses.h - loss objects, as Keras's -------------------------*- C++ -*-===//
//
// A loss object computes one float scalar from labels and predictions: the
// per-example losses averaged over the batch (Keras's default reduction,
// "sum_over_batch_size"). Built from ember's ops: eager, traced and
// differentiable. float16 and bfloat16 inputs are cast to float32 first, so
// the loss is float32 (Keras's loss dtype under mixed precision).
//
//   ember::losses::SparseCategoricalCrossentropy loss_fn(/*from_logits=*/true);
//   ember::Tensor logits = ember::Tensor({{2.f, 1.f, 0.1f}, {0.5f, 2.5f, 0.f}});
//   ember::Tensor loss = loss_fn(ember::Tensor({0, 1}), logits);  // 0.307 (the mean of 0.417 and 0.197)
//   ember::losses::MeanSquaredError mse;
//   ember::Tensor error = mse(ember::Tensor({1.f, 2.f}), ember::Tensor({1.f, 4.f}));  // 2
//   if (std::abs(error.item<float>() - 2.f) > 1e-6f) throw ember::Error("MSE");
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LOSSES_H
#define EMBER_LOSSES_H

#include "ember/Frontend/Ops.h"

#include <cmath>

namespace ember::losses {

/// Cross-entropy against integer class labels: `y_true` [...] (int32 or
/// int64), `y_pred` [..., classes] logits (from_logits) or probabilities
/// (clipped to [1e-7, 1 - 1e-7] first, as Keras does).
class SparseCategoricalCrossentropy {
public:
  explicit SparseCategoricalCrossentropy(bool from_logits = false) : fromLogits_(from_logits) {}
  Tensor operator()(const Tensor &y_true, const Tensor &y_pred, EMBER_LOC) const;

private:
  bool fromLogits_;
};

/// mean((y_true - y_pred)^2) over the last axis, then over the batch.
class MeanSquaredError {
public:
  Tensor operator()(const Tensor &y_true, const Tensor &y_pred, EMBER_LOC) const;
};

} // namespace ember::losses

#endif // EMBER_LOSSES_H
