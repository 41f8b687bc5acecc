// A C++ program outside ember's tree using the installed JIT (ember::ember):
// an eager op and a traced function, compiled when first called.
#include "ember/ember.h"

#include <iostream>

int main() {
  ember::Tensor x({1.f, 2.f, 3.f});
  ember::Tensor eager = x * 2.f + 1.f;
  auto square = ember::function([](const ember::Tensor &t) { return t * t; }, "square");
  ember::Tensor traced = square(x);
  std::cout << "eager " << eager.to_vector<float>()[2] << " traced " << traced.to_vector<float>()[2]
            << "\n";
}
