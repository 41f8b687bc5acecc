//===- Losses.cpp - loss objects --------------------------------------------===//

#include "ember/Train/Losses.h"

#include "ember/Frontend/NN.h"


using namespace ember;
using namespace ember::losses;

/// Losses of 16-bit values are computed in float32, as Keras computes them
/// under its mixed precision policies (a loss object's dtype is float32).
static Tensor lossInput(const Tensor &x, const SourceLoc &loc) {
  if (isHalfPrecision(x.dtype()))
    return cast(x, DType::Float32, loc);
  return x;
}

Tensor SparseCategoricalCrossentropy::operator()(const Tensor &y_true, const Tensor &logitsOrP,
                                                 SourceLoc loc) const {
  Tensor y_pred = lossInput(logitsOrP, loc);
  Tensor labels = nn::squeezed_class_labels(y_true, y_pred, loc);
  if (fromLogits_)
    return reduce_mean(nn::sparse_softmax_cross_entropy_with_logits(labels, y_pred, loc), {},
                       false, loc);
  if (!isFloatingPoint(y_pred.dtype()))
    throw_op_error("SparseCategoricalCrossentropy",
                         "needs float probabilities, got " + describe(y_pred), loc);
  labels = nn::checked_class_labels("SparseCategoricalCrossentropy", labels, y_pred, loc);
  // Keras clips probabilities away from 0 and 1 before the log.
  double eps = 1e-7;
  Tensor p = minimum(maximum(y_pred, Tensor(eps, y_pred.dtype()), loc),
                     Tensor(1 - eps, y_pred.dtype()), loc);
  int64_t classes = y_pred.shape()[y_pred.shape().rank() - 1];
  Tensor picked = reduce_sum(nn::one_hot(labels, classes, y_pred.dtype(), 1, 0, loc) * log(p, loc),
                             {-1}, false, loc);
  return neg(reduce_mean(picked, {}, false, loc), loc);
}

Tensor MeanSquaredError::operator()(const Tensor &y_true, const Tensor &y_pred,
                                    SourceLoc loc) const {
  return reduce_mean(square(sub(lossInput(y_true, loc), lossInput(y_pred, loc), loc), loc), {},
                     false, loc);
}
