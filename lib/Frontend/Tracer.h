//===- Tracer.h - record ember ops into a function ---------------*- C++ -*-===//
//
// While an ember::function traces, every op the front end dispatches on this
// thread is appended to the function being built instead of running. Tensors
// that exist outside the trace (captured from the enclosing scope, or made by
// host fills such as zeros()) enter the function as constants.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_FRONTEND_TRACER_H
#define EMBER_LIB_FRONTEND_TRACER_H

#include "OpDef.h"
#include "TensorImpl.h"

#include "ember/Frontend/Variable.h"
#include "ember/JIT/FunctionCompiler.h"
#include "ember/Trace/FunctionBuilder.h"

#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace ember::detail {

class Tracer {
public:
  explicit Tracer(std::string name) : name_(std::move(name)), builder_(name_) {}

  /// Exporting (Function::export_mlir): the variables a function reads
  /// become constants named after them (their values now) instead of
  /// arguments, and assigning one is an error.
  void readVariablesAsWeights() { variablesAsWeights_ = true; }
  /// Whether the function is exported: inference code, which nothing
  /// differentiates (custom gradients are left out of it).
  bool exporting() const { return variablesAsWeights_; }

  const std::string &name() const { return name_; }
  /// A symbolic tensor for a new function argument.
  Tensor argument(DType dtype, const Shape &shape);
  /// Makes the concrete tensor `impl` stand for value `id` (a GradientTape
  /// replaying its recording binds the values it recorded).
  void bind(const TensorImpl *impl, int id) { bindings_[impl] = id; }
  /// The value `impl` is bound to, or -1.
  int bound(const TensorImpl *impl) const {
    auto it = bindings_.find(impl);
    return it == bindings_.end() ? -1 : it->second;
  }
  /// Restores what bound() returned (-1: unbound).
  void rebind(const TensorImpl *impl, int id) {
    if (id < 0)
      bindings_.erase(impl);
    else
      bindings_[impl] = id;
  }
  /// The value id of `tensor` in this function (a constant if it is concrete
  /// and not bound).
  int valueOf(const Tensor &tensor, const SourceLoc &loc);
  /// Appends `op` on `inputs`; returns the symbolic result. Throws OpError.
  Tensor addOp(const OpDef &op, std::span<const int64_t> attrWords,
               std::span<const Tensor *const> inputs, const trace::TensorSpec *resultType,
               const SourceLoc &loc);
  /// Appends `broadcastOp` (ember.broadcast_to) of `x` to `shape`, whose
  /// kNone dims take their sizes from the first of `sources` with a kNone
  /// dim aligned with them. Throws OpError when none has one.
  Tensor addBroadcast(const OpDef &broadcastOp, const Tensor &x, const Shape &shape,
                      std::span<const Tensor *const> sources, const SourceLoc &loc);
  /// Appends `op` on `inputs`, whose result has `shape` and `dtype`, each
  /// kNone dim d of `shape` sized at run time by `like`'s dim d, or by its
  /// dim likeDims[d] where given (ember.iota, ember.reshape with sizes).
  Tensor addSizedLike(const OpDef &op, std::span<const int64_t> attrWords,
                      std::span<const Tensor *const> inputs, const Shape &shape, DType dtype,
                      const Tensor &like, const SourceLoc &loc, std::span<const int> likeDims = {});
  /// Appends `op`, which has no results and runs for its effect (print).
  void addEffect(const OpDef &op, std::span<const int64_t> attrWords,
                 std::span<const Tensor *const> inputs, const SourceLoc &loc);
  trace::FunctionBuilder &builder() { return builder_; }

private:
  /// Appends `op` on the values `operands`; the symbolic result, marked with
  /// the user's line. Throws OpError.
  Tensor appendOp(const OpDef &op, std::span<const int64_t> attrWords,
                  std::span<const int> operands, const trace::TensorSpec *resultType,
                  const SourceLoc &loc);

public:
  /// Marks the tracing of a region (variables cannot be assigned there,
  /// unless a VariableFrame collects the assignments).
  class RegionScope {
  public:
    explicit RegionScope(Tracer &tracer) : tracer_(tracer) { ++tracer_.regionDepth_; }
    ~RegionScope() { --tracer_.regionDepth_; }

  private:
    Tracer &tracer_;
  };

  /// Collects the variables assigned while tracing a cond branch or a loop
  /// body (the innermost region): inside it, reads see the assigned values;
  /// when it ends the variables read their values from before again, and the
  /// caller makes the assigned values results of the scf op (loop-carried
  /// for loops), assigning those after it.
  class VariableFrame {
  public:
    explicit VariableFrame(Tracer &tracer);
    ~VariableFrame();
    VariableFrame(const VariableFrame &) = delete;
    VariableFrame &operator=(const VariableFrame &) = delete;
    /// Makes `variable` read `value` inside the frame (a loop-carried
    /// region argument), restored when the frame ends.
    void setValue(const std::shared_ptr<VariableState> &variable, const Tensor &value);
    /// The variables assigned in the frame, in first-assignment order.
    const std::vector<std::shared_ptr<VariableState>> &assigned() const { return assigned_; }

  private:
    friend class Tracer;
    void save(const std::shared_ptr<VariableState> &variable);
    Tracer &tracer_;
    int depth_;
    std::vector<std::shared_ptr<VariableState>> assigned_;
    std::vector<std::pair<std::shared_ptr<VariableState>, Tensor>> saved_;
  };

  /// While it lives, the variables `read` read `values` instead of becoming
  /// arguments, and what the trace assigns to `assigned` is undone when it
  /// ends: a GradientTape tracing again an ember::function call it recorded,
  /// on the values that call read.
  class CallVariables {
  public:
    CallVariables(Tracer &tracer, const std::vector<std::shared_ptr<VariableState>> &read,
                  std::span<const Tensor> values,
                  const std::vector<std::shared_ptr<VariableState>> &assigned);
    ~CallVariables();
    CallVariables(const CallVariables &) = delete;
    CallVariables &operator=(const CallVariables &) = delete;

  private:
    Tracer &tracer_;
    std::vector<std::pair<const VariableState *, std::optional<Tensor>>> saved_;
    size_t written_;
  };

  /// Variables: the first read of a variable makes its value an argument
  /// (after the function's own); an assignment records the new value, which
  /// becomes an extra result.
  Tensor readVariable(const std::shared_ptr<VariableState> &variable);
  void writeVariable(const std::shared_ptr<VariableState> &variable, const Tensor &value);
  /// Variables read before written, in argument order.
  const std::vector<std::shared_ptr<VariableState>> &variableInputs() const {
    return variableInputs_;
  }
  /// Variables assigned, with their final values, in first-assignment order.
  std::vector<std::pair<std::shared_ptr<VariableState>, Tensor>> variableOutputs() const;

private:
  std::string name_;
  trace::FunctionBuilder builder_;
  std::unordered_map<const TensorImpl *, int> constants_;
  bool variablesAsWeights_ = false;
  std::unordered_map<const TensorImpl *, int> bindings_;
  std::vector<Tensor> captured_; // keeps captured tensors (and their ids' keys) alive
  std::vector<std::shared_ptr<VariableState>> variableInputs_;
  std::vector<std::shared_ptr<VariableState>> variablesWritten_;
  std::unordered_map<const VariableState *, Tensor> variableValues_;
  int regionDepth_ = 0;
  std::vector<VariableFrame *> frames_;
};

/// Symbolic tensors for the ids of a region's arguments or an op's results.
inline std::vector<Tensor> symbolic(Tracer &tracer, const std::vector<int> &ids,
                                    const std::vector<trace::TensorSpec> &specs) {
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < ids.size(); ++i)
    tensors.push_back(newSymbolicTensor(shapeOf(specs[i]), specs[i].dtype, &tracer, ids[i]));
  return tensors;
}

/// Left by an exception, abandons the regions begun in its scope (innermost
/// constructs first, as the stack unwinds).
class RegionGuard {
public:
  explicit RegionGuard(Tracer &tracer)
      : builder_(tracer.builder()), mark_(builder_.regionCount()),
        exceptions_(std::uncaught_exceptions()) {}
  ~RegionGuard() {
    if (std::uncaught_exceptions() > exceptions_)
      builder_.abandonRegions(mark_);
  }
  RegionGuard(const RegionGuard &) = delete;
  RegionGuard &operator=(const RegionGuard &) = delete;

private:
  trace::FunctionBuilder &builder_;
  int mark_, exceptions_;
};

/// Traces `region` (called with the region's argument tensors) into a new
/// region of the builder (control-flow bodies, functions differentiated
/// inside a trace); returns its handle.
template <typename Body>
int traceRegion(Tracer &tracer, const std::vector<trace::TensorSpec> &argumentTypes, Body &&region,
                const SourceLoc &loc) {
  std::vector<int> argumentIds = tracer.builder().beginRegion(argumentTypes);
  Tracer::RegionScope scope(tracer);
  std::vector<Tensor> yields = region(symbolic(tracer, argumentIds, argumentTypes));
  std::vector<int> yieldIds;
  for (const Tensor &t : yields)
    yieldIds.push_back(tracer.valueOf(t, loc));
  return tracer.builder().endRegion(yieldIds);
}

/// The tracer of the function being traced on this thread, or null.
Tracer *currentTracer();

/// Makes `tracer` current for its lifetime (traces nest: an ember::function
/// called while tracing another is traced into the outer one).
class TracingScope {
public:
  explicit TracingScope(Tracer *tracer);
  ~TracingScope();
  TracingScope(const TracingScope &) = delete;
  TracingScope &operator=(const TracingScope &) = delete;

private:
  Tracer *previous_;
};

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_TRACER_H
