//===- Optimizers.cpp - SGD and Adam ---------------------------------------===//


#include "ember/Train/Optimizers.h"

#include <map>
#include <string>

using namespace ember;
using namespace ember::optimizers;


Optimizer::Optimizer(LearningRate learningRate, std::string name)
    : learningRate_(std::move(learningRate)), name_(std::move(name)),
      iterations_(Tensor(int64_t{0}, DType::Int64), name_ + "/iterations") {}

Optimizer::~Optimizer() = default;

Tensor Optimizer::learning_rate(const Tensor &step) const {
  if (const double *value = std::get_if<double>(&learningRate_))
    return Tensor(*value, DType::Float64); // each variable's dtype takes it exactly
  if (const Variable *variable = std::get_if<Variable>(&learningRate_))
    return variable->value();
  return std::get<std::function<Tensor(const Tensor &)>>(learningRate_)(step);
}

Variable Optimizer::slot(const Variable &variable, const std::string &name) {
  for (const Slot &slot : slots_)
    if (slot.variable.state() == variable.state() && slot.name == name)
      return slot.value;
  // Beside its variable, as Keras places slots: elsewhere, every update
  // would mix devices.
  DeviceScope scope(variable.device());
  Variable value(zeros(variable.shape(), variable.dtype()), variable.name() + "/" + name);
  slots_.push_back({variable, name, value});
  return slots_.back().value;
}

std::vector<std::pair<std::string, Variable>> Optimizer::variables() const {
  std::vector<std::pair<std::string, Variable>> all = {{"iterations", iterations_}};
  for (const Slot &slot : slots_)
    all.emplace_back(slot.value.name(), slot.value);
  return all;
}

void Optimizer::build(const std::vector<Variable> &variables) {
  for (const Variable &variable : variables)
    if (!isFloatingPoint(variable.dtype()))
      throw Error("optimizers." + name_ + ".build: variable '" + variable.name() + "' is " +
                  std::string(dtypeName(variable.dtype())) + ", not float");
  for (const Variable &variable : variables)
    for (const std::string &name : slot_names())
      slot(variable, name);
}

void Optimizer::apply_gradients(const std::vector<std::optional<Tensor>> &gradients,
                                const std::vector<Variable> &variables, SourceLoc loc) {
  std::string what = "optimizers." + name_ + ".apply_gradients";
  if (gradients.size() != variables.size())
    throw_op_error(what,
                         "got " + std::to_string(gradients.size()) + " gradients for " +
                             std::to_string(variables.size()) + " variables",
                         loc);
  for (size_t i = 0; i < gradients.size(); ++i) {
    if (!gradients[i])
      continue;
    const Tensor &g = *gradients[i];
    if (!isFloatingPoint(variables[i].dtype()))
      throw_op_error(what,
                           "variable '" + variables[i].name() + "' (" +
                               describe(variables[i].value()) +
                               ") is not trainable: only floating-point variables have "
                               "gradients (make it float32, or leave it out of the list)",
                           loc);
    if (g.dtype() != variables[i].dtype() ||
        g.shape() != variables[i].shape())
      throw_op_error(what,
                           "the gradient of variable '" + variables[i].name() + "' (" +
                               describe(variables[i].value()) + ") is a " + describe(g),
                           loc);
  }
  Tensor step = add(iterations_.value(), Tensor(int64_t{1}, DType::Int64), loc);
  iterations_.assign(step, loc);
  // The rate in each variable's dtype, cast once per dtype.
  std::map<DType, Tensor> rates;
  Tensor rate = learning_rate(step);
  rates.emplace(rate.dtype(), rate);
  for (size_t i = 0; i < gradients.size(); ++i)
    if (gradients[i]) {
      DType dtype = variables[i].dtype();
      auto it = rates.find(dtype);
      if (it == rates.end())
        it = rates.emplace(dtype, cast(rate, dtype)).first;
      update(*gradients[i], variables[i], it->second, step);
    }
}

void Optimizer::apply_gradients(const std::vector<Tensor> &gradients,
                                const std::vector<Variable> &variables, SourceLoc loc) {
  std::vector<std::optional<Tensor>> present(gradients.begin(), gradients.end());
  apply_gradients(present, variables, loc);
}

void Optimizer::apply_gradients(std::initializer_list<Tensor> gradients,
                                const std::vector<Variable> &variables, SourceLoc loc) {
  apply_gradients(std::vector<Tensor>(gradients), variables, loc);
}

SGD::SGD(LearningRate learning_rate, double momentum, bool nesterov)
    : Optimizer(std::move(learning_rate), "SGD"), momentum_(momentum), nesterov_(nesterov) {}

std::vector<std::string> SGD::slot_names() const {
  return momentum_ == 0 ? std::vector<std::string>{} : std::vector<std::string>{"momentum"};
}

void SGD::update(const Tensor &g, Variable variable, const Tensor &rate, const Tensor &) {
  if (momentum_ == 0) {
    variable.assign_sub(g * rate);
    return;
  }
  DType dtype = variable.dtype();
  Tensor momentum(momentum_, dtype);
  Variable m = slot(variable, "momentum");
  Tensor next = m.value() * momentum - g * rate;
  m.assign(next);
  variable.assign_add(nesterov_ ? next * momentum - g * rate : next);
}

Adam::Adam(LearningRate learning_rate, double beta_1, double beta_2, double epsilon)
    : Optimizer(std::move(learning_rate), "Adam"), beta1_(beta_1), beta2_(beta_2),
      epsilon_(epsilon) {}

std::vector<std::string> Adam::slot_names() const { return {"m", "v"}; }

void Adam::update(const Tensor &g, Variable variable, const Tensor &rate,
                  const Tensor &step) {
  DType dtype = variable.dtype();
  Tensor t = cast(step, dtype);
  Tensor beta1(beta1_, dtype), beta2(beta2_, dtype), one(1.0, dtype);
  Tensor alpha = rate * sqrt(one - pow(beta2, t)) / (one - pow(beta1, t));
  Variable m = slot(variable, "m");
  Variable v = slot(variable, "v");
  m.assign_add((g - m.value()) * (one - beta1));
  v.assign_add((g * g - v.value()) * (one - beta2));
  variable.assign_sub(m.value() * alpha / (sqrt(v.value()) + Tensor(epsilon_, dtype)));
}
