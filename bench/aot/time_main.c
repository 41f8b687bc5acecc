/* Times functions compiled ahead of time from what the JIT traced
 * (bench/aot/chain.mlir, power_traced.mlir), called from C, to compare with
 * the JIT's figures for the same functions (bench/function_bench.cpp):
 * median of 7 samples, like bench_util.h. Linked with libemberrt alone. */
#define _POSIX_C_SOURCE 199309L
#include "chain.h"
#include "power_traced.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  enum { kSamples = 7 };
  double samples[kSamples];
  int s, i;
  /* power(x, 100) on 10x10 int32, 1000 calls a sample. */
  int32_t x[100], p[100];
  int64_t small[2] = {10, 10};
  emberrt_memref_t mx, mp;
  /* The 8-op chain on 4096x4096 f32 with a [4096] row, one call a sample. */
  int64_t big[2] = {4096, 4096}, row[1] = {4096};
  float *a = malloc(sizeof(float) * 4096 * 4096), *v = malloc(sizeof(float) * 4096);
  float *out = malloc(sizeof(float) * 4096 * 4096);
  emberrt_memref_t ma, mv, mo;
  for (i = 0; i < 100; ++i)
    x[i] = i % 3 == 0;
  for (i = 0; i < 4096 * 4096; ++i)
    a[i] = (float)(i % 1000) * 0.001f;
  for (i = 0; i < 4096; ++i)
    v[i] = (float)i * 0.0001f;
  emberrt_memref_init(&mx, x, 2, small);
  emberrt_memref_init(&mp, p, 2, small);
  emberrt_memref_init(&ma, a, 2, big);
  emberrt_memref_init(&mv, v, 1, row);
  emberrt_memref_init(&mo, out, 2, big);

  ember_fn_power(&mx, &mp);
  for (s = 0; s < kSamples; ++s) {
    double start = now();
    for (i = 0; i < 1000; ++i)
      ember_fn_power(&mx, &mp);
    samples[s] = (now() - start) / 1000;
  }
  qsort(samples, kSamples, sizeof samples[0], compare);
  printf("aot.power_traced %g ms/call\n", samples[kSamples / 2] * 1e3);

  ember_fn_chain(&ma, &mv, &mo);
  for (s = 0; s < kSamples; ++s) {
    double start = now();
    ember_fn_chain(&ma, &mv, &mo);
    samples[s] = now() - start;
  }
  qsort(samples, kSamples, sizeof samples[0], compare);
  printf("aot.chain_traced %g ms\n", samples[kSamples / 2] * 1e3);
  free(a);
  free(v);
  free(out);
  return 0;
}
