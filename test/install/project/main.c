/* A C99 program calling a function compiled ahead of time by ember-compile,
 * through the header it wrote; linked with ember's runtime alone. */
#include "model.h"

#include <stdio.h>

int main(void) {
  float a[32], b[32], c[32];
  int64_t sizes[2] = {4, 8};
  emberrt_memref_t ma, mb, mc;
  int i;
  for (i = 0; i < 32; ++i) {
    a[i] = (float)i;
    b[i] = 0.5f;
  }
  emberrt_memref_init(&ma, a, 2, sizes);
  emberrt_memref_init(&mb, b, 2, sizes);
  emberrt_memref_init(&mc, c, 2, sizes);
  add_mul(&ma, &mb, &mc);
  printf("%g %g %g\n", c[0], c[1], c[31]);
  return 0;
}
