/* Calls dense_sum (Inputs/dynamic-batch.mlir, compiled by ember-compile) on
 * two batch sizes from one object, then on sizes that break its constraints. */
#include "dynamic_batch.h"

#include <stdio.h>

static void call(int64_t rows_x, int64_t rows_y, int64_t width) {
  float x[5 * 4], y[5 * 4], w[3 * 2] = {1, 0, 0, 1, 1, 1}, out[5 * 2];
  int64_t xs[2], ys[2], ws[2] = {3, 2}, outs[2];
  emberrt_memref_t mx, my, mw, mout;
  const char *error;
  int i;
  for (i = 0; i < 5 * 4; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  xs[0] = rows_x;
  xs[1] = width;
  ys[0] = rows_y;
  ys[1] = width;
  emberrt_memref_init(&mx, x, 2, xs);
  emberrt_memref_init(&my, y, 2, ys);
  emberrt_memref_init(&mw, w, 2, ws);
  error = dense_sum_result_sizes(&mx, &my, &mw, outs);
  if (error) {
    printf("error: %s\n", error);
    return;
  }
  emberrt_memref_init(&mout, out, 2, outs);
  error = dense_sum(&mx, &my, &mw, &mout);
  if (error) {
    printf("error: %s\n", error);
    return;
  }
  printf("%lld rows:", (long long)outs[0]);
  for (i = 0; i < outs[0] * 2; ++i)
    printf(" %g", out[i]);
  printf("\n");
}

int main(void) {
  call(2, 2, 3);
  call(5, 5, 3);
  call(2, 3, 3);
  call(2, 2, 4);
  return 0;
}
