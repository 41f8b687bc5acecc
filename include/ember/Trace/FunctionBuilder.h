//===- FunctionBuilder.h - build an ember function -----------------*- C++ -*-===//
//
// Builds a `func.func` of ember ops one op at a time, as the front end's
// tracer (and, for one op, the eager dispatcher) calls them; the JIT compiles
// the result (jit::compileFunction, ember/JIT/FunctionCompiler.h). Values are
// named by integer ids. The interface has no MLIR types and never throws;
// failures are diagnostic text ("file:line:col: error: 'ember.x' op ...").
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_TRACE_FUNCTIONBUILDER_H
#define EMBER_TRACE_FUNCTIONBUILDER_H

#include "ember/Trace/Types.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ember::trace {

/// One op to add: its MLIR name, attributes as words per the schema, and an
/// explicit result type for ops whose result does not follow from operands.
struct OpCall {
  std::string_view opName;
  std::span<const AttrSchema> attrSchema;
  std::span<const int64_t> attrWords;
  const TensorSpec *resultType = nullptr;
  SourceLocation loc;
  bool noResults = false; ///< an op run for its effect (ember.print)
};

class FunctionBuilder {
public:
  /// `name` is the function's symbol (for IR dumps and error messages).
  explicit FunctionBuilder(std::string_view name);
  ~FunctionBuilder();
  FunctionBuilder(const FunctionBuilder &) = delete;
  FunctionBuilder &operator=(const FunctionBuilder &) = delete;

  /// A new argument of type `spec`; returns its value id.
  int addArgument(const TensorSpec &spec);
  /// A constant holding `spec.numElements()` values of spec.dtype at `data`.
  int addConstant(const TensorSpec &spec, const void *data);
  /// The run-time size of dim `dim` of tensor `id` (a `tensor.dim`), an
  /// `index` value for the size operands of ops with dynamic results
  /// (ember.broadcast_to).
  int addDim(int id, int dim);
  /// Marks constant `id` as the weight `name` (`ember.weight = "name"` on
  /// it): a variable's value in an exported function. Weights of at least
  /// kResourceWeightMinElements elements (not bool, not all one value)
  /// become `dense_resource<name>` blobs.
  void nameWeight(int id, std::string_view name);
  static constexpr int64_t kResourceWeightMinElements = 64;
  /// Adds `call` applied to the values `operands`. On success returns the
  /// result's id and sets `result` to its type (0 for ops without results);
  /// on failure returns -1 and sets `error` (the op is not added).
  int addOp(const OpCall &call, std::span<const int> operands, TensorSpec &result,
            std::string &error);

  // Structured control flow (scf.if / scf.while / scf.for on tensors). Ops
  // added between beginRegion and endRegion go into a new region whose block
  // has arguments of `argumentTypes` (their ids are returned); endRegion
  // records the values the region yields and returns the region's handle,
  // which one of the add* calls below then consumes. Values defined inside a
  // region cannot be used after it ends.
  std::vector<int> beginRegion(std::span<const TensorSpec> argumentTypes);
  int endRegion(std::span<const int> yields);
  /// Adds `yields` (values defined outside the region, or inside it) to what
  /// ended region `handle` yields.
  void appendYields(int handle, std::span<const int> yields);
  /// Drops ended region `handle` unused (its ops, and their uses of values
  /// outside it); values defined in it are never in scope again.
  void discardRegion(int handle);
  /// How many regions were begun so far (a mark for abandonRegions).
  int regionCount() const;
  /// After a trace threw: drops the regions begun since `mark` that no add*
  /// call took, as discardRegion, closing those still open.
  void abandonRegions(int mark);
  /// if (condition, a 0-d bool) then `thenRegion` else `elseRegion`; both
  /// yield values of the same types, which become the results.
  bool addIf(int condition, int thenRegion, int elseRegion, const SourceLocation &loc,
             std::vector<int> &results, std::vector<TensorSpec> &resultTypes, std::string &error);
  /// while (`before`(vars) yields a 0-d bool) vars = `after`(vars); both regions
  /// take the loop variables, initially `init`.
  bool addWhile(std::span<const int> init, int before, int after, const SourceLocation &loc,
                std::vector<int> &results, std::vector<TensorSpec> &resultTypes,
                std::string &error);
  /// for i in [lower, upper): vars = `body`(i, vars); the body's first
  /// argument is i as a 0-d int64 tensor.
  bool addFor(int64_t lower, int64_t upper, std::span<const int> init, int body,
              const SourceLocation &loc, std::vector<int> &results,
              std::vector<TensorSpec> &resultTypes, std::string &error);

  /// value_and_grad traced inside this function: ended region `function`
  /// (the differentiated function, traced with one argument per `operands`
  /// value) becomes a private function marked ember.differentiate = `wrt`,
  /// called here through its derivative `<name>_vjp` (declared now,
  /// generated by ember-autodiff) with cotangents of ones. Values the region
  /// uses from this function become extra arguments. `results` are the
  /// region's results, then the gradient for each `wrt` argument.
  bool addGradientCall(int function, std::span<const int> operands, std::span<const int64_t> wrt,
                       const SourceLocation &loc, std::vector<int> &results,
                       std::vector<TensorSpec> &resultTypes, std::string &error);

  /// How many values the function has so far: a position in the order it was
  /// built (a GradientTape traced inside the function records the ops whose
  /// values were added between two positions).
  int valueCount() const;
  /// A GradientTape's gradient traced inside this function: the derivative
  /// of `target` (of its sum) with respect to `sources`, through the ops
  /// whose results were added at positions in [begin, end) (what the tape
  /// recorded; other values are constants to it). The recorded ops that
  /// compute the target from the sources are copied into a function of the
  /// sources, called through its derivative as in addGradientCall: every use
  /// of a source reads the argument given for it. `results` are the target,
  /// then the gradient for each source listed in `wrt` (indices into
  /// `sources`, float tensors). `connected` (if given) tells, per source,
  /// whether the target depends on it through those ops (or is it).
  bool addTapeGradient(int target, std::span<const int> sources, std::span<const int64_t> wrt,
                       int begin, int end, const SourceLocation &loc, std::vector<int> &results,
                       std::vector<TensorSpec> &resultTypes, std::string &error,
                       std::vector<bool> *connected = nullptr);

  /// For a derivative (compiled with differentiateWrt): the caller will pass
  /// `value` itself, so the derivative takes it as an argument instead of
  /// recomputing it (ember.forward_value). Returns its number among those
  /// extra arguments (they follow the cotangents), or -1 when `value` cannot
  /// be given (a function argument, or already given).
  int giveForwardValue(int value);

  /// `value` with a user-defined gradient: `backward` (a region taking the
  /// result's cotangent) yields one cotangent per `inputs` value. Returns the
  /// result's id, or -1 with `error` set.
  int addCustomGradient(int value, std::span<const int> inputs, int backward,
                        const SourceLocation &loc, std::string &error);

  /// The function as built so far, returning `results`, in MLIR text with
  /// source locations.
  std::string text(std::span<const int> results);
  struct Impl; // public so that the implementation's helpers can name it
  Impl &impl() { return *impl_; } ///< for FinishedFunction.h's functions

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace ember::trace

#endif // EMBER_TRACE_FUNCTIONBUILDER_H
