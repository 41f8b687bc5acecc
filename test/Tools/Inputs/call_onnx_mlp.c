/* Calls onnx_mlp (the ONNX model of make_onnx_model.py mlp, compiled by
 * ember-compile from the .onnx file) on two batch sizes from one object. */
#include "mlp.h"

#include <stdio.h>

static void call(int64_t rows) {
  float x[3 * 3], y[3 * 2];
  int64_t xs[2] = {0, 3}, ys[2];
  emberrt_memref_t mx, my;
  const char *error;
  int i;
  for (i = 0; i < 3 * 3; ++i)
    x[i] = 0.5f * (float)i - 1.0f;
  xs[0] = rows;
  emberrt_memref_init(&mx, x, 2, xs);
  error = onnx_mlp_result_sizes(&mx, ys);
  if (!error) {
    emberrt_memref_init(&my, y, 2, ys);
    error = onnx_mlp(&mx, &my);
  }
  if (error) {
    printf("error: %s\n", error);
    return;
  }
  printf("%lld rows:", (long long)ys[0]);
  for (i = 0; i < ys[0] * 2; ++i)
    printf(" %.4f", y[i]);
  printf("\n");
}

int main(void) {
  call(1);
  call(3);
  return 0;
}
