// Story D8: power(x, 100) multiplies a 10x10 int32 matrix 100 times; 1000
// calls eagerly and traced. Tracing costs time once; later calls are cheap.
#include "ember/ember.h"

#include <chrono>
#include <iostream>

using ember::Tensor;

Tensor power(const Tensor &x, int y) {
  Tensor result = ember::eye(10, ember::DType::Int32);
  for (int i = 0; i < y; ++i)
    result = ember::matmul(result, x);
  return result;
}

template <typename F>
double seconds(F &&f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int main() {
  Tensor x = ember::random_uniform({10, 10}, /*seed=*/0, 0, 2, ember::DType::Int32);
  auto traced = ember::function(power, "power");

  Tensor eagerResult = power(x, 100); // warm the eager kernel cache
  double eager = seconds([&] {
    for (int i = 0; i < 1000; ++i)
      eagerResult = power(x, 100);
  });
  double first = seconds([&] { traced(x, 100); });
  Tensor tracedResult;
  double warm = seconds([&] {
    for (int i = 0; i < 1000; ++i)
      tracedResult = traced(x, 100);
  });
  bool same = bool(ember::reduce_max(ember::abs(eagerResult - tracedResult)) == 0);
  std::cout << "results identical: " << std::boolalpha << same << "\n";
  std::cout << "eager:  1000 calls in " << eager << " s\n";
  std::cout << "traced: first call (trace + compile) " << first << " s, then 1000 calls in "
            << warm << " s\n";
  auto concrete = traced.concrete_functions().front();
  std::cout << "concrete function: " << concrete.signature << " (traced in "
            << concrete.trace_seconds << " s, compiled in " << concrete.compile_seconds
            << " s)\n";
  return same ? 0 : 1;
}
