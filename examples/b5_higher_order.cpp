// Story B5: stop_gradient, and gradients of gradients — traced (grad of grad,
// a Hessian-vector product through matmul) and on nested GradientTapes.
#include "ember/ember.h"

#include <iostream>

using namespace ember;

int main() {
  // f(x) = sum(x^3): f' = 3x^2, f'' = 6x, f''' = 6.
  auto f = [](const Tensor &x) { return reduce_sum(x * x * x); };
  // grad of a function of one Tensor is a Tensor-valued function: grads compose
  // (the gradient of a non-scalar function is that of its sum).
  auto df = grad(f, "f");
  auto d2f = grad(df, "df");
  auto d3f = grad(d2f, "d2f");
  Tensor x({1.f, 2.f, 3.f});
  std::cout << "f'(x)   = " << df(x).values_string() << "\n";
  std::cout << "f''(x)  = " << d2f(x).values_string() << "\n";
  std::cout << "f'''(x) = " << d3f(x).values_string() << "\n";

  // The same with tapes: the outer tape records the inner tape's gradient.
  Variable v(x, "v");
  GradientTape outer;
  std::vector<std::optional<Tensor>> first;
  {
    GradientTape inner;
    first = inner.gradient(reduce_sum(v * v * v), {v});
  }
  std::cout << "tapes: f''(x) = "
            << outer.gradient(reduce_sum(*first[0]), {v})[0]->values_string() << "\n";

  // A Hessian-vector product of a layer's loss with respect to its weights:
  // d/dW <dL/dW, u>, for L(W) = sum(relu(x @ W)^2) / 2 (Hessian = x^T x per
  // active column).
  Tensor input({{1.f, 2.f}, {3.f, 4.f}}), w({{1.f, -1.f}, {0.5f, 1.f}}), u({{1.f, 0.f}, {0.f, 1.f}});
  auto loss = [](const Tensor &w, const Tensor &x) {
    Tensor h = relu(matmul(x, w));
    return reduce_sum(h * h) * 0.5f;
  };
  // (An int argnum, as JAX's: the gradient of that argument alone, a Tensor.)
  auto gradient = grad(loss, 0, "layer");
  auto hvp = grad([&](const Tensor &w, const Tensor &x) { return reduce_sum(gradient(w, x) * u); },
                  0, "layer_hvp");
  std::cout << "Hessian-vector product: " << hvp(w, input).values_string() << "\n";

  // stop_gradient: x * stop_gradient(x) differentiates as x * c.
  auto stopped = grad([](const Tensor &x) { return reduce_sum(x * stop_gradient(x)); }, "stopped");
  std::cout << "d/dx sum(x * stop_gradient(x)) = " << stopped(x).values_string() << "\n";
}
