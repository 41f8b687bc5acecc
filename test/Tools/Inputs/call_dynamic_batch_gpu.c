/* Calls dense_sum (Inputs/dynamic-batch.mlir, compiled by ember-compile
 * --target=cuda) on two batch sizes from one object, its buffers on the GPU,
 * then on sizes that break its constraints (refused before any launch).
 * Without a GPU it says so. */
#include "dynamic_batch_gpu.h"

#include "emberrt/cuda.h"

#include <stdio.h>

static int call(int64_t rows_x, int64_t rows_y, int64_t width) {
  float x[5 * 4], y[5 * 4], w[3 * 2] = {1, 0, 0, 1, 1, 1}, out[5 * 2];
  int64_t xs[2], ys[2], ws[2] = {3, 2}, outs[2];
  void *dx, *dy, *dw, *dout;
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
  if (emberrt_cuda_malloc(sizeof x, &dx) || emberrt_cuda_malloc(sizeof y, &dy) ||
      emberrt_cuda_malloc(sizeof w, &dw) || emberrt_cuda_malloc(sizeof out, &dout) ||
      emberrt_cuda_memcpy_htod(dx, x, sizeof x) || emberrt_cuda_memcpy_htod(dy, y, sizeof y) ||
      emberrt_cuda_memcpy_htod(dw, w, sizeof w))
    return 1;
  emberrt_memref_init(&mx, dx, 2, xs);
  emberrt_memref_init(&my, dy, 2, ys);
  emberrt_memref_init(&mw, dw, 2, ws);
  error = dense_sum_result_sizes(&mx, &my, &mw, outs);
  if (!error) {
    emberrt_memref_init(&mout, dout, 2, outs);
    error = dense_sum(&mx, &my, &mw, &mout);
  }
  if (error) {
    printf("error: %s\n", error);
  } else if (emberrt_cuda_synchronize() || *emberrt_cuda_last_error() ||
             emberrt_cuda_memcpy_dtoh(out, dout, (size_t)(outs[0] * 2) * sizeof(float))) {
    printf("CUDA error: %s\n", emberrt_cuda_last_error());
    return 1;
  } else {
    printf("%lld rows:", (long long)outs[0]);
    for (i = 0; i < outs[0] * 2; ++i)
      printf(" %g", out[i]);
    printf("\n");
  }
  emberrt_cuda_free(dx);
  emberrt_cuda_free(dy);
  emberrt_cuda_free(dw);
  emberrt_cuda_free(dout);
  return 0;
}

int main(void) {
  if (!emberrt_cuda_available()) {
    printf("no GPU: %s\n", emberrt_cuda_status());
    return 0;
  }
  return call(2, 2, 3) || call(5, 5, 3) || call(2, 3, 3) || call(2, 2, 4);
}
