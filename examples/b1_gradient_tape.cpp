// Story B1: a tape records operations on a variable; the gradient of w*w is 2w.
#include "ember/ember.h"

#include <iostream>

int main() {
  ember::Variable w(ember::Tensor({{1.0}}), "w");
  ember::GradientTape tape;
  ember::Tensor loss = w * w;
  // One gradient per source; std::nullopt (TensorFlow's None) where loss does not depend on it.
  std::vector<std::optional<ember::Tensor>> grad = tape.gradient(loss, {w});
  std::cout << *grad[0] << "\n";
  try {
    tape.gradient(loss, {w});
  } catch (const ember::Error &e) {
    std::cout << "second request on a non-persistent tape: " << e.what() << "\n";
  }
  ember::GradientTape persistent(/*persistent=*/true);
  ember::Tensor cube = w * w * w;
  std::cout << "d(w^3)/dw = " << persistent.gradient(cube, {w})[0]->item<float>()
            << ", asked twice: "
            << persistent.gradient(cube, {w})[0]->item<float>() << "\n";
  // The same with a traced function: forward and backward compiled together.
  auto squareLoss = ember::value_and_grad([](const ember::Tensor &x) { return ember::reduce_sum(x * x); });
  std::cout << "value_and_grad: " << squareLoss(ember::Tensor({{1.0}})).gradients[0].values_string() << "\n";
}
