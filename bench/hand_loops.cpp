// The "limit": hand-written C++ loops, compiled -O3 -march=native, writing into
// preallocated outputs.
#include "bench_util.h"

#include <cstdlib>
#include <memory>

namespace {
__attribute__((noinline)) void add(const float *__restrict a, const float *__restrict b,
                                   float *__restrict c, long n) {
  for (long i = 0; i < n; ++i)
    c[i] = a[i] + b[i];
}
__attribute__((noinline)) void mul(const float *__restrict a, const float *__restrict b,
                                   float *__restrict c, long n) {
  for (long i = 0; i < n; ++i)
    c[i] = a[i] * b[i];
}
} // namespace

int main() {
  const long n = 16 << 20;
  auto alloc = [&] { return static_cast<float *>(std::aligned_alloc(64, n * sizeof(float))); };
  float *a = alloc(), *b = alloc(), *c = alloc();
  for (long i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000) * 1e-3f;
    b[i] = static_cast<float>(i % 777) * 1e-3f;
    c[i] = 0;
  }
  add(a, b, c, n);
  bench::report("hand.add_f32_16M", bench::medianSeconds(11, 1, [&] { add(a, b, c, n); }) * 1e3,
                "ms");
  bench::report("hand.mul_f32_16M", bench::medianSeconds(11, 1, [&] { mul(a, b, c, n); }) * 1e3,
                "ms");
  std::free(a);
  std::free(b);
  std::free(c);
}
