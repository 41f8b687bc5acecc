/* Calls an AOT function whose loops run on several threads (LLVM's OpenMP
 * runtime), with the thread count set through ember's runtime; linked with
 * libemberrt and libomp. Prints a few results and whether 1 and 3 threads
 * gave the same ones. */
#include "scale_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kRows = 1024, kColumns = 256 };

static void run(float *x, float *y, int threads) {
  int64_t sizes[2] = {kRows, kColumns};
  emberrt_memref_t mx, my;
  emberrt_memref_init(&mx, x, 2, sizes);
  emberrt_memref_init(&my, y, 2, sizes);
  emberrt_set_num_threads(threads);
  scale_rows(&mx, &my);
}

int main(void) {
  float *x = malloc(sizeof(float) * kRows * kColumns);
  float *one = malloc(sizeof(float) * kRows * kColumns);
  float *three = malloc(sizeof(float) * kRows * kColumns);
  int i;
  for (i = 0; i < kRows * kColumns; ++i)
    x[i] = (float)(i / kColumns); /* row r holds r: its sum is 256 r */
  run(x, one, 1);
  run(x, three, 3);
  printf("y[0][0]=%g y[1][5]=%g y[1023][255]=%g same=%d\n", one[0], one[kColumns + 5],
         one[kRows * kColumns - 1], memcmp(one, three, sizeof(float) * kRows * kColumns) == 0);
  free(x);
  free(one);
  free(three);
  return 0;
}
