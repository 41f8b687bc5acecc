/* Story F1's other half: a plain C program calling the `predict` that
 * examples/f1_export.cpp trained, exported and ember-compile compiled
 * (predict.h, predict.o); linked with ember's runtime alone. */
#include "predict.h"

#include <stdio.h>

int main(void) {
  float batch[4] = {1.f, 2.f, 3.f, 4.f}, predicted[4];
  int64_t size = 4;
  emberrt_memref_t in, out;
  emberrt_memref_init(&in, batch, 1, &size);
  emberrt_memref_init(&out, predicted, 1, &size);
  predict(&in, &out);
  printf("AOT: predict(1, 2, 3, 4) = %.4f %.4f %.4f %.4f\n", predicted[0], predicted[1],
         predicted[2], predicted[3]);
  return 0;
}
