// Story A6: host control flow on tensor values.
#include "ember/ember.h"

#include <iostream>

void fizzbuzz(int max) {
  ember::Tensor counter(0);
  for (int n = 1; n <= max; ++n) {
    ember::Tensor num(n);
    if (bool(num % 3 == 0) && bool(num % 5 == 0))
      std::cout << "FizzBuzz\n";
    else if (num % 3 == 0)
      std::cout << "Fizz\n";
    else if (num % 5 == 0)
      std::cout << "Buzz\n";
    else
      std::cout << int(num) << "\n";
    counter = counter + 1;
  }
  std::cout << "counted " << int(counter) << " numbers\n";
}

int main() { fizzbuzz(15); }
