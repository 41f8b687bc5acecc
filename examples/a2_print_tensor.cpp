// Story A2: printing a tensor shows its values, shape and dtype, numpy-style.
#include "ember/ember.h"

#include <iostream>

int main() {
  ember::Tensor a = {{1, 2}, {3, 4}};
  std::cout << a << "\n";
  std::cout << a.values_string() << "\n";
  std::cout << "shape=" << a.shape() << " dtype=" << ember::dtypeName(a.dtype()) << "\n";
  std::cout << ember::Tensor({1.5, 2.25, 3.0}) << "\n";
  std::cout << ember::Tensor(7) << "\n";
}
