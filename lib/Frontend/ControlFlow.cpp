//===- ControlFlow.cpp - traced branches and loops -------------------------===//

#include "ember/ControlFlow.h"

#include "Dispatcher.h"
#include "TensorImpl.h"
#include "Tracer.h"

using namespace ember;
using namespace ember::detail;

bool ember::detail::isTracing() { return currentTracer() != nullptr; }

namespace {
jit::SourceLocation jitLocation(const SourceLoc &loc) {
  return {loc.file_name(), loc.line(), loc.column()};
}

std::vector<jit::TensorSpec> specsOf(const std::vector<Tensor> &tensors) {
  std::vector<jit::TensorSpec> specs;
  for (const Tensor &t : tensors)
    specs.push_back(specOf(t.dtype(), t.shape()));
  return specs;
}

/// The value ids of a loop's initial variables.
std::vector<int> valueIds(Tracer &tracer, const std::vector<Tensor> &tensors, const SourceLoc &loc) {
  std::vector<int> ids;
  for (const Tensor &t : tensors)
    ids.push_back(tracer.valueOf(t, loc));
  return ids;
}

std::vector<Tensor> finish(Tracer &tracer, bool ok, const std::vector<int> &ids,
                           const std::vector<jit::TensorSpec> &specs, const std::string &error) {
  if (!ok)
    throw OpError(error);
  return symbolic(tracer, ids, specs);
}
} // namespace

std::vector<Tensor> ember::detail::traceCond(const Tensor &predicate, const Branch &thenBranch,
                                             const Branch &elseBranch, const SourceLoc &loc) {
  Tracer &tracer = *currentTracer();
  if (predicate.dtype() != DType::Bool || predicate.rank() != 0)
    throwOpError("ember.cond",
                 "needs a 0-d bool predicate, got " + std::string(dtypeName(predicate.dtype())) +
                     " of shape " + predicate.shape().str(),
                 loc);
  int condition = tracer.valueOf(predicate, loc);
  int thenRegion = traceRegion(tracer, {}, [&](const std::vector<Tensor> &) { return thenBranch(); }, loc);
  int elseRegion = traceRegion(tracer, {}, [&](const std::vector<Tensor> &) { return elseBranch(); }, loc);
  std::vector<int> results;
  std::vector<jit::TensorSpec> specs;
  std::string error;
  bool ok = tracer.builder().addIf(condition, thenRegion, elseRegion, jitLocation(loc), results,
                                   specs, error);
  return finish(tracer, ok, results, specs, error);
}

std::vector<Tensor> ember::detail::traceWhile(const LoopCondition &condition, const LoopBody &body,
                                              const std::vector<Tensor> &init, const SourceLoc &loc) {
  Tracer &tracer = *currentTracer();
  std::vector<int> initIds = valueIds(tracer, init, loc);
  std::vector<jit::TensorSpec> types = specsOf(init);
  int before = traceRegion(tracer, types, [&](const std::vector<Tensor> &vars) {
    return std::vector<Tensor>{condition(vars)};
  }, loc);
  int after = traceRegion(tracer, types, body, loc);
  std::vector<int> results;
  std::vector<jit::TensorSpec> specs;
  std::string error;
  bool ok = tracer.builder().addWhile(initIds, before, after, jitLocation(loc), results, specs, error);
  return finish(tracer, ok, results, specs, error);
}

std::vector<Tensor> ember::detail::traceFor(int64_t lower, int64_t upper, const CountedBody &body,
                                            const std::vector<Tensor> &init, const SourceLoc &loc) {
  Tracer &tracer = *currentTracer();
  std::vector<int> initIds = valueIds(tracer, init, loc);
  std::vector<jit::TensorSpec> types = specsOf(init);
  std::vector<jit::TensorSpec> bodyTypes = {specOf(DType::Int64, Shape{})};
  bodyTypes.insert(bodyTypes.end(), types.begin(), types.end());
  int region = traceRegion(tracer, bodyTypes, [&](const std::vector<Tensor> &args) {
    return body(args[0], std::vector<Tensor>(args.begin() + 1, args.end()));
  }, loc);
  std::vector<int> results;
  std::vector<jit::TensorSpec> specs;
  std::string error;
  bool ok = tracer.builder().addFor(lower, upper, initIds, region, jitLocation(loc), results,
                                    specs, error);
  return finish(tracer, ok, results, specs, error);
}
