// Story A3: broadcasting. A C++ scalar takes the tensor's dtype.
#include "ember/ember.h"

#include <iostream>

int main() {
  ember::Tensor a = {{1, 2}, {3, 4}};
  ember::Tensor b = ember::add(a, ember::Tensor(1));
  std::cout << b << "\n";
  std::cout << a + 1 << "\n";
  ember::Tensor row = {10, 20};
  std::cout << a + row << "\n";
  ember::Tensor column = {{100}, {200}};
  std::cout << a * column << "\n";
}
