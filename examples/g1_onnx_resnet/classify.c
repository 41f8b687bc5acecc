/* Example G1, the C half: classifies images with ResNet-18, exported from
 * PyTorch to ONNX (export_resnet18.py) and compiled ahead of time by
 * ember-compile into resnet18.o and resnet18.h:
 *
 *   ember-compile resnet18.onnx -o resnet18.o --header resnet18.h
 *   cc -std=c99 -I. -I<ember>/runtime/include -c classify.c
 *   cc classify.o resnet18.o <ember build>/runtime/libemberrt.a \
 *      -lomp -lstdc++ -lm -ldl -lpthread -o classify
 *   ./classify labels.txt a.ppm b.ppm ...
 *
 * It reads the class names (one a line) and the images (binary PPM, 224x224),
 * runs the model once on all of them as one batch, and prints the 5 most
 * likely classes of each:
 *
 *   a.ppm: 1. croquet ball (522) 0.6564
 *
 * (rank, class name, class index, probability). Then it runs the model again
 * on the first image alone: ONNX's symbolic "batch" dim is a `?` in the
 * compiled function, so one object takes any batch size.
 *
 * Nothing here but the C library and ember's runtime: no Python, no ONNX. */
#include "resnet18.h" /* onnx_resnet18, onnx_resnet18_result_sizes */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the model takes: float32 [batch, 3, 224, 224] (channels first). */
#define CHANNELS 3
#define IMAGE_SIZE 224
#define PIXELS (IMAGE_SIZE * IMAGE_SIZE)
#define TOP 5

/* The normalisation ResNet-18 was trained with (ImageNet's per-channel mean
 * and standard deviation of R, G, B in [0, 1]); export_resnet18.py uses the
 * same numbers for PyTorch's answers. */
static const float kMean[CHANNELS] = {0.485f, 0.456f, 0.406f};
static const float kStd[CHANNELS] = {0.229f, 0.224f, 0.225f};

/* --- Input files ---------------------------------------------------------- */

/* The class names: one a line, the line number (from 0) being the class
 * index. Returns them (and their count in *count), or NULL with the reason
 * printed. */
static char **read_labels(const char *path, long *count) {
  FILE *file = fopen(path, "rb");
  char *text, *line, **labels;
  long size, i, n = 0;
  if (!file) {
    fprintf(stderr, "classify: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  fseek(file, 0, SEEK_END);
  size = ftell(file);
  fseek(file, 0, SEEK_SET);
  text = malloc((size_t)size + 1);
  if (!text || fread(text, 1, (size_t)size, file) != (size_t)size) {
    fprintf(stderr, "classify: cannot read %s\n", path);
    fclose(file);
    free(text);
    return NULL;
  }
  fclose(file);
  text[size] = '\0';
  for (i = 0; i < size; ++i)
    n += text[i] == '\n';
  if (size > 0 && text[size - 1] != '\n')
    ++n; /* a last line without a newline */
  labels = malloc((size_t)(n + 1) * sizeof(char *));
  if (!labels) {
    fprintf(stderr, "classify: out of memory\n");
    free(text);
    return NULL;
  }
  /* Cut the text into lines in place; labels[0] owns it. */
  for (i = 0, line = text; i < n; ++i) {
    char *end = strchr(line, '\n');
    if (!end)
      end = line + strlen(line);
    if (end > line && end[-1] == '\r')
      end[-1] = '\0'; /* a file written on Windows */
    *end = '\0';
    labels[i] = line;
    line = end + 1;
  }
  if (n == 0)
    free(text);
  *count = n;
  return labels;
}

static void free_labels(char **labels, long count) {
  if (count > 0)
    free(labels[0]);
  free(labels);
}

/* One number of a PPM header: skips white space and `#` comments, reads
 * decimal digits and the one character after them, which must be white
 * space. -1 if there is no number there. */
static long ppm_number(FILE *file) {
  long value = 0;
  int c = getc(file), digits = 0;
  for (;;) {
    if (c == '#')
      while (c != '\n' && c != EOF)
        c = getc(file);
    else if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
      c = getc(file);
    else
      break;
  }
  for (; c >= '0' && c <= '9' && value < 100000; c = getc(file), ++digits)
    value = 10 * value + (c - '0');
  if (digits == 0 || !(c == ' ' || c == '\t' || c == '\n' || c == '\r'))
    return -1;
  return value;
}

/* Reads a binary PPM image ("P6", then width, height and the largest value,
 * 255, then 3 bytes R G B a pixel, row by row) of IMAGE_SIZE x IMAGE_SIZE
 * pixels into `rgb`. 0, or 1 with the reason printed. */
static int read_ppm(const char *path, unsigned char *rgb) {
  FILE *file = fopen(path, "rb");
  long width, height, maxval;
  int ok;
  if (!file) {
    fprintf(stderr, "classify: cannot open %s: %s\n", path, strerror(errno));
    return 1;
  }
  if (getc(file) != 'P' || getc(file) != '6') {
    fprintf(stderr, "classify: %s is not a binary PPM image (it does not start with \"P6\")\n",
            path);
    fclose(file);
    return 1;
  }
  width = ppm_number(file);
  height = ppm_number(file);
  maxval = ppm_number(file);
  if (width < 0 || height < 0 || maxval < 0) {
    fprintf(stderr, "classify: %s: a bad PPM header\n", path);
    fclose(file);
    return 1;
  }
  if (width != IMAGE_SIZE || height != IMAGE_SIZE || maxval != 255) {
    fprintf(stderr,
            "classify: %s is %ldx%ld with values up to %ld; the model takes %dx%d images "
            "with values up to 255 (resize it first)\n",
            path, width, height, maxval, IMAGE_SIZE, IMAGE_SIZE);
    fclose(file);
    return 1;
  }
  ok = fread(rgb, 1, CHANNELS * PIXELS, file) == (size_t)(CHANNELS * PIXELS);
  fclose(file);
  if (!ok) {
    fprintf(stderr, "classify: %s is shorter than a %dx%d image\n", path, IMAGE_SIZE,
            IMAGE_SIZE);
    return 1;
  }
  return 0;
}

/* The model's input for one image: channels first (all the reds, then the
 * greens, then the blues), each byte / 255, less the channel's mean, over its
 * standard deviation. */
static void normalize(const unsigned char *rgb, float *image) {
  int c, p;
  for (c = 0; c < CHANNELS; ++c)
    for (p = 0; p < PIXELS; ++p)
      image[c * PIXELS + p] = ((float)rgb[p * CHANNELS + c] / 255.0f - kMean[c]) / kStd[c];
}

/* --- The model ------------------------------------------------------------ */

/* Runs the compiled ResNet-18 on `batch` normalised images (float32
 * [batch, 3, 224, 224], contiguous) and returns its probabilities, [batch,
 * classes] (softmax of its logits), with the number of classes in *classes;
 * NULL with the reason printed. */
static float *run_model(float *images, int64_t batch, int64_t *classes) {
  const int64_t sizes[4] = {0, CHANNELS, IMAGE_SIZE, IMAGE_SIZE};
  int64_t input_sizes[4], result_sizes[2], b, k;
  emberrt_memref_t input, logits;
  const char *error;
  float *result;

  /* Descriptors (emberrt/runtime.h) give the compiled function each tensor's
   * data and sizes; the batch size is the `?` dim. */
  memcpy(input_sizes, sizes, sizeof(sizes));
  input_sizes[0] = batch;
  if (emberrt_memref_init(&input, images, 4, input_sizes) != EMBERRT_OK) {
    fprintf(stderr, "classify: emberrt_memref_init failed\n");
    return NULL;
  }
  /* The caller allocates the results: their sizes for this input ([batch,
   * 1000]), or why the input does not fit the model (a wrong image size). */
  error = onnx_resnet18_result_sizes(&input, result_sizes);
  if (error) {
    fprintf(stderr, "classify: %s\n", error);
    return NULL;
  }
  result = malloc((size_t)(result_sizes[0] * result_sizes[1]) * sizeof(float));
  if (!result) {
    fprintf(stderr, "classify: out of memory\n");
    return NULL;
  }
  if (emberrt_memref_init(&logits, result, 2, result_sizes) != EMBERRT_OK) {
    fprintf(stderr, "classify: emberrt_memref_init failed\n");
    free(result);
    return NULL;
  }
  /* The call: NULL, or (nothing run) why the descriptors do not fit. */
  error = onnx_resnet18(&input, &logits);
  if (error) {
    fprintf(stderr, "classify: %s\n", error);
    free(result);
    return NULL;
  }

  /* ResNet-18 ends with logits; softmax each image's into probabilities
   * (in double, less the largest logit, so that exp cannot overflow). */
  *classes = result_sizes[1];
  for (b = 0; b < batch; ++b) {
    float *row = result + b * *classes;
    double largest = row[0], sum = 0;
    for (k = 1; k < *classes; ++k)
      if (row[k] > largest)
        largest = row[k];
    for (k = 0; k < *classes; ++k)
      sum += exp(row[k] - largest);
    for (k = 0; k < *classes; ++k)
      row[k] = (float)(exp(row[k] - largest) / sum);
  }
  return result;
}

/* The indices of the TOP largest of `count` probabilities, largest first (of
 * equal ones, the lower index first). */
static void top_classes(const float *probabilities, int64_t count, int64_t top[TOP]) {
  int r, s;
  int64_t k;
  for (r = 0; r < TOP; ++r) {
    top[r] = -1;
    for (k = 0; k < count; ++k) {
      int taken = 0;
      for (s = 0; s < r; ++s)
        taken |= top[s] == k;
      if (!taken && (top[r] < 0 || probabilities[k] > probabilities[top[r]]))
        top[r] = k;
    }
  }
}

static void print_top(const char *image, const float *probabilities, int64_t classes,
                      char **labels) {
  int64_t top[TOP];
  int r;
  top_classes(probabilities, classes, top);
  for (r = 0; r < TOP; ++r)
    printf("%s: %d. %s (%ld) %.4f\n", image, r + 1, labels[top[r]], (long)top[r],
           probabilities[top[r]]);
}

/* --- main ----------------------------------------------------------------- */

int main(int argc, char **argv) {
  int64_t batch = argc - 2, classes = 0, classes1 = 0, b, top[TOP], top1[TOP];
  long label_count = 0;
  char **labels;
  unsigned char *rgb;
  float *images, *probabilities, *probabilities1;
  int r, same = 1;

  if (argc < 3) {
    fprintf(stderr, "usage: classify LABELS.txt IMAGE.ppm...\n"
                    "  (224x224 binary PPM images; LABELS.txt has a class name a line)\n");
    return 2;
  }
  labels = read_labels(argv[1], &label_count);
  if (!labels)
    return 1;

  /* All the images, normalised, one after another: the batch. */
  rgb = malloc(CHANNELS * PIXELS);
  images = malloc((size_t)batch * CHANNELS * PIXELS * sizeof(float));
  if (!rgb || !images) {
    fprintf(stderr, "classify: out of memory\n");
    return 1;
  }
  for (b = 0; b < batch; ++b) {
    if (read_ppm(argv[2 + b], rgb))
      return 1;
    normalize(rgb, images + b * CHANNELS * PIXELS);
  }
  free(rgb);

  /* One call for the whole batch. */
  probabilities = run_model(images, batch, &classes);
  if (!probabilities)
    return 1;
  if (classes != label_count) {
    fprintf(stderr, "classify: the model has %ld classes but %s names %ld\n", (long)classes,
            argv[1], label_count);
    return 1;
  }
  printf("ResNet-18, %ld image%s in one call:\n", (long)batch, batch == 1 ? "" : "s");
  for (b = 0; b < batch; ++b)
    print_top(argv[2 + b], probabilities + b * classes, classes, labels);

  /* The same compiled function, a batch of 1: the first image alone gets the
   * same answer (up to float rounding) as in the batch. */
  probabilities1 = run_model(images, 1, &classes1);
  if (!probabilities1)
    return 1;
  printf("The first image alone, a batch of 1:\n");
  print_top(argv[2], probabilities1, classes1, labels);
  top_classes(probabilities, classes, top);
  top_classes(probabilities1, classes1, top1);
  for (r = 0; r < TOP; ++r)
    same &= top[r] == top1[r] && fabsf(probabilities[top[r]] - probabilities1[top1[r]]) <= 1e-4f;
  printf("%s\n", same ? "(the same top 5 as in the batch)"
                      : "error: not the top 5 it had in the batch");

  free(probabilities1);
  free(probabilities);
  free(images);
  free_labels(labels, label_count);
  return same ? 0 : 1;
}
