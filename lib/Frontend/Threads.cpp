//===- Threads.cpp - how many threads compiled code uses -------------------===//

#include "ember/Frontend/Threads.h"

#include "ember/Frontend/Error.h"
#include "emberrt/runtime.h"

#include <string>

void ember::set_num_threads(int n) {
  if (n < 0)
    throw Error("set_num_threads: the number of threads must be positive (or 0 for the "
                "default), got " +
                std::to_string(n));
  emberrt_set_num_threads(n);
}

int ember::get_num_threads() { return emberrt_num_threads(); }
