//===- mlp.h - the MLP 784-256-256-10 of the GPU tests and benchmarks -----===//
//
// Shared by unittests/GPU/JitTest.cpp (GPU against CPU) and
// bench/gpu/jit_bench.cpp (the traced step's time): softmax cross-entropy,
// the parameters, the labels, and the SGD step traced whole (value_and_grad
// and the variables' updates in one ember::function).
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_BENCH_GPU_MLP_H
#define EMBER_BENCH_GPU_MLP_H

#include "ember/ember.h"

#include <vector>

namespace ember::mlp {

inline Tensor crossEntropy(const Tensor &logits, const Tensor &labels) {
  Tensor shifted = logits - reduce_max(logits, {1}, true);
  Tensor logProbs = shifted - log(reduce_sum(exp(shifted), {1}, true));
  return -reduce_mean(reduce_sum(labels * logProbs, {1}));
}

/// The logits of `x` for parameters {w1, b1, w2, b2, w3, b3}.
inline Tensor forward(const Tensor &x, const std::vector<Tensor> &p) {
  Tensor h1 = relu(matmul(x, p[0]) + p[1]);
  Tensor h2 = relu(matmul(h1, p[2]) + p[3]);
  return matmul(h2, p[4]) + p[5];
}

inline std::vector<Tensor> parameters() {
  return {random_normal({784, 256}, 2, 0, 0.05), zeros({256}),
          random_normal({256, 256}, 3, 0, 0.05), zeros({256}),
          random_normal({256, 10}, 4, 0, 0.05),  zeros({10})};
}

/// One-hot labels for a batch of 64 (class 3 of every 10).
inline Tensor labels() {
  return cast(equal(reshape(arange(0, 640) % 10, {64, 10}), Tensor(3)), DType::Float32);
}

/// The SGD step on `vars` (which must outlive it), traced whole: returns
/// the loss before the update.
inline auto tracedStep(std::vector<Variable> &vars, float learningRate) {
  auto lossAndGrads = value_and_grad(
      [](const Tensor &w1, const Tensor &b1, const Tensor &w2, const Tensor &b2, const Tensor &w3,
         const Tensor &b3, const Tensor &input, const Tensor &target) {
        return crossEntropy(forward(input, {w1, b1, w2, b2, w3, b3}), target);
      },
      Argnums{0, 1, 2, 3, 4, 5}, "mlp_loss");
  return function(
      [&vars, lossAndGrads, learningRate](const Tensor &input, const Tensor &target) {
        ValueAndGrad r = lossAndGrads(vars[0].value(), vars[1].value(), vars[2].value(),
                                      vars[3].value(), vars[4].value(), vars[5].value(), input,
                                      target);
        for (size_t i = 0; i < vars.size(); ++i)
          vars[i].assign_sub(r.gradients[i] * learningRate);
        return r.value;
      },
      "train_step");
}

} // namespace ember::mlp

#endif // EMBER_BENCH_GPU_MLP_H
