// One SGD training step of an MLP 784-256-256-10 (ReLU, softmax cross-entropy,
// batch 64), issue 4's figure: traced (the whole step: value_and_grad and the
// update in one compiled function; also value_and_grad with an eager update)
// and eager under a GradientTape.
#include "bench_util.h"

#include "ember/ember.h"

using namespace ember;

namespace {
Tensor crossEntropy(const Tensor &logits, const Tensor &labels) {
  Tensor shifted = logits - reduce_max(logits, {1}, true);
  Tensor logProbs = shifted - log(reduce_sum(exp(shifted), {1}, true));
  return -reduce_mean(reduce_sum(labels * logProbs, {1}));
}

Tensor mlp(const Tensor &x, const Tensor &w1, const Tensor &b1, const Tensor &w2,
           const Tensor &b2, const Tensor &w3, const Tensor &b3) {
  Tensor h1 = relu(matmul(x, w1) + b1);
  Tensor h2 = relu(matmul(h1, w2) + b2);
  return matmul(h2, w3) + b3;
}
} // namespace

int main() {
  const float lr = 0.01f;
  Tensor x = random_uniform({64, 784}, 1), labels = cast(equal(reshape(arange(0, 640) % 10, {64, 10}), Tensor(3)), DType::Float32);
  std::vector<Tensor> params = {random_normal({784, 256}, 2, 0, 0.05), zeros({256}),
                                random_normal({256, 256}, 3, 0, 0.05), zeros({256}),
                                random_normal({256, 10}, 4, 0, 0.05), zeros({10})};

  // Traced: the loss and its gradients (parameters only, as LibTorch computes)
  // in one compiled function...
  auto lossAndGrads = value_and_grad(
      [](const Tensor &w1, const Tensor &b1, const Tensor &w2, const Tensor &b2, const Tensor &w3,
         const Tensor &b3, const Tensor &input, const Tensor &target) {
        return crossEntropy(mlp(input, w1, b1, w2, b2, w3, b3), target);
      },
      Argnums{0, 1, 2, 3, 4, 5}, "mlp_loss");
  auto gradStep = [&] {
    ValueAndGrad r = lossAndGrads(params[0], params[1], params[2], params[3], params[4], params[5], x, labels);
    for (size_t i = 0; i < params.size(); ++i)
      params[i] = params[i] - r.gradients[i] * lr;
    return r.value;
  };
  gradStep();
  bench::report("ember.mlp_grad_eager_update_step", bench::medianSeconds(7, 10, gradStep) * 1e3, "ms");

  // ... and the whole step traced (as jax.jit of a train step): value_and_grad
  // inside an ember::function that updates variables, one compiled function.
  std::vector<Variable> tracedVars;
  for (const Tensor &p : params)
    tracedVars.emplace_back(p);
  auto tracedStep = function(
      [&](const Tensor &input, const Tensor &target) {
        ValueAndGrad r = lossAndGrads(tracedVars[0].value(), tracedVars[1].value(),
                                      tracedVars[2].value(), tracedVars[3].value(),
                                      tracedVars[4].value(), tracedVars[5].value(), input, target);
        for (size_t i = 0; i < tracedVars.size(); ++i)
          tracedVars[i].assign_sub(r.gradients[i] * lr);
        return r.value;
      },
      "train_step");
  double start = bench::now();
  tracedStep(x, labels);
  bench::report("ember.mlp_traced_first_step", (bench::now() - start) * 1e3, "ms");
  bench::report("ember.mlp_traced_step",
                bench::medianSeconds(7, 10, [&] { return tracedStep(x, labels); }) * 1e3, "ms");

  // Eager under a GradientTape, with variables.
  std::vector<Variable> vars;
  for (const Tensor &p : params)
    vars.emplace_back(p);
  auto tapeStep = [&] {
    GradientTape tape;
    Tensor loss = crossEntropy(mlp(x, vars[0], vars[1], vars[2], vars[3], vars[4], vars[5]), labels);
    std::vector<Tensor> grads = tape.gradient(loss, vars, UnconnectedGradients::Zero);
    for (size_t i = 0; i < vars.size(); ++i)
      vars[i].assign_sub(grads[i] * lr);
    return loss;
  };
  tapeStep();
  KernelCacheStats before = kernel_cache_stats();
  bench::report("ember.mlp_tape_step", bench::medianSeconds(7, 10, tapeStep) * 1e3, "ms");
  KernelCacheStats after = kernel_cache_stats();
  bench::report("ember.mlp_tape_compiles_after_first_step",
                static_cast<double>(after.misses - before.misses + after.tape_compiles - before.tape_compiles),
                "compiles");
}
