//===- print_npy.cpp - print .npy files as ember prints tensors -----------===//
//
// For compare_with_numpy.py: prints each .npy file named on the command line
// the way print(tensor.values_string()) shows it, one record per file, each
// ended by an ASCII record separator (values_string spans several lines).
//
//===----------------------------------------------------------------------===//

#include "ember/ember.h"

#include <iostream>

int main(int argc, char **argv) {
  try {
    for (int i = 1; i < argc; ++i)
      std::cout << ember::load_npy(argv[i]).values_string() << '\x1e';
  } catch (const ember::Error &e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
  return 0;
}
