// Story A1: eager execution is the default; an op returns its value at once.
#include "ember/ember.h"

#include <iostream>

int main() {
  std::cout << std::boolalpha << "executing eagerly: " << ember::executing_eagerly() << "\n";
  ember::Tensor m = ember::matmul({{2.}}, {{2.}});
  std::cout << "hello, " << m << "\n";
  std::cout << m.values_string() << "\n";
}
