// Story A1: eager execution is the default; an op returns its value at once.
#include "ember/ember.h"

#include <iostream>

int main() {
  std::cout << std::boolalpha << "executing eagerly: " << ember::executing_eagerly() << "\n";
  ember::Tensor x = {{2.}};
  ember::Tensor m = ember::matmul(x, x);
  std::cout << "hello, " << m << "\n";
  std::cout << m.values_string() << "\n";
}
