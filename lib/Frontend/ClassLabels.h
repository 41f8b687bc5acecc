//===- ClassLabels.h - integer class labels, checked ------------*- C++ -*-===//
//
// Sparse cross-entropies (nn::sparse_softmax_cross_entropy_with_logits and
// losses::SparseCategoricalCrossentropy) read integer labels of classes.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_FRONTEND_CLASSLABELS_H
#define EMBER_LIB_FRONTEND_CLASSLABELS_H

#include "ember/Frontend/Tensor.h"

#include <string_view>

namespace ember::detail {

/// `labels` for `scores` [..., classes] (logits or probabilities): int32 or
/// int64 of the scores' shape without the last axis, each in [0, classes),
/// else an OpError of `what` naming the caller's line -- eagerly now, traced
/// when the compiled code runs (the result then reads them through a
/// checked gather, so use it rather than `labels`).
Tensor checkedClassLabels(std::string_view what, const Tensor &labels, const Tensor &scores,
                          SourceLoc loc);

/// `labels` [..., 1] beside `scores` of the same rank as labels [...], as
/// Keras's sparse losses and metrics squeeze them; others as they are.
Tensor squeezedClassLabels(const Tensor &labels, const Tensor &scores, SourceLoc loc);

/// Throws an OpError of `what` unless `labels` has the shape of `scores`
/// without its last axis (`scoresName` says what the scores are).
void checkClassLabelShape(std::string_view what, std::string_view scoresName,
                          const Tensor &labels, const Tensor &scores, SourceLoc loc);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_CLASSLABELS_H
