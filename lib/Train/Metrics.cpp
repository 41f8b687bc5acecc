//===- Metrics.cpp - metrics objects ----------------------------------------===//

#include "ember/Train/Metrics.h"

#include "ember/Frontend/NN.h"

using namespace ember;
using namespace ember::metrics;

static Tensor f64(double value) { return Tensor(value, DType::Float64); }

Mean::Mean(std::string name)
    : name_(std::move(name)), total_(f64(0), name_ + "/total"), count_(f64(0), name_ + "/count") {}

void Mean::update_state(const Tensor &values, SourceLoc loc) {
  total_.assign_add(reduce_sum(cast(values, DType::Float64, loc), {}, false, loc), loc);
  // A None dim (a batch traced with an input signature): the count is
  // read when the function runs.
  Tensor count = values.shape().is_fully_defined()
                     ? f64(static_cast<double>(values.numel()))
                     : cast(reduce_prod(shape(values, loc), {}, false, loc), DType::Float64, loc);
  count_.assign_add(count, loc);
}

void Mean::update_state(double value, SourceLoc loc) { update_state(f64(value), loc); }

Tensor Mean::result() const {
  // 0 / 0 would be NaN: before any value the mean is 0, as Keras's.
  Tensor count = count_.value();
  return where(count > f64(0), total_.value() / maximum(count, f64(1)), f64(0));
}

void Mean::reset_state() {
  total_.assign(f64(0));
  count_.assign(f64(0));
}

SparseCategoricalAccuracy::SparseCategoricalAccuracy(std::string name) : mean_(std::move(name)) {}

void SparseCategoricalAccuracy::update_state(const Tensor &y_true, const Tensor &y_pred,
                                             SourceLoc loc) {
  constexpr std::string_view kWhat = "SparseCategoricalAccuracy";
  if (y_pred.rank() < 1)
    throw_op_error(kWhat, "needs predictions with a class axis, got " + describe(y_pred),
                         loc);
  // Labels [batch, 1] are labels [batch], as Keras squeezes them (compared
  // as they are, they broadcast against every prediction).
  Tensor labels = nn::squeezed_class_labels(y_true, y_pred, loc);
  nn::check_class_label_shape(kWhat, "predictions", labels, y_pred, loc);
  labels = cast(labels, DType::Int64, loc);
  Tensor predicted = argmax(y_pred, -1, false, loc);
  mean_.update_state(cast(equal(predicted, labels, loc), DType::Float64, loc), loc);
}
