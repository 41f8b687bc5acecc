//===- Variable.h - mutable tensors -------------------------------*- C++ -*-===//
//
// A Variable holds a tensor that can be replaced (assign, assign_add,
// assign_sub), as tf.Variable. Its dtype and shape are fixed at creation.
// Inside an ember::function, reading a variable makes its value an input of
// the compiled function and assigning makes the new value an output, written
// back after every call; so a traced optimizer step updates its variables.
// Assignments inside ember::cond branches and while_loop / fori_loop bodies
// become results of the branch or values carried by the loop, assigned after
// it (as TensorFlow allows); a loop condition cannot assign.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_VARIABLE_H
#define EMBER_VARIABLE_H

#include "ember/Frontend/Ops.h"

#include <memory>
#include <string>

namespace ember {

namespace detail {
struct VariableState {
  Tensor value;
  std::string name;
};
} // namespace detail

class Variable {
public:
  explicit Variable(const Tensor &initial, std::string name = "Variable");

  /// The current value (symbolic while tracing an ember::function).
  Tensor value() const;
  operator Tensor() const { return value(); }

  /// Replaces the value; `value` must have the variable's dtype and shape.
  void assign(const Tensor &value, EMBER_LOC);
  void assign_add(const Tensor &delta, EMBER_LOC);
  void assign_sub(const Tensor &delta, EMBER_LOC);

  DType dtype() const { return state_->value.dtype(); }
  const Shape &shape() const { return state_->value.shape(); }
  /// Where the value lives (tf.Variable.device).
  Device device() const { return state_->value.device(); }
  const std::string &name() const { return state_->name; }

  /// Internal: the shared state (copies of a Variable share it).
  const std::shared_ptr<detail::VariableState> &state() const { return state_; }

private:
  std::shared_ptr<detail::VariableState> state_;
};

std::ostream &operator<<(std::ostream &os, const Variable &variable);

} // namespace ember

#endif // EMBER_VARIABLE_H
