//===- NN.cpp - neural-network functions built from ember's ops ------------===//

#include "Dispatcher.h"
#include "OpTable.h"
#include "DeviceCopy.h"
#include "Tracer.h"

#include "ember/Frontend/GradientTape.h"
#include "ember/Frontend/NN.h"

#include <string>

using namespace ember;
using detail::BesideTensor;

namespace {


/// `axis` of `x` in [0, rank), from Python's [-rank, rank); the error names
/// `what` otherwise. Float tensors of rank >= 1 only.
int64_t classAxis(std::string_view what, const Tensor &x, int64_t axis, const SourceLoc &loc) {
  if (!isFloatingPoint(x.dtype()))
    throw_op_error(what, "needs floating-point logits, got " + describe(x), loc);
  int64_t rank = x.shape().rank();
  if (rank == 0 || axis < -rank || axis >= rank)
    throw_op_error(what, "axis " + std::to_string(axis) + " is out of range for " + describe(x),
                   loc);
  return axis < 0 ? axis + rank : axis;
}

/// x - max(x) along `axis`: the max as a constant for differentiation (its
/// gradient cancels out of softmax and log_softmax exactly).
Tensor shifted(const Tensor &x, int64_t axis, const SourceLoc &loc) {
  return sub(x, stop_gradient(reduce_max(x, {axis}, /*keepdims=*/true, loc)), loc);
}

} // namespace

Tensor nn::softmax(const Tensor &logits, int64_t axis, SourceLoc loc) {
  axis = classAxis("nn.softmax", logits, axis, loc);
  Tensor e = exp(shifted(logits, axis, loc), loc);
  return truediv(e, reduce_sum(e, {axis}, /*keepdims=*/true, loc), loc);
}

Tensor nn::log_softmax(const Tensor &logits, int64_t axis, SourceLoc loc) {
  axis = classAxis("nn.log_softmax", logits, axis, loc);
  Tensor z = shifted(logits, axis, loc);
  return sub(z, log(reduce_sum(exp(z, loc), {axis}, /*keepdims=*/true, loc), loc), loc);
}

Tensor nn::one_hot(const Tensor &indices, int64_t depth, DType dtype, double on, double off,
                   SourceLoc loc) {
  if (!isInteger(indices.dtype()))
    throw_op_error("nn.one_hot", "needs int32 or int64 indices, got " + describe(indices), loc);
  if (depth < 0)
    throw_op_error("nn.one_hot", "depth must not be negative, got " + std::to_string(depth), loc);
  std::vector<int64_t> dims(indices.shape().data(), indices.shape().data() + indices.shape().rank());
  dims.push_back(1);
  Tensor column = reshape(indices, dims, indices, loc); // (None dims: the indices' own)
  BesideTensor beside(indices);
  Tensor classes = arange(0, depth, 1, indices.dtype());
  return where(equal(column, classes, loc), full({}, on, dtype), full({}, off, dtype), loc);
}

Tensor nn::squeezed_class_labels(const Tensor &labels, const Tensor &scores, SourceLoc loc) {
  if (labels.rank() < 1 || labels.rank() != scores.rank() ||
      labels.shape()[labels.rank() - 1] != 1)
    return labels;
  std::vector<int64_t> squeezed = labels.shape().vec();
  squeezed.pop_back();
  return reshape(labels, squeezed, labels, loc);
}

void nn::check_class_label_shape(std::string_view what, std::string_view scoresName,
                                  const Tensor &labels, const Tensor &scores, SourceLoc loc) {
  const Shape &shape = scores.shape();
  bool matching = shape.rank() >= 1 && labels.shape().rank() == shape.rank() - 1;
  for (int d = 0; matching && d < labels.shape().rank(); ++d)
    matching = labels.shape()[d] == shape[d];
  if (!matching)
    throw_op_error(what,
                   "labels must have the shape of the " + std::string(scoresName) +
                       " without their last axis: got " + describe(labels) + " for " +
                       describe(scores),
                   loc);
}

Tensor nn::checked_class_labels(std::string_view what, const Tensor &labels,
                                  const Tensor &scores, SourceLoc loc) {
  if (!isInteger(labels.dtype()))
    throw_op_error(what, "needs int32 or int64 labels, got " + describe(labels), loc);
  check_class_label_shape(what, "scores", labels, scores, loc);
  int64_t classes = scores.shape()[scores.rank() - 1];
  if (classes == kNone)
    throw_op_error(
        what, "needs the class axis (the last) of the scores known, got " + describe(scores), loc);
  // A label outside [0, classes) is an error (TensorFlow raises on the CPU).
  // Eagerly it is checked here, with TensorFlow's message.
  if (executing_eagerly()) {
    for (int64_t label : labels.to_vector<int64_t>())
      if (label < 0 || label >= classes)
        throw_op_error(what,
                       "received a label value of " + std::to_string(label) +
                           " which is outside the valid range of [0, " + std::to_string(classes) +
                           ") (" + describe(scores) + ")",
                       loc);
    return labels;
  }
  // Traced, each label is read through a gather from [0, classes), whose
  // fault is raised with the caller's line when the code runs. The gather
  // wraps -classes..-1 as numpy's take does: negative labels are moved below
  // that first, so that they fault too.
  Tensor index = where(less(labels, zeros({}, labels.dtype()), loc),
                       sub(labels, full({}, classes, labels.dtype()), loc), labels, loc);
  BesideTensor beside(labels);
  return gather(arange(0, classes, 1, labels.dtype()), index, 0, loc);
}

Tensor nn::sparse_softmax_cross_entropy_with_logits(const Tensor &labels, const Tensor &logits,
                                                    SourceLoc loc) {
  constexpr std::string_view kWhat = "nn.sparse_softmax_cross_entropy_with_logits";
  int64_t axis = classAxis(kWhat, logits, -1, loc);
  int64_t classes = logits.shape()[axis];
  Tensor checked = nn::checked_class_labels(kWhat, labels, logits, loc);
  Tensor picked = mul(one_hot(checked, classes, logits.dtype(), 1, 0, loc),
                      log_softmax(logits, axis, loc), loc);
  return neg(reduce_sum(picked, {axis}, /*keepdims=*/false, loc), loc);
}

Tensor nn::conv2d(const Tensor &input, const Tensor &filters, std::array<int64_t, 2> strides,
                  std::array<int64_t, 4> padding, std::array<int64_t, 2> dilations,
                  SourceLoc loc) {
  std::vector<int64_t> words;
  detail::pushArray(words, strides);
  detail::pushArray(words, dilations);
  detail::pushArray(words, std::array<int64_t, 2>{1, 1}); // input dilations
  detail::pushArray(words, padding);
  return detail::dispatch(detail::kConv2D, words, {&input, &filters}, nullptr, loc);
}

/// TensorFlow's "SAME" padding along one axis: the output has ceil(size /
/// stride) elements; the padding they need, the odd one after.
static std::array<int64_t, 2> samePadding(int64_t size, int64_t stride, int64_t window) {
  int64_t out = (size + stride - 1) / stride;
  int64_t total = std::max<int64_t>((out - 1) * stride + window - size, 0);
  return {total / 2, total - total / 2};
}

/// The {top, bottom, left, right} padding of a "SAME" or "VALID" window
/// `window` (dilated) over `input` [N, H, W, C], for the op `what`.
static std::array<int64_t, 4> windowPadding(std::string_view what, const Tensor &input,
                                            std::array<int64_t, 2> window,
                                            std::array<int64_t, 2> strides,
                                            std::string_view padding, SourceLoc loc) {
  if (padding != "SAME" && padding != "VALID")
    throw_op_error(
        what, "padding must be \"SAME\" or \"VALID\", got \"" + std::string(padding) + "\"", loc);
  std::array<int64_t, 4> pads = {0, 0, 0, 0};
  if (padding == "SAME")
    for (int d = 0; d < 2; ++d) {
      if (strides[d] < 1 || window[d] < 1)
        break; // the op's verifier names them
      auto [before, after] = samePadding(input.shape()[1 + d], strides[d], window[d]);
      pads[2 * d] = before;
      pads[2 * d + 1] = after;
    }
  return pads;
}

Tensor nn::conv2d(const Tensor &input, const Tensor &filters, std::array<int64_t, 2> strides,
                  std::string_view padding, std::array<int64_t, 2> dilations, SourceLoc loc) {
  constexpr std::string_view kWhat = "nn.conv2d";
  if (input.shape().rank() != 4 || filters.shape().rank() != 4)
    throw_op_error(kWhat,
                   "needs an NHWC input and an HWIO filter (rank 4), got " + describe(input) +
                       " and " + describe(filters),
                   loc);
  std::array<int64_t, 2> window = {(filters.shape()[0] - 1) * dilations[0] + 1,
                                   (filters.shape()[1] - 1) * dilations[1] + 1};
  if (dilations[0] < 1 || dilations[1] < 1)
    window = {1, 1}; // the op's verifier names them
  return conv2d(input, filters, strides,
                windowPadding(kWhat, input, window, strides, padding, loc), dilations, loc);
}

static Tensor pool2d(const detail::OpDef &op, std::string_view what, const Tensor &input,
                     std::array<int64_t, 2> ksize, std::array<int64_t, 2> strides,
                     std::string_view padding, SourceLoc loc) {
  if (input.shape().rank() != 4)
    throw_op_error(what, "needs an NHWC input (rank 4), got " + describe(input), loc);
  std::vector<int64_t> words;
  detail::pushArray(words, ksize);
  detail::pushArray(words, strides);
  detail::pushArray(words, windowPadding(what, input, ksize, strides, padding, loc));
  return detail::dispatch(op, words, {&input}, nullptr, loc);
}

Tensor nn::max_pool2d(const Tensor &input, std::array<int64_t, 2> ksize,
                      std::array<int64_t, 2> strides, std::string_view padding, SourceLoc loc) {
  return pool2d(detail::kMaxPool2D, "nn.max_pool2d", input, ksize, strides, padding, loc);
}

Tensor nn::avg_pool2d(const Tensor &input, std::array<int64_t, 2> ksize,
                      std::array<int64_t, 2> strides, std::string_view padding, SourceLoc loc) {
  return pool2d(detail::kAvgPool2D, "nn.avg_pool2d", input, ksize, strides, padding, loc);
}
