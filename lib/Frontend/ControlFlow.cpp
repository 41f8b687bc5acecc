//===- ControlFlow.cpp - traced branches and loops -------------------------===//

#include "ember/Frontend/ControlFlow.h"

#include "CallSite.h"
#include "Dispatcher.h"
#include "TensorImpl.h"
#include "Tracer.h"

#include <algorithm>

using namespace ember;
using namespace ember::detail;

bool ember::detail::isTracing() { return currentTracer() != nullptr; }

namespace {
trace::SourceLocation jitLocation(const SourceLoc &loc) { return jitLocationOf(loc); }

std::vector<trace::TensorSpec> specsOf(const std::vector<Tensor> &tensors) {
  std::vector<trace::TensorSpec> specs;
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
                           const std::vector<trace::TensorSpec> &specs, const std::string &error) {
  if (!ok)
    throw OpError(error);
  return symbolic(tracer, ids, specs);
}

using VariablePtr = std::shared_ptr<VariableState>;

/// Adds the variables of `more` missing from `all`.
void unite(std::vector<VariablePtr> &all, const std::vector<VariablePtr> &more) {
  for (const VariablePtr &v : more)
    if (std::find(all.begin(), all.end(), v) == all.end())
      all.push_back(v);
}

/// A traced region of a cond or a loop, and the variables it assigned.
struct Traced {
  int region;
  std::vector<VariablePtr> assigned;
  std::vector<int> assignedValues; ///< their final values in the region
};

/// Traces `body` into a region taking `types` then one argument per
/// `carried` variable, which the variable reads inside the region (a
/// loop-carried value); assignments are collected (Tracer::VariableFrame).
/// The region yields what `body` returns, then (unless it is a loop's
/// condition) each carried variable's value at its end.
template <typename Body>
Traced traceWithVariables(Tracer &tracer, std::vector<trace::TensorSpec> types,
                          const std::vector<VariablePtr> &carried, Body &&body,
                          const SourceLoc &loc, bool yieldCarried = true) {
  size_t own = types.size();
  for (const VariablePtr &v : carried)
    types.push_back(specOf(v->value.dtype(), v->value.shape()));
  std::vector<int> argumentIds = tracer.builder().beginRegion(types);
  Traced traced;
  std::vector<int> yieldIds;
  {
    Tracer::RegionScope scope(tracer);
    Tracer::VariableFrame frame(tracer);
    std::vector<Tensor> arguments = symbolic(tracer, argumentIds, types);
    for (size_t k = 0; k < carried.size(); ++k)
      frame.setValue(carried[k], arguments[own + k]);
    arguments.resize(own);
    for (const Tensor &t : body(arguments))
      yieldIds.push_back(tracer.valueOf(t, loc));
    for (const VariablePtr &v : carried)
      if (yieldCarried)
        yieldIds.push_back(tracer.valueOf(tracer.readVariable(v), loc));
    traced.assigned = frame.assigned();
    for (const VariablePtr &v : traced.assigned)
      traced.assignedValues.push_back(tracer.valueOf(tracer.readVariable(v), loc));
  }
  traced.region = tracer.builder().endRegion(yieldIds);
  return traced;
}

/// The values of `variables` here (outside the regions just traced).
std::vector<int> currentValues(Tracer &tracer, const std::vector<VariablePtr> &variables,
                               const SourceLoc &loc) {
  std::vector<int> ids;
  for (const VariablePtr &v : variables)
    ids.push_back(tracer.valueOf(tracer.readVariable(v), loc));
  return ids;
}

/// Assigns the trailing results (one per variable) of a cond or loop to
/// `variables`, and returns the leading ones.
std::vector<Tensor> assignTrailing(Tracer &tracer, std::vector<Tensor> results,
                                   const std::vector<VariablePtr> &variables) {
  size_t own = results.size() - variables.size();
  for (size_t k = 0; k < variables.size(); ++k)
    tracer.writeVariable(variables[k], results[own + k]);
  results.resize(own);
  return results;
}

void refuseAssignments(const Traced &condition, const SourceLoc &loc) {
  if (!condition.assigned.empty())
    throw_op_error("ember.while_loop",
                   "variable '" + condition.assigned.front()->name +
                       "' is assigned in the loop condition; assign it in the body",
                   loc);
}
} // namespace

// Variables assigned in a branch or loop body become results of the scf op
// (TensorFlow's autograph does the same): a branch yields each variable
// assigned in either branch (the other yields the value from before); a loop
// carries each variable its body assigns. Which ones a loop assigns is known
// only once its body is traced, so a loop that assigns variables is traced a
// second time with them carried (C++ side effects of the body then run twice
// while tracing).

std::vector<Tensor> ember::detail::traceCond(const Tensor &predicate, const Branch &thenBranch,
                                             const Branch &elseBranch, const SourceLoc &loc) {
  Tracer &tracer = *currentTracer();
  if (predicate.dtype() != DType::Bool || predicate.rank() != 0)
    throw_op_error("ember.cond",
                   "needs a 0-d bool predicate, got " + std::string(dtypeName(predicate.dtype())) +
                       " of shape " + predicate.shape().str(),
                   loc);
  int condition = tracer.valueOf(predicate, loc);
  RegionGuard guard(tracer);
  auto branch = [](const Branch &fn) {
    return [&fn](const std::vector<Tensor> &) { return fn(); };
  };
  Traced thenTraced = traceWithVariables(tracer, {}, {}, branch(thenBranch), loc);
  Traced elseTraced = traceWithVariables(tracer, {}, {}, branch(elseBranch), loc);
  std::vector<VariablePtr> assigned = thenTraced.assigned;
  unite(assigned, elseTraced.assigned);
  if (!assigned.empty()) {
    std::vector<int> before = currentValues(tracer, assigned, loc);
    for (const Traced *traced : {&thenTraced, &elseTraced}) {
      std::vector<int> extra = before;
      for (size_t k = 0; k < assigned.size(); ++k)
        for (size_t j = 0; j < traced->assigned.size(); ++j)
          if (traced->assigned[j] == assigned[k])
            extra[k] = traced->assignedValues[j];
      tracer.builder().appendYields(traced->region, extra);
    }
  }
  std::vector<int> results;
  std::vector<trace::TensorSpec> specs;
  std::string error;
  bool ok = tracer.builder().addIf(condition, thenTraced.region, elseTraced.region,
                                   jitLocation(loc), results, specs, error);
  return assignTrailing(tracer, finish(tracer, ok, results, specs, error), assigned);
}

std::vector<Tensor> ember::detail::traceWhile(const LoopCondition &condition, const LoopBody &body,
                                              const std::vector<Tensor> &init, const SourceLoc &loc) {
  Tracer &tracer = *currentTracer();
  RegionGuard guard(tracer);
  std::vector<int> initIds = valueIds(tracer, init, loc);
  std::vector<trace::TensorSpec> types = specsOf(init);
  auto conditionBody = [&](const std::vector<Tensor> &vars) {
    return std::vector<Tensor>{condition(vars)};
  };
  std::vector<VariablePtr> carried;
  Traced before = traceWithVariables(tracer, types, carried, conditionBody, loc, false);
  refuseAssignments(before, loc);
  Traced after = traceWithVariables(tracer, types, carried, body, loc);
  if (!after.assigned.empty()) { // again, carrying them
    tracer.builder().discardRegion(before.region);
    tracer.builder().discardRegion(after.region);
    carried = after.assigned;
    before = traceWithVariables(tracer, types, carried, conditionBody, loc, false);
    refuseAssignments(before, loc);
    after = traceWithVariables(tracer, types, carried, body, loc);
    std::vector<int> values = currentValues(tracer, carried, loc);
    initIds.insert(initIds.end(), values.begin(), values.end());
  }
  std::vector<int> results;
  std::vector<trace::TensorSpec> specs;
  std::string error;
  bool ok = tracer.builder().addWhile(initIds, before.region, after.region, jitLocation(loc),
                                      results, specs, error);
  return assignTrailing(tracer, finish(tracer, ok, results, specs, error), carried);
}

std::vector<Tensor> ember::detail::traceFor(int64_t lower, int64_t upper, const CountedBody &body,
                                            const std::vector<Tensor> &init, const SourceLoc &loc) {
  Tracer &tracer = *currentTracer();
  RegionGuard guard(tracer);
  std::vector<int> initIds = valueIds(tracer, init, loc);
  std::vector<trace::TensorSpec> bodyTypes = {specOf(DType::Int64, Shape{})};
  std::vector<trace::TensorSpec> types = specsOf(init);
  bodyTypes.insert(bodyTypes.end(), types.begin(), types.end());
  auto counted = [&](const std::vector<Tensor> &args) {
    return body(args[0], std::vector<Tensor>(args.begin() + 1, args.end()));
  };
  std::vector<VariablePtr> carried;
  Traced traced = traceWithVariables(tracer, bodyTypes, carried, counted, loc);
  if (!traced.assigned.empty()) { // again, carrying them
    tracer.builder().discardRegion(traced.region);
    carried = traced.assigned;
    traced = traceWithVariables(tracer, bodyTypes, carried, counted, loc);
    std::vector<int> values = currentValues(tracer, carried, loc);
    initIds.insert(initIds.end(), values.begin(), values.end());
  }
  std::vector<int> results;
  std::vector<trace::TensorSpec> specs;
  std::string error;
  bool ok = tracer.builder().addFor(lower, upper, initIds, traced.region, jitLocation(loc),
                                    results, specs, error);
  return assignTrailing(tracer, finish(tracer, ok, results, specs, error), carried);
}
