//===- NN.h - neural-network functions, as tf.nn names them ------*- C++ -*-===//
//
// What a classifier's loss needs, built from ember's ops, so each runs
// eagerly, traced (where the compiler fuses it: the exponentials into their
// sums) and differentiated like any op. Numerically stable: softmax and its
// log subtract each row's maximum first, so logits of 1000 do not overflow.
//
//   #include <cmath>
//   ember::Tensor logits = ember::Tensor({{2.f, 1.f, 0.1f}, {0.5f, 2.5f, 0.f}});
//   ember::Tensor labels = ember::Tensor({0, 1});                    // int32
//   ember::Tensor p = ember::nn::softmax(logits);                    // rows sum to 1
//   ember::Tensor y = ember::nn::one_hot(labels, 3);                 // [[1 0 0] [0 1 0]]
//   ember::Tensor loss =                                             // -log(p[i, labels[i]])
//       ember::nn::sparse_softmax_cross_entropy_with_logits(labels, logits);  // [0.417 0.197]
//   if (std::abs(loss.to_vector<float>()[0] + std::log(p.to_vector<float>()[0])) > 1e-5f)
//     throw ember::Error("cross-entropy disagrees with softmax");
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_NN_H
#define EMBER_NN_H

#include "ember/Frontend/Ops.h"

#include <array>
#include <string_view>

namespace ember::nn {

/// 2-D convolution, tf.nn.conv2d: `input` [N, H, W, C] (NHWC), `filters`
/// [KH, KW, C, F] (HWIO), floats of one dtype -> [N, OH, OW, F]. `padding`
/// "VALID" (none) or "SAME" (OH = ceil(H / stride), the padding split as
/// TensorFlow splits it, the odd one at the bottom/right); `dilations`
/// spread the filter's taps.
Tensor conv2d(const Tensor &input, const Tensor &filters, std::array<int64_t, 2> strides = {1, 1},
              std::string_view padding = "VALID", std::array<int64_t, 2> dilations = {1, 1},
              EMBER_LOC);

/// The same with explicit padding {top, bottom, left, right}.
Tensor conv2d(const Tensor &input, const Tensor &filters, std::array<int64_t, 2> strides,
              std::array<int64_t, 4> padding, std::array<int64_t, 2> dilations = {1, 1},
              EMBER_LOC);

/// 2-D max pooling, tf.nn.max_pool2d: `input` [N, H, W, C] floats ->
/// [N, OH, OW, C], each the largest element of its `ksize` window, windows
/// `strides` apart; "SAME" pads (with -inf) as conv2d does. Its gradient
/// goes to each window's first largest element, as TensorFlow's.
Tensor max_pool2d(const Tensor &input, std::array<int64_t, 2> ksize,
                  std::array<int64_t, 2> strides, std::string_view padding = "VALID", EMBER_LOC);

/// 2-D average pooling, tf.nn.avg_pool2d: as max_pool2d, each result the
/// mean of its window's input elements ("SAME" padding is not counted).
Tensor avg_pool2d(const Tensor &input, std::array<int64_t, 2> ksize,
                  std::array<int64_t, 2> strides, std::string_view padding = "VALID", EMBER_LOC);

/// exp(x) / sum(exp(x)) along `axis` (the last by default), computed as
/// exp(x - max) / sum(exp(x - max)). Float tensors of rank >= 1.
Tensor softmax(const Tensor &logits, int64_t axis = -1, EMBER_LOC);

/// log(softmax(x)) along `axis`, as x - max - log(sum(exp(x - max))).
Tensor log_softmax(const Tensor &logits, int64_t axis = -1, EMBER_LOC);

/// A new last axis of `depth`: `on` where it equals the index, `off`
/// elsewhere; indices outside [0, depth) give a row of `off` (TensorFlow's
/// tf.one_hot). Indices are int32 or int64.
Tensor one_hot(const Tensor &indices, int64_t depth, DType dtype = DType::Float32,
               double on = 1, double off = 0, EMBER_LOC);

/// The cross-entropy of softmax(logits) against integer class labels, per
/// example (TensorFlow's tf.nn.sparse_softmax_cross_entropy_with_logits):
/// logits [..., classes] (float), labels [...] (int32 or int64), result
/// [...] = -log_softmax(logits)[..., label]. A label outside [0, classes)
/// raises an OpError naming 'ember.gather' and the caller's line, eagerly
/// or when traced code runs. Its gradient is softmax(logits) - one_hot(labels).
Tensor sparse_softmax_cross_entropy_with_logits(const Tensor &labels, const Tensor &logits,
                                                EMBER_LOC);

// Integer class labels, checked, for sparse losses and metrics written on
// the core (losses::SparseCategoricalCrossentropy, metrics::
// SparseCategoricalAccuracy). `what` names the caller in errors.

/// `labels` for `scores` [..., classes] (logits or probabilities): int32 or
/// int64 of the scores' shape without the last axis, each in [0, classes),
/// else an OpError of `what` naming the caller's line -- eagerly now, traced
/// when the compiled code runs (the result then reads them through a
/// checked gather, so use it rather than `labels`).
Tensor checked_class_labels(std::string_view what, const Tensor &labels, const Tensor &scores,
                            EMBER_LOC);

/// `labels` [..., 1] beside `scores` of the same rank as labels [...], as
/// Keras's sparse losses and metrics squeeze them; others as they are.
Tensor squeezed_class_labels(const Tensor &labels, const Tensor &scores, EMBER_LOC);

/// Throws an OpError of `what` unless `labels` has the shape of `scores`
/// without its last axis (`scores_name` says what the scores are).
void check_class_label_shape(std::string_view what, std::string_view scores_name,
                             const Tensor &labels, const Tensor &scores, EMBER_LOC);

} // namespace ember::nn

#endif // EMBER_NN_H
