//===- bench_util.h - timing helpers shared by ember's benchmark programs -===//
#ifndef EMBER_BENCH_UTIL_H
#define EMBER_BENCH_UTIL_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace bench {

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Median over `repeats` samples of the time per call of `body`, run
/// `iterations` times per sample, in seconds.
template <typename F>
double medianSeconds(int repeats, long iterations, F &&body) {
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    double start = now();
    for (long i = 0; i < iterations; ++i)
      body();
    samples.push_back((now() - start) / static_cast<double>(iterations));
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

/// GFLOP/s of `sgemm`, one n x n x n float32 matrix product per call: the
/// median of 7 samples of 256 / (n / 256)^2 calls (3 samples of one call
/// from n = 4096), as matmul_bench, blas_bench and torch_bench all time it.
template <typename F> double sgemmGflops(int n, F &&sgemm) {
  sgemm();
  int64_t blocks = n / 256;
  double seconds = n >= 4096 ? medianSeconds(3, 1, sgemm)
                             : medianSeconds(7, 256 / (blocks * blocks), sgemm);
  return 2.0 * n * n * n / seconds / 1e9;
}

/// One result line: "<name> <value> <unit>", read by bench/run.sh.
inline void report(const char *name, double value, const char *unit) {
  std::printf("%s %.6g %s\n", name, value, unit);
  std::fflush(stdout);
}

} // namespace bench

#endif // EMBER_BENCH_UTIL_H
