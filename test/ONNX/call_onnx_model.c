/* Runs an ONNX model compiled ahead of time by ember-compile (its function
 * onnx_torch_jit, one input and one output, float32) on a data set written
 * by scripts/export_onnx_models.py, and compares with PyTorch's output:
 *   call_onnx_model INPUT.bin OUTPUT.bin DIM...
 * (compiled with -DONNX_RESULT_RANK=<the output's rank>)
 * Prints "ok: N elements" or the first element that differs by more than
 * rtol 1e-4 (with an absolute tolerance of 1e-4 times the output's largest
 * magnitude: float32 sums in another order), exiting 1 then. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static float *readFloats(const char *path, long *count) {
  FILE *file = fopen(path, "rb");
  float *values;
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  *count = ftell(file) / (long)sizeof(float);
  fseek(file, 0, SEEK_SET);
  values = malloc((size_t)*count * sizeof(float) + 1);
  if (fread(values, sizeof(float), (size_t)*count, file) != (size_t)*count) {
    free(values);
    values = NULL;
  }
  fclose(file);
  return values;
}

int main(int argc, char **argv) {
  long inCount, wantCount, i, outCount = 1;
  int64_t dims[8], outDims[8];
  int rank = argc - 3, d;
  float *in, *want, *out, largest = 0;
  emberrt_memref_t x, y;
  const char *error;
  if (argc < 4 || rank > 8) {
    fprintf(stderr, "usage: call_onnx_model INPUT.bin OUTPUT.bin DIM...\n");
    return 2;
  }
  in = readFloats(argv[1], &inCount);
  want = readFloats(argv[2], &wantCount);
  if (!in || !want) {
    fprintf(stderr, "cannot read %s or %s\n", argv[1], argv[2]);
    return 2;
  }
  for (d = 0; d < rank; ++d)
    dims[d] = atoll(argv[3 + d]);
  emberrt_memref_init(&x, in, rank, dims);
  error = onnx_torch_jit_result_sizes(&x, outDims);
  if (error) {
    printf("error: %s\n", error);
    return 1;
  }
  /* The result's rank, ONNX_RESULT_RANK, is given when this is compiled. */
  out = malloc((size_t)wantCount * sizeof(float));
  emberrt_memref_init(&y, out, ONNX_RESULT_RANK, outDims);
  for (d = 0; d < ONNX_RESULT_RANK; ++d)
    outCount *= outDims[d];
  if (outCount != wantCount) {
    printf("error: %ld elements out, %ld expected\n", outCount, wantCount);
    return 1;
  }
  error = onnx_torch_jit(&x, &y);
  if (error) {
    printf("error: %s\n", error);
    return 1;
  }
  for (i = 0; i < wantCount; ++i)
    if (fabsf(want[i]) > largest)
      largest = fabsf(want[i]);
  for (i = 0; i < wantCount; ++i)
    if (!(fabsf(out[i] - want[i]) <= 1e-4f * largest + 1e-4f * fabsf(want[i]))) {
      printf("element %ld is %g, expected %g\n", i, out[i], want[i]);
      return 1;
    }
  printf("ok: %ld elements\n", wantCount);
  free(in);
  free(want);
  free(out);
  return 0;
}
