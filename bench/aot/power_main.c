/* power(x, 100) compiled ahead of time (bench/aot/power.mlir), called once
 * from C: what a deployed program pays, from process start to the result.
 * Linked with ember's runtime alone. Prints the result's first row and the
 * sum of the matrix (the same as the JIT's: examples/d8_power.cpp's x). */
#include "power.h"

#include <stdio.h>

int main(void) {
  int32_t x[100], result[100];
  int64_t sizes[2] = {10, 10};
  emberrt_memref_t mx, mr;
  long long sum = 0;
  int i;
  for (i = 0; i < 100; ++i)
    x[i] = (i * 7 + 3) % 3 == 0 ? 1 : 0; /* a fixed 0/1 matrix */
  emberrt_memref_init(&mx, x, 2, sizes);
  emberrt_memref_init(&mr, result, 2, sizes);
  power(&mx, &mr);
  for (i = 0; i < 100; ++i)
    sum += result[i];
  printf("power(x, 100)[0][0..2] = %d %d %d, sum %lld\n", result[0], result[1], result[2], sum);
  return 0;
}
