//===- Variable.cpp - mutable tensors --------------------------------------===//

#include "ember/Frontend/Variable.h"

#include "Dispatcher.h"
#include "TensorImpl.h"
#include "Tape.h"
#include "Tracer.h"

#include <ostream>

using namespace ember;
using namespace ember::detail;

Variable::Variable(const Tensor &initial, std::string name)
    : state_(std::make_shared<VariableState>()) {
  if (!initial.defined())
    throw Error("ember::Variable '" + name + "' needs an initial value");
  if (isSymbolic(initial))
    throw Error("ember::Variable '" + name +
                "' cannot be created from a symbolic tensor inside an ember::function; create "
                "variables outside and capture them");
  state_->value = initial;
  state_->name = std::move(name);
}

Tensor Variable::value() const {
  Tracer *tracer = currentTracer();
  Tensor value = tracer ? tracer->readVariable(state_) : state_->value;
  if (activeTape())
    noteVariableRead(state_.get(), value); // watched automatically
  return value;
}

void Variable::assign(const Tensor &value, SourceLoc loc) {
  const Tensor &current = state_->value;
  if (value.dtype() != current.dtype() || !(value.shape() == current.shape()))
    throw_op_error("ember.assign",
                   "variable '" + state_->name + "' holds " +
                       std::string(dtypeName(current.dtype())) + " of shape " +
                       current.shape().str() + ", cannot assign " +
                       std::string(dtypeName(value.dtype())) + " of shape " + value.shape().str(),
                   loc);
  if (Tracer *tracer = currentTracer()) {
    tracer->writeVariable(state_, value);
    return;
  }
  if (isSymbolic(value))
    throw_op_error("ember.assign",
                   "variable '" + state_->name +
                       "' assigned a symbolic tensor outside the function that traced it",
                   loc);
  state_->value = value;
}

void Variable::assign_add(const Tensor &delta, SourceLoc loc) { assign(add(value(), delta, loc), loc); }
void Variable::assign_sub(const Tensor &delta, SourceLoc loc) { assign(sub(value(), delta, loc), loc); }

std::ostream &ember::operator<<(std::ostream &os, const Variable &variable) {
  return os << "ember.Variable '" << variable.name() << "' " << variable.value();
}
