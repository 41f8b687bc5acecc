// Story C1: linear regression with variables. y = 3x + 2 plus unit normal
// noise; a model W*x + B from W=5, B=10; MSE; SGD with learning rate 0.01.
#include "ember/ember.h"

#include <cstdio>

int main() {
  const int64_t examples = 2000;
  ember::Tensor x = ember::random_normal({examples}, /*seed=*/1);
  ember::Tensor noise = ember::random_normal({examples}, /*seed=*/2);
  ember::Tensor y = x * 3.f + 2.f + noise;

  ember::Variable W(ember::Tensor(5.f), "W"), B(ember::Tensor(10.f), "B");
  auto model = [&](const ember::Tensor &inputs) { return inputs * W + B; };
  auto loss = [](const ember::Tensor &target, const ember::Tensor &predicted) {
    return ember::reduce_mean(ember::square(target - predicted));
  };

  std::printf("Initial loss: %.3f\n", loss(y, model(x)).item<float>());
  const float learningRate = 0.01f;
  for (int step = 0; step < 300; ++step) {
    ember::GradientTape tape;
    ember::Tensor current = loss(y, model(x));
    auto grads = tape.gradient(current, {W, B});
    W.assign_sub(*grads[0] * learningRate);
    B.assign_sub(*grads[1] * learningRate);
    if (step % 20 == 0)
      std::printf("Loss at step %03d: %.3f\n", step, current.item<float>());
  }
  std::printf("Final loss: %.3f\n", loss(y, model(x)).item<float>());
  std::printf("W = %.3f, B = %.3f\n", W.value().item<float>(), B.value().item<float>());
  ember::KernelCacheStats stats = ember::kernel_cache_stats();
  std::printf("backward compiled %llu time(s) for 300 steps\n",
              static_cast<unsigned long long>(stats.tape_compiles));
}
