// Story B3: backtracking line search, a host loop that calls a function and
// its gradient until a sufficient-decrease condition holds.
#include "ember/ember.h"

#include <cstdio>

using ember::Tensor;

// Rosenbrock's function, summed over pairs.
Tensor rosenbrock(const Tensor &v) {
  Tensor x = ember::slice(v, {0}, {1}), y = ember::slice(v, {1}, {2});
  return ember::reduce_sum(ember::square(1.0 - x) + 100.0 * ember::square(y - x * x));
}

std::pair<Tensor, Tensor> lineSearchStep(const Tensor &start, double rate) {
  ember::GradientTape tape;
  tape.watch(start);
  Tensor value = rosenbrock(start);
  Tensor grad = *tape.gradient(value, {start})[0];
  Tensor gradNorm = ember::reduce_sum(grad * grad);
  Tensor initial = value, x = start;
  while (bool(value > initial - rate * gradNorm)) {
    x = start - rate * grad;
    value = rosenbrock(x);
    rate /= 2.0;
  }
  return {x, value};
}

int main() {
  Tensor x({-1.0, 1.5}, ember::DType::Float64);
  std::printf("start: f = %.4f\n", rosenbrock(x).item<double>());
  for (int step = 1; step <= 200; ++step) {
    auto [next, value] = lineSearchStep(x, 1.0);
    x = next;
    if (step % 50 == 0)
      std::printf("step %3d: f = %.6f at (%.4f, %.4f)\n", step, value.item<double>(),
                  x.to_vector<double>()[0], x.to_vector<double>()[1]);
  }
  bool decreased = rosenbrock(x).item<double>() < 0.05;
  std::printf("converging to the minimum at (1, 1): %s\n", decreased ? "yes" : "no");
  return decreased ? 0 : 1;
}
