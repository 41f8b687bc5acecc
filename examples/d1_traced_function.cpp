// Story D1: a regular C++ function of tensors and its traced version give
// identical results; the inner functions it calls become part of one graph.
#include "ember/ember.h"

#include <iostream>

using ember::Tensor;

// Inner functions: plain C++, traced into the caller's graph.
Tensor dense(const Tensor &x, const Tensor &w, const Tensor &b) {
  return ember::relu(ember::matmul(x, w) + b);
}

Tensor mlp(const Tensor &x, const Tensor &w1, const Tensor &b1, const Tensor &w2,
           const Tensor &b2) {
  return ember::reduce_sum(dense(dense(x, w1, b1), w2, b2), {1});
}

int main() {
  Tensor x = ember::random_uniform({3, 4}, /*seed=*/1, -1, 1);
  Tensor w1 = ember::random_uniform({4, 5}, 2, -1, 1), b1 = ember::random_uniform({5}, 3);
  Tensor w2 = ember::random_uniform({5, 2}, 4, -1, 1), b2 = ember::random_uniform({2}, 5);

  auto traced = ember::function(mlp, "mlp");
  Tensor eager = mlp(x, w1, b1, w2, b2);
  Tensor graph = traced(x, w1, b1, w2, b2);
  std::cout << "eager:  " << eager.values_string() << "\n";
  std::cout << "traced: " << graph.values_string() << "\n";
  bool same = bool(ember::reduce_max(ember::abs(eager - graph)) < 1e-5f);
  std::cout << "identical results: " << std::boolalpha << same << "\n";

  // A second call with the same signature runs the compiled graph: no trace.
  traced(x * 2, w1, b1, w2, b2);
  for (const auto &concrete : traced.concrete_functions())
    std::cout << "concrete function: " << concrete.signature << "\n";
  return same ? 0 : 1;
}
