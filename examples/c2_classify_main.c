/* Story C2's classifier ahead of time: a plain C program calling `classify`,
 * which c2_image_classifier trained and exported (--export classify.mlir)
 * and ember-compile compiled (classify.o, classify.h); linked with ember's
 * runtime alone. Reads the 8 images the example wrote beside the export
 * (raw float32, 8x28x28x1) and prints the class of each: the same as the
 * JIT's.
 * Usage: c2_classify <classify.mlir.images.f32> */
#include "classify.h"

#include <stdio.h>

int main(int argc, char **argv) {
  static float images[8 * 28 * 28], logits[8 * 10];
  int64_t imageSizes[4] = {8, 28, 28, 1}, logitSizes[2] = {8, 10};
  emberrt_memref_t in, out;
  FILE *file;
  int i, c;
  if (argc != 2) {
    fprintf(stderr, "usage: %s <images.f32>\n", argv[0]);
    return 2;
  }
  file = fopen(argv[1], "rb");
  if (!file || fread(images, sizeof(float), 8 * 28 * 28, file) != 8 * 28 * 28) {
    fprintf(stderr, "%s: cannot read 8 images of 28x28 float32 from %s\n", argv[0], argv[1]);
    return 1;
  }
  fclose(file);
  emberrt_memref_init(&in, images, 4, imageSizes);
  emberrt_memref_init(&out, logits, 2, logitSizes);
  classify(&in, &out);
  printf("AOT predictions:");
  for (i = 0; i < 8; ++i) {
    int best = 0;
    for (c = 1; c < 10; ++c)
      if (logits[i * 10 + c] > logits[i * 10 + best])
        best = c;
    printf(" %d", best);
  }
  printf("\n");
  return 0;
}
