//===- Tracer.cpp - record ember ops into a function -----------------------===//

#include "Tracer.h"

#include "CallSite.h"
#include "Dispatcher.h"
#include "ember/Frontend/Ops.h"

#include <algorithm>

using namespace ember;
using namespace ember::detail;

namespace {
thread_local Tracer *activeTracer = nullptr;
} // namespace

Tracer *ember::detail::currentTracer() { return activeTracer; }

// Ops run at once unless this thread is tracing (an ember::function, the
// branches and loop bodies traced inside it, the derivative a GradientTape
// builds): tf.executing_eagerly() is false inside a tf.function too.
bool ember::executing_eagerly() { return activeTracer == nullptr; }

ember::InitScope::InitScope() : previous_(activeTracer) { activeTracer = nullptr; }
ember::InitScope::~InitScope() { activeTracer = static_cast<Tracer *>(previous_); }

TracingScope::TracingScope(Tracer *tracer) : previous_(activeTracer) { activeTracer = tracer; }
TracingScope::~TracingScope() { activeTracer = previous_; }

Tensor Tracer::argument(DType dtype, const Shape &shape) {
  int id = builder_.addArgument(specOf(dtype, shape));
  return newSymbolicTensor(shape, dtype, this, id);
}

int Tracer::valueOf(const Tensor &tensor, const SourceLoc &loc) {
  TensorImpl *impl = tensor.impl();
  if (!impl)
    throw Error("use of an undefined ember::Tensor while tracing '" + name_ + "'");
  if (impl->tracer == this)
    return impl->traceId;
  if (auto it = bindings_.find(impl); it != bindings_.end())
    return it->second;
  if (impl->tracer)
    throw_op_error("ember.function",
                   "a symbolic tensor of another traced function was used while tracing '" + name_ +
                       "' (return it from that function instead)",
                   loc);
  if (auto it = constants_.find(impl); it != constants_.end())
    return it->second;
  Tensor host = tensor.cpu(); // a GPU tensor's values become the constant too
  int id = builder_.addConstant(specOf(impl->dtype, impl->shape), host.data());
  constants_.emplace(impl, id);
  captured_.push_back(tensor);
  return id;
}

Tensor Tracer::addOp(const OpDef &op, std::span<const int64_t> attrWords,
                     std::span<const Tensor *const> inputs, const trace::TensorSpec *resultType,
                     const SourceLoc &loc) {
  std::vector<int> operands;
  for (const Tensor *input : inputs)
    operands.push_back(valueOf(*input, loc));
  return appendOp(op, attrWords, operands, resultType, loc);
}

Tensor Tracer::appendOp(const OpDef &op, std::span<const int64_t> attrWords,
                        std::span<const int> operands, const trace::TensorSpec *resultType,
                        const SourceLoc &loc) {
  trace::OpCall call{op.name, op.attrs, attrWords, resultType, jitLocationOf(loc)};
  trace::TensorSpec result;
  std::string error;
  int id = builder_.addOp(call, operands, result, error);
  if (id < 0)
    throw OpError(error.empty() ? "'" + std::string(op.name) + "' op is invalid" : error);
  Tensor out = newSymbolicTensor(shapeOf(result), result.dtype, this, id);
  const SourceLoc &where = forUser(loc);
  out.impl()->traceFile = where.file_name();
  out.impl()->traceLine = where.line();
  out.impl()->traceColumn = where.column();
  return out;
}

Tensor Tracer::addBroadcast(const OpDef &broadcastOp, const Tensor &x, const Shape &shape,
                            std::span<const Tensor *const> sources, const SourceLoc &loc) {
  std::vector<int> operands = {valueOf(x, loc)};
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape[d] != kNone)
      continue;
    const Tensor *source = nullptr;
    int sourceDim = -1;
    for (const Tensor *candidate : sources) {
      int aligned = d - (shape.rank() - candidate->rank());
      if (aligned >= 0 && candidate->shape()[aligned] == kNone) {
        source = candidate;
        sourceDim = aligned;
        break;
      }
    }
    if (!source)
      throw_op_error(broadcastOp.name,
                     "cannot broadcast " + x.shape().str() + " to " + shape.str() +
                         ": no operand gives the size of None dim " + std::to_string(d),
                     loc);
    operands.push_back(builder_.addDim(valueOf(*source, loc), sourceDim));
  }
  trace::TensorSpec resultType = specOf(x.dtype(), shape);
  return appendOp(broadcastOp, {}, operands, &resultType, loc);
}

Tensor Tracer::addSizedLike(const OpDef &op, std::span<const int64_t> attrWords,
                            std::span<const Tensor *const> inputs, const Shape &shape, DType dtype,
                            const Tensor &like, const SourceLoc &loc,
                            std::span<const int> likeDims) {
  std::vector<int> operands;
  for (const Tensor *input : inputs)
    operands.push_back(valueOf(*input, loc));
  for (int d = 0; d < shape.rank(); ++d)
    if (shape[d] == kNone)
      operands.push_back(builder_.addDim(valueOf(like, loc), likeDims.empty() ? d : likeDims[d]));
  trace::TensorSpec resultType = specOf(dtype, shape);
  return appendOp(op, attrWords, operands, &resultType, loc);
}

void Tracer::addEffect(const OpDef &op, std::span<const int64_t> attrWords,
                       std::span<const Tensor *const> inputs, const SourceLoc &loc) {
  std::vector<int> operands;
  for (const Tensor *input : inputs)
    operands.push_back(valueOf(*input, loc));
  trace::OpCall call{op.name, op.attrs, attrWords, nullptr, jitLocationOf(loc), /*noResults=*/true};
  trace::TensorSpec unused;
  std::string error;
  if (builder_.addOp(call, operands, unused, error) < 0)
    throw OpError(error.empty() ? "'" + std::string(op.name) + "' op is invalid" : error);
}

Tensor Tracer::readVariable(const std::shared_ptr<VariableState> &variable) {
  if (auto it = variableValues_.find(variable.get()); it != variableValues_.end())
    return it->second;
  if (variablesAsWeights_) {
    int id = valueOf(variable->value, SourceLoc::current());
    builder_.nameWeight(id, variable->name);
    Tensor weight = newSymbolicTensor(variable->value.shape(), variable->value.dtype(), this, id);
    variableValues_.emplace(variable.get(), weight);
    return weight;
  }
  Tensor argument = this->argument(variable->value.dtype(), variable->value.shape());
  variableInputs_.push_back(variable);
  variableValues_.emplace(variable.get(), argument);
  return argument;
}

void Tracer::writeVariable(const std::shared_ptr<VariableState> &variable, const Tensor &value) {
  if (variablesAsWeights_)
    throw OpError("'" + name_ + "' assigns variable '" + variable->name +
                  "': an exported function may read variables (they become its weights) but "
                  "not assign them; export the inference step, not the training step");
  if (regionDepth_ > 0) {
    if (frames_.empty() || frames_.back()->depth_ != regionDepth_)
      throw OpError("variable '" + variable->name +
                    "' is assigned inside a loop condition or a differentiated function while "
                    "tracing '" + name_ + "'; return the new value and assign it after");
    VariableFrame &frame = *frames_.back();
    frame.save(variable);
    if (std::find(frame.assigned_.begin(), frame.assigned_.end(), variable) ==
        frame.assigned_.end())
      frame.assigned_.push_back(variable);
    variableValues_[variable.get()] = value;
    return;
  }
  if (std::find(variablesWritten_.begin(), variablesWritten_.end(), variable) ==
      variablesWritten_.end())
    variablesWritten_.push_back(variable);
  variableValues_[variable.get()] = value;
}

Tracer::VariableFrame::VariableFrame(Tracer &tracer)
    : tracer_(tracer), depth_(tracer.regionDepth_) {
  tracer_.frames_.push_back(this);
}

Tracer::VariableFrame::~VariableFrame() {
  tracer_.frames_.pop_back();
  for (auto &[variable, value] : saved_)
    tracer_.variableValues_[variable.get()] = value;
}

void Tracer::VariableFrame::save(const std::shared_ptr<VariableState> &variable) {
  for (auto &entry : saved_)
    if (entry.first == variable)
      return;
  // The value from before the frame (an argument if it was never read).
  saved_.emplace_back(variable, tracer_.readVariable(variable));
}

void Tracer::VariableFrame::setValue(const std::shared_ptr<VariableState> &variable,
                                     const Tensor &value) {
  save(variable);
  tracer_.variableValues_[variable.get()] = value;
}

Tracer::CallVariables::CallVariables(Tracer &tracer,
                                     const std::vector<std::shared_ptr<VariableState>> &read,
                                     std::span<const Tensor> values,
                                     const std::vector<std::shared_ptr<VariableState>> &assigned)
    : tracer_(tracer), written_(tracer.variablesWritten_.size()) {
  auto save = [&](const VariableState *variable) {
    auto it = tracer_.variableValues_.find(variable);
    saved_.emplace_back(variable, it == tracer_.variableValues_.end()
                                      ? std::nullopt
                                      : std::optional<Tensor>(it->second));
  };
  for (size_t v = 0; v < read.size(); ++v) {
    save(read[v].get());
    tracer_.variableValues_[read[v].get()] = values[v];
  }
  for (const auto &variable : assigned)
    save(variable.get());
}

Tracer::CallVariables::~CallVariables() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->second)
      tracer_.variableValues_[it->first] = *it->second;
    else
      tracer_.variableValues_.erase(it->first);
  }
  tracer_.variablesWritten_.resize(written_);
}

std::vector<std::pair<std::shared_ptr<VariableState>, Tensor>> Tracer::variableOutputs() const {
  std::vector<std::pair<std::shared_ptr<VariableState>, Tensor>> outputs;
  for (const auto &variable : variablesWritten_)
    outputs.emplace_back(variable, variableValues_.at(variable.get()));
  return outputs;
}
