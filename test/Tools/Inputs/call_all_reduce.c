/* A C99 program calling a function with ember.all_reduce compiled ahead of
 * time: it installs its own collective engine (a stand-in for four
 * processes holding the same values: the sum is 4 times the input, the mean
 * the input), since the runtime links none; without one, or when the engine
 * fails, the call reports a fault with a message. */
#include "all_reduce.h"

#include <stdio.h>
#include <string.h>

static int32_t fourProcesses(const void *input, void *output, int64_t count,
                             emberrt_dtype_t dtype, int32_t reduction, char *error,
                             size_t capacity) {
  const float *in = (const float *)input;
  float *out = (float *)output;
  int64_t i;
  if (dtype != EMBERRT_FLOAT32) {
    strncpy(error, "not float32", capacity);
    return 1;
  }
  for (i = 0; i < count; ++i)
    out[i] = reduction == 0 ? 4 * in[i] : in[i]; /* sum, or mean */
  return 0;
}

static int32_t failing(const void *input, void *output, int64_t count, emberrt_dtype_t dtype,
                       int32_t reduction, char *error, size_t capacity) {
  (void)input, (void)output, (void)count, (void)dtype, (void)reduction;
  strncpy(error, "rank 3 of 4 was lost", capacity);
  return 1;
}

static void call(const char *what) {
  float g[6] = {1, 2, 3, 4, 5, 6}, r[6] = {0};
  int64_t sizes[2] = {2, 3};
  emberrt_memref_t mg, mr;
  emberrt_fault_t fault;
  emberrt_memref_init(&mg, g, 2, sizes);
  emberrt_memref_init(&mr, r, 2, sizes);
  average(&mg, &mr);
  fault = emberrt_take_fault();
  printf("%s: %g %g %g; fault %d: %s\n", what, r[0], r[1], r[5], (int)fault.kind,
         emberrt_fault_message());
}

int main(void) {
  call("no engine");
  emberrt_set_all_reduce_hook(fourProcesses);
  call("four processes");
  emberrt_set_all_reduce_hook(failing);
  call("a failing engine");
  return 0;
}
