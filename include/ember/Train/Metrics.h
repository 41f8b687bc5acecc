//===- Metrics.h - metrics objects, as Keras's ---------------------*- C++ -*-===//
//
// A metric accumulates over many batches (update_state) and reports its
// value (result) until reset (reset_state). Its state is Variables (float64
// totals), so updates inside an ember::function are part of the compiled
// step, and they are exact over an epoch of batches.
//
//   ember::metrics::Mean loss("loss");
//   loss.update_state(0.0);
//   loss.update_state(5.0);
//   double first = loss.result().item<double>();            // 2.5
//   loss.update_state(ember::Tensor({8.0, 9.0}));
//   double second = loss.result().item<double>();           // 5.5
//   loss.reset_state();
//   if (first != 2.5 || second != 5.5 || loss.result().item<double>() != 0)
//     throw ember::Error("Mean is not the mean");
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_METRICS_H
#define EMBER_METRICS_H

#include "ember/Frontend/Variable.h"

#include <string>

namespace ember::metrics {

/// The mean of every value it was given (weighted: each value `weight`
/// times, by default once).
class Mean {
public:
  explicit Mean(std::string name = "mean");
  /// Adds each element of `values` (any numeric dtype and shape).
  void update_state(const Tensor &values, EMBER_LOC);
  void update_state(double value, EMBER_LOC);
  /// The mean so far, a float64 scalar: 0 before any value (as Keras).
  Tensor result() const;
  void reset_state();
  const std::string &name() const { return name_; }
  /// The state: "total" and "count".
  std::vector<Variable> variables() const { return {total_, count_}; }

private:
  std::string name_;
  Variable total_, count_;
};

/// How often the largest of `y_pred`'s last axis is the integer label
/// `y_true` (Keras's SparseCategoricalAccuracy).
class SparseCategoricalAccuracy {
public:
  explicit SparseCategoricalAccuracy(std::string name = "sparse_categorical_accuracy");
  void update_state(const Tensor &y_true, const Tensor &y_pred, EMBER_LOC);
  Tensor result() const { return mean_.result(); }
  void reset_state() { mean_.reset_state(); }
  const std::string &name() const { return mean_.name(); }
  std::vector<Variable> variables() const { return mean_.variables(); }

private:
  Mean mean_;
};

} // namespace ember::metrics

#endif // EMBER_METRICS_H
