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
//   std::vector<ember::Tensor> grads = tape.gradient(loss, {w}); // {[[2.]]}
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_GRADIENTTAPE_H
#define EMBER_GRADIENTTAPE_H

#include "ember/Ops.h"
#include "ember/Variable.h"

#include <memory>
#include <vector>

namespace ember {

namespace detail {
struct TapeRecording;
} // namespace detail

class GradientTape {
public:
  /// A non-persistent tape answers one gradient() call; a persistent one, many.
  explicit GradientTape(bool persistent = false);
  ~GradientTape();
  GradientTape(const GradientTape &) = delete;
  GradientTape &operator=(const GradientTape &) = delete;

  /// Gradients of `target` (summed if not a scalar) with respect to each
  /// source: zeros for a source the target does not depend on. Variables
  /// read while the tape was recording are watched automatically; plain
  /// tensors are sources as they are (watch() is accepted for symmetry with
  /// TensorFlow).
  std::vector<Tensor> gradient(const Tensor &target, const std::vector<Tensor> &sources,
                               EMBER_LOC);
  std::vector<Tensor> gradient(const Tensor &target, const std::vector<Variable> &sources,
                               EMBER_LOC);
  void watch(const Tensor &tensor);
  void watch(const Variable &variable);
  /// Stops recording (ops after this are not on the tape).
  void stop_recording();

private:
  std::unique_ptr<detail::TapeRecording> recording_;
};

/// `x`, as a constant for differentiation: no gradient flows through it, on a
/// GradientTape or in a traced value_and_grad.
Tensor stop_gradient(const Tensor &x);

} // namespace ember

#endif // EMBER_GRADIENTTAPE_H
