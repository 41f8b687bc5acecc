//===- Tape.h - recording eager ops for GradientTape ------------*- C++ -*-===//
#ifndef EMBER_LIB_FRONTEND_TAPE_H
#define EMBER_LIB_FRONTEND_TAPE_H

#include "OpDef.h"

#include "ember/Frontend/Variable.h"

#include <functional>
#include <memory>
#include <limits>
#include <optional>
#include <vector>

namespace ember::detail {

/// One recorded eager op: what the dispatcher ran, with handles on its
/// operands and result (which keeps them alive and identifies them).
struct TapeRecord {
  const OpDef *op = nullptr;
  std::vector<int64_t> attrWords = {};
  std::vector<Tensor> inputs = {};
  std::optional<trace::TensorSpec> resultType = std::nullopt;
  Tensor result = {};
  SourceLoc loc = {};
  /// Set for a custom gradient: inputs are the value, then the inputs the
  /// backward yields cotangents for.
  std::function<std::vector<Tensor>(const Tensor &)> backward = {};
  /// Set for a call recorded as one op (a gradient taken while this tape
  /// recorded, an ember::function called eagerly): traced on the inputs,
  /// `call` gives all the call's outputs; the result is output number
  /// `callOutput`. The records of one call share `call`.
  std::shared_ptr<const std::function<std::vector<Tensor>(const std::vector<Tensor> &)>> call = {};
  int callOutput = 0;
};

using TapeCall = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;

class Tracer;

struct TapeRecording {
  /// The function being traced when the tape was created, or null (an eager
  /// tape). A tape records the ops of that trace only: a traced tape, the
  /// ops whose values the trace added at positions in [traceBegin,
  /// traceEnd) (see trace::FunctionBuilder::valueCount); gradient() traces the
  /// derivative into the function.
  Tracer *tracer = nullptr;
  int traceBegin = 0;
  int traceEnd = std::numeric_limits<int>::max();
  bool persistent = false;
  bool recording = true;
  bool used = false;
  std::vector<TapeRecord> records;
  /// The values variables had when read while recording.
  std::vector<std::pair<const VariableState *, Tensor>> variableReads;
};

/// The innermost recording tape of this thread that records what runs now
/// (an eager tape, or one created in the function being traced), or null.
TapeRecording *activeTape();
/// Whether `t` is a value an active tape of this thread recorded (an op's
/// result or a variable's read): its gradient flows only through ops that
/// take it as it is.
bool recordedOnTapes(const Tensor &t);
/// Records an eager op on every active tape of this thread.
void recordOnTapes(const OpDef &op, std::span<const int64_t> attrWords,
                   std::span<const Tensor *const> inputs, const trace::TensorSpec *resultType,
                   const Tensor &result, const SourceLoc &loc);
/// Records `result` (a new handle on `value`'s buffer) as `value` with a
/// custom gradient, on every active tape.
void recordCustomGradient(const Tensor &value, const std::vector<Tensor> &inputs,
                          const std::function<std::vector<Tensor>(const Tensor &)> &backward,
                          const Tensor &result, const SourceLoc &loc);
/// Records `result`, output `output` of `call` on `inputs` (a gradient taken
/// by another tape), on every active tape; `structure` identifies the call.
void recordGradientCall(const std::vector<Tensor> &inputs,
                        const std::shared_ptr<const TapeCall> &call, int output,
                        const std::vector<int64_t> &structure, const Tensor &result,
                        const SourceLoc &loc);
/// Records `results`, the outputs of an ember::function called eagerly on
/// `inputs` (its tensor arguments, then the values of the variables it
/// read), on every active tape; `call` traces the function on the tape's
/// values; `structure` identifies the function and its signature.
void recordFunctionCall(const std::vector<Tensor> &inputs,
                        const std::shared_ptr<const TapeCall> &call,
                        const std::vector<int64_t> &structure, const std::vector<Tensor> &results,
                        const SourceLoc &loc);
/// How many GradientTape derivatives were compiled so far.
uint64_t tapeCompiles();
/// Notes that `variable` was read as `value` (for automatic watching).
void noteVariableRead(const VariableState *variable, const Tensor &value);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_TAPE_H
