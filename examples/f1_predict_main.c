/* Story F1's other half: a plain C program calling the `predict` that
 * examples/f1_export.cpp trained, exported and ember-compile compiled
 * (predict.h, predict.o); linked with ember's runtime (and libomp). `predict` takes
 * a batch of any size (a `?` dim): one object, two batch sizes. */
#include "predict.h"

#include <stdio.h>

/* predict on `size` inputs; 0, or 1 with the reason printed. */
static int run(float *inputs, float *outputs, int64_t size) {
  emberrt_memref_t in, out;
  int64_t result_size[1];
  const char *error;
  emberrt_memref_init(&in, inputs, 1, &size);
  error = predict_result_sizes(&in, result_size); /* the result has as many */
  if (!error) {
    emberrt_memref_init(&out, outputs, 1, result_size);
    error = predict(&in, &out);
  }
  if (error) {
    fprintf(stderr, "predict: %s\n", error);
    return 1;
  }
  return 0;
}

int main(void) {
  float batch[4] = {1.f, 2.f, 3.f, 4.f}, predicted[4];
  float pair[2] = {10.f, 20.f}, two[2];
  emberrt_memref_t in, out;
  int64_t four = 4, three = 3;
  if (run(batch, predicted, 4) || run(pair, two, 2))
    return 1;
  printf("AOT: predict(1, 2, 3, 4) = %.4f %.4f %.4f %.4f\n", predicted[0], predicted[1],
         predicted[2], predicted[3]);
  printf("AOT: predict(10, 20) = %.4f %.4f\n", two[0], two[1]);
  /* A result descriptor of the wrong size: refused, nothing written. */
  emberrt_memref_init(&in, batch, 1, &four);
  emberrt_memref_init(&out, predicted, 1, &three);
  printf("AOT: wrong result size: %s\n", predict(&in, &out));
  return 0;
}
