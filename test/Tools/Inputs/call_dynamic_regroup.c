/* Calls stack_pairs (Inputs/dynamic-regroup.mlir, compiled by ember-compile)
 * with x of 4 and 2 rows, then 3 (an odd count: refused), then 0 (no first
 * row to drop: refused). */
#include "dynamic_regroup.h"

#include <stdio.h>

static void call(int64_t rows_x, int64_t rows_y) {
  float x[4 * 3], y[2 * 3], stacked[6 * 3], pairs[4 * 3], tail[3 * 3];
  int64_t xs[2], ys[2], stacked_sizes[2], pairs_sizes[3], tail_sizes[2];
  emberrt_memref_t mx, my, mstacked, mpairs, mtail;
  const char *error;
  int i;
  for (i = 0; i < 4 * 3; ++i)
    x[i] = (float)i;
  for (i = 0; i < 2 * 3; ++i)
    y[i] = (float)(100 + i);
  xs[0] = rows_x;
  xs[1] = 3;
  ys[0] = rows_y;
  ys[1] = 3;
  emberrt_memref_init(&mx, x, 2, xs);
  emberrt_memref_init(&my, y, 2, ys);
  error = stack_pairs_result_sizes(&mx, &my, stacked_sizes, pairs_sizes, tail_sizes);
  if (error) {
    printf("error: %s\n", error);
    return;
  }
  emberrt_memref_init(&mstacked, stacked, 2, stacked_sizes);
  emberrt_memref_init(&mpairs, pairs, 3, pairs_sizes);
  emberrt_memref_init(&mtail, tail, 2, tail_sizes);
  error = stack_pairs(&mx, &my, &mstacked, &mpairs, &mtail);
  if (error) {
    printf("error: %s\n", error);
    return;
  }
  printf("stacked [%lld, %lld]:", (long long)stacked_sizes[0], (long long)stacked_sizes[1]);
  for (i = 0; i < stacked_sizes[0] * 3; i += 3)
    printf(" %g", stacked[i]);
  printf("; pairs [%lld, %lld, %lld]; tail [%lld, %lld]:", (long long)pairs_sizes[0],
         (long long)pairs_sizes[1], (long long)pairs_sizes[2], (long long)tail_sizes[0],
         (long long)tail_sizes[1]);
  for (i = 0; i < tail_sizes[0] * 3; i += 3)
    printf(" %g", tail[i]);
  printf("\n");
}

int main(void) {
  call(4, 2);
  call(2, 1);
  call(3, 2);
  call(0, 1);
  return 0;
}
