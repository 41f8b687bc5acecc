//===- GradientTape.h - gradients of eager code -------------------*- C++ -*-===//
//
// While a GradientTape is alive on a thread, the eager ops run there are
// recorded (compactly: op, attributes, operands). gradient(target, sources)
// turns the recording into an ember function, differentiates it with the
// ember-autodiff pass, compiles it and runs it. Recordings with the same
// structure (ops, attributes, shapes) reuse one compiled function, so a
// training loop compiles its backward pass once.
//
// Inside an ember::function the tape records the traced ops instead, and
// gradient() traces the derivative into the function (ember-autodiff
// differentiates what the tape recorded): a whole training step (tape,
// loss, gradients, optimizer update) is one compiled function, as with a
// tf.GradientTape inside a tf.function.
//
//   ember::Variable w(ember::Tensor({{1.f}}));
//   ember::GradientTape tape;
//   ember::Tensor loss = w * w;
//   std::vector<std::optional<ember::Tensor>> grads = tape.gradient(loss, {w}); // {[[2.]]}
//   ember::Tensor dw = *grads[0];
//
// As in TensorFlow, a source the target does not depend on has no gradient
// (std::nullopt), unless zeros are asked for (then the result is a
// std::vector<Tensor>): tape.gradient(loss, {w, b}, ember::UnconnectedGradients::Zero).
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_GRADIENTTAPE_H
#define EMBER_GRADIENTTAPE_H

#include "ember/Frontend/Ops.h"
#include "ember/Frontend/Variable.h"

#include <initializer_list>
#include <memory>
#include <optional>
#include <vector>

namespace ember {

namespace detail {
struct TapeRecording;
} // namespace detail

/// What GradientTape::gradient gives for a source the target does not depend
/// on (tf.UnconnectedGradients). Each choice is a type of its own, so that the
/// result's type follows it: `None` (the default, as TensorFlow) gives
/// std::nullopt for such a source, in a std::vector<std::optional<Tensor>>;
/// `Zero` gives zeros of the source's shape and dtype, in a
/// std::vector<Tensor>:
///   std::vector<Tensor> g = tape.gradient(loss, {w, b}, ember::UnconnectedGradients::Zero);
struct UnconnectedGradients {
  struct NoneChoice {};
  struct ZeroChoice {};
  static constexpr NoneChoice None{};
  static constexpr ZeroChoice Zero{};
};

/// A source of GradientTape::gradient: a Tensor, or a Variable (whose value
/// when the tape read it is the source).
class GradientSource {
public:
  GradientSource(const Tensor &tensor) : tensor_(tensor) {}
  GradientSource(const Variable &variable) : variable_(variable.state()) {}

  /// Internal: the tensor, or the variable's state.
  const Tensor &tensor() const { return tensor_; }
  const std::shared_ptr<detail::VariableState> &variable() const { return variable_; }

private:
  Tensor tensor_;
  std::shared_ptr<detail::VariableState> variable_;
};

/// The sources of GradientTape::gradient, in order: a braced list of Tensors
/// and Variables (`{w, b}`, `{x}`), or a std::vector of either.
class GradientSources {
public:
  GradientSources(std::initializer_list<GradientSource> sources) : sources_(sources) {}
  GradientSources(const std::vector<Tensor> &sources) : sources_(sources.begin(), sources.end()) {}
  GradientSources(const std::vector<Variable> &sources)
      : sources_(sources.begin(), sources.end()) {}
  GradientSources(std::vector<GradientSource> sources) : sources_(std::move(sources)) {}

  const std::vector<GradientSource> &list() const { return sources_; }

private:
  std::vector<GradientSource> sources_;
};

class GradientTape {
public:
  /// A non-persistent tape answers one gradient() call; a persistent one, many.
  explicit GradientTape(bool persistent = false);
  virtual ~GradientTape();
  GradientTape(const GradientTape &) = delete;
  GradientTape &operator=(const GradientTape &) = delete;

  /// Gradients of `target` (summed if not a scalar) with respect to each
  /// source, in order: std::nullopt for a source the target does not depend
  /// on (or an integer source), as TensorFlow's None. Variables read while
  /// the tape was recording are watched automatically (one assigned between
  /// two reads gets the sum of both values' gradients, as in TensorFlow);
  /// plain tensors are sources as they are (watch() is accepted for symmetry
  /// with TensorFlow).
  /// (Virtual, as Horovod's DistributedGradientTape overrides TensorFlow's:
  /// ember::distributed::DistributedGradientTape reduces them over processes.)
  virtual std::vector<std::optional<Tensor>> gradient(const Tensor &target,
                                                      const GradientSources &sources,
                                                      UnconnectedGradients::NoneChoice = {},
                                                      EMBER_LOC);
  /// The same, with zeros (of the source's shape and dtype) where there is
  /// no gradient: every entry is a Tensor.
  virtual std::vector<Tensor> gradient(const Tensor &target, const GradientSources &sources,
                                       UnconnectedGradients::ZeroChoice, EMBER_LOC);
  void watch(const Tensor &tensor);
  void watch(const Variable &variable);
  /// Stops recording (ops after this are not on the tape).
  void stop_recording();

private:
  /// The gradients, with `connected[i]` false where source i has none (zeros then).
  std::vector<Tensor> gradients(const Tensor &target, const std::vector<Tensor> &sources,
                                std::vector<bool> &connected, SourceLoc loc);
  /// gradients() of `sources` as given (a variable's summed over the values
  /// the tape read of it); `values` gets each source's (last) value.
  std::vector<Tensor> sourceGradients(const Tensor &target, const GradientSources &sources,
                                      std::vector<Tensor> &values, std::vector<bool> &connected,
                                      SourceLoc loc);

  std::unique_ptr<detail::TapeRecording> recording_;
};

/// `x`, as a constant for differentiation: no gradient flows through it, on a
/// GradientTape or in a traced value_and_grad.
Tensor stop_gradient(const Tensor &x);

} // namespace ember

#endif // EMBER_GRADIENTTAPE_H
