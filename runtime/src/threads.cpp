//===- threads.cpp - how many threads compiled code's parallel loops use ---===//

#include "emberrt/runtime.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include <sched.h>
#include <unistd.h>

namespace {

int32_t countDefault() {
  if (const char *text = std::getenv("EMBER_NUM_THREADS")) {
    char *end = nullptr;
    long n = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && n > 0 && n <= 4096)
      return static_cast<int32_t>(n);
    // Once (the default is computed once): as OMP_NUM_THREADS is, a value
    // that is no count is ignored, but not silently.
    std::fprintf(stderr,
                 "ember: EMBER_NUM_THREADS='%s' is not a number of threads from 1 to 4096; "
                 "ignored (using every CPU this process may run on)\n",
                 text);
  }
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 0)
    return CPU_COUNT(&cpus);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int32_t>(online) : 1;
}

std::atomic<int32_t> chosen{0}; // 0: the default

} // namespace

extern "C" int32_t emberrt_default_num_threads(void) {
  static const int32_t count = countDefault();
  return count;
}

extern "C" int32_t emberrt_num_threads(void) {
  int32_t n = chosen.load(std::memory_order_relaxed);
  return n > 0 ? n : emberrt_default_num_threads();
}

extern "C" void emberrt_set_num_threads(int32_t n) {
  chosen.store(n > 0 ? n : 0, std::memory_order_relaxed);
}
