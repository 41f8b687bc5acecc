//===- Optimizers.h - SGD and Adam, as Keras's --------------------*- C++ -*-===//
//
// Optimizers update Variables by their gradients with Keras's rules and
// names. An update is ember ops and variable assignments, so it runs
// eagerly, and inside an ember::function it becomes part of the compiled
// training step (gradients, update and all). Slots (momenta, Adam's m and
// v) are Variables made at an optimizer's first update of a variable; the
// step counter `iterations` is a Variable too, so traced steps count.
// Both are saved by an ember::Checkpoint (ember/Train/Checkpoint.h).
//
//   ember::Variable w(ember::Tensor({1.f, -2.f}), "w");
//   ember::optimizers::Adam adam(0.1);
//   for (int step = 0; step < 100; ++step) {
//     ember::GradientTape tape;
//     ember::Tensor loss = ember::reduce_sum(ember::square(w.value()));
//     adam.apply_gradients(tape.gradient(loss, {w}), {w});
//   }
//   // w is now close to 0; adam.iterations() holds 100
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_OPTIMIZERS_H
#define EMBER_OPTIMIZERS_H

#include "ember/Frontend/Variable.h"

#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ember::optimizers {

/// A learning rate: a number; a Variable (assign it to change the rate,
/// also between calls of a compiled step, without recompiling); or a
/// schedule, a function of the step (an int64 scalar, from 1) returning a
/// float scalar (Keras's LearningRateSchedule).
using LearningRate = std::variant<double, Variable, std::function<Tensor(const Tensor &step)>>;

class Optimizer {
public:
  virtual ~Optimizer();

  /// One update of each variable by its gradient (Keras's apply_gradients);
  /// a missing gradient (std::nullopt: the loss does not depend on that
  /// variable) leaves its variable alone. Counts one step. Gradients and
  /// variables pair up in order: their numbers must match, and so must each
  /// pair's shape and dtype (float) — otherwise an OpError naming them.
  void apply_gradients(const std::vector<std::optional<Tensor>> &gradients,
                       const std::vector<Variable> &variables, EMBER_LOC);
  void apply_gradients(const std::vector<Tensor> &gradients,
                       const std::vector<Variable> &variables, EMBER_LOC);
  void apply_gradients(std::initializer_list<Tensor> gradients,
                       const std::vector<Variable> &variables, EMBER_LOC);

  /// The steps taken so far (an int64 scalar Variable).
  const Variable &iterations() const { return iterations_; }
  /// The learning rate at step `step`, a float scalar (a number as float64;
  /// each variable's update casts it to the variable's dtype).
  Tensor learning_rate(const Tensor &step) const;
  /// Every variable the optimizer owns: "iterations", then each slot as
  /// "<variable name>/<slot>".
  std::vector<std::pair<std::string, Variable>> variables() const;

  /// Makes the slots of `variables` now (Keras's build) rather than at each
  /// one's first update, e.g. to restore them from a checkpoint that does
  /// not also hold the variables. Throws for a variable that is not float.
  void build(const std::vector<Variable> &variables);
  /// The names of the slots each variable gets: {"m", "v"} for Adam.
  virtual std::vector<std::string> slot_names() const = 0;
  /// A slot: the variable it belongs to, its name ("m") and its value.
  struct Slot {
    Variable variable;
    std::string name;
    Variable value;
  };
  /// The slots made so far, in creation order.
  const std::vector<Slot> &slots() const { return slots_; }

protected:
  Optimizer(LearningRate learningRate, std::string name);
  /// Updates `variable` by `gradient` at `step` (from 1), the learning rate
  /// `rate` already in the variable's dtype.
  virtual void update(const Tensor &gradient, Variable variable, const Tensor &rate,
                      const Tensor &step) = 0;
  /// The slot `name` of `variable`: zeros of its shape and dtype at first (a
  /// copy sharing the slot's state).
  Variable slot(const Variable &variable, const std::string &name);

private:
  LearningRate learningRate_;
  std::string name_;
  Variable iterations_;
  std::vector<Slot> slots_;
};

/// Gradient descent, with optional (Nesterov) momentum:
///   m = momentum * m - lr * g;  w += m  (Nesterov: w += momentum * m - lr * g)
///   without momentum: w -= lr * g.
class SGD : public Optimizer {
public:
  explicit SGD(LearningRate learning_rate = 0.01, double momentum = 0, bool nesterov = false);

  std::vector<std::string> slot_names() const override;

private:
  void update(const Tensor &gradient, Variable variable, const Tensor &rate,
              const Tensor &step) override;
  double momentum_;
  bool nesterov_;
};

/// Adam (Kingma and Ba), as Keras computes it:
///   m += (g - m) (1 - beta_1);  v += (g^2 - v) (1 - beta_2)
///   w -= lr sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon)
class Adam : public Optimizer {
public:
  explicit Adam(LearningRate learning_rate = 0.001, double beta_1 = 0.9, double beta_2 = 0.999,
                double epsilon = 1e-7);

  std::vector<std::string> slot_names() const override;

private:
  void update(const Tensor &gradient, Variable variable, const Tensor &rate,
              const Tensor &step) override;
  double beta1_, beta2_, epsilon_;
};

} // namespace ember::optimizers

#endif // EMBER_OPTIMIZERS_H
