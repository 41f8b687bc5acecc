// Story A4: operator overloading; `*` is elementwise.
#include "ember/ember.h"

#include <iostream>

int main() {
  ember::Tensor a = {{1, 2}, {3, 4}};
  ember::Tensor b = a + 1;
  std::cout << a * b << "\n";
  std::cout << ember::matmul(a, b) << "\n";
  std::cout << -a << "\n";
  std::cout << (a > 2) << "\n";
  std::cout << a % 3 << "\n";
}
