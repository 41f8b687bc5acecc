//===- CustomGradient.cpp - user-defined gradients in traces ---------------===//

#include "ember/Frontend/CustomGradient.h"

#include "CallSite.h"
#include "Dispatcher.h"
#include "Tape.h"
#include "TensorImpl.h"
#include "Tracer.h"

using namespace ember;
using namespace ember::detail;

Tensor ember::detail::attachGradient(const WithGradient &result, const std::vector<Tensor> &inputs,
                                     const SourceLoc &loc) {
  Tracer *tracer = currentTracer();
  if (!tracer) {
    if (!activeTape())
      return result.value; // eagerly only the value exists
    // On a tape: a new handle on the value, recorded with its rule.
    Tensor handle = aliasOf(result.value);
    recordCustomGradient(result.value, inputs, result.backward, handle, loc);
    return handle;
  }
  if (tracer->exporting())
    return result.value; // inference: the rule would never run
  trace::FunctionBuilder &builder = tracer->builder();
  RegionGuard guard(*tracer);
  int value = tracer->valueOf(result.value, loc);
  std::vector<int> inputIds;
  for (const Tensor &input : inputs)
    inputIds.push_back(tracer->valueOf(input, loc));
  // The backward, traced into the op's region with a symbolic cotangent.
  trace::TensorSpec spec = specOf(result.value.dtype(), result.value.shape());
  std::vector<int> argument = builder.beginRegion({&spec, 1});
  std::vector<int> yields;
  {
    Tracer::RegionScope scope(*tracer);
    Tensor upstream = newSymbolicTensor(result.value.shape(), result.value.dtype(), tracer, argument[0]);
    std::vector<Tensor> cotangents = result.backward(upstream);
    if (cotangents.size() != inputs.size())
      throw_op_error("ember.custom_gradient",
                     "the backward function returned " + std::to_string(cotangents.size()) +
                         " cotangents for " + std::to_string(inputs.size()) + " inputs",
                     loc);
    for (const Tensor &c : cotangents)
      yields.push_back(tracer->valueOf(c, loc));
  }
  int region = builder.endRegion(yields);
  std::string error;
  int id = builder.addCustomGradient(value, inputIds, region, jitLocationOf(loc), error);
  if (id < 0)
    throw OpError(error.empty() ? "'ember.custom_gradient' op is invalid" : error);
  return newSymbolicTensor(result.value.shape(), result.value.dtype(), tracer, id);
}
