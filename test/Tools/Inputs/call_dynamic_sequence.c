/* Calls merge_steps and split_rows (Inputs/dynamic-sequence.mlir, compiled by
 * ember-compile): a [2, 3, 3] batch merged into 6 rows; 6 rows split by a
 * [2, 3] tensor's sizes, then by a [2, 2] one (4 rows: refused); then sizes
 * whose product does not fit in int64 (refused, nothing run). */
#include "dynamic_sequence.h"

#include <stdio.h>

int main(void) {
  float x[2 * 3 * 3], merged[6 * 3], rows[6 * 2], split[6 * 2], like[6];
  int64_t xs[3] = {2, 3, 3}, merged_sizes[2], rows_sizes[2] = {6, 2}, split_sizes[3];
  int64_t like_sizes[2] = {2, 3}, small_like[2] = {2, 2};
  emberrt_memref_t mx, mmerged, mrows, msplit, mlike;
  const char *error;
  int i;
  for (i = 0; i < 2 * 3 * 3; ++i)
    x[i] = (float)i;
  for (i = 0; i < 6 * 2; ++i)
    rows[i] = (float)(100 + i);
  emberrt_memref_init(&mx, x, 3, xs);
  if (!(error = merge_steps_result_sizes(&mx, merged_sizes))) {
    emberrt_memref_init(&mmerged, merged, 2, merged_sizes);
    error = merge_steps(&mx, &mmerged);
  }
  if (error)
    printf("error: %s\n", error);
  else
    printf("merged [%lld, %lld]: last %g\n", (long long)merged_sizes[0],
           (long long)merged_sizes[1], merged[merged_sizes[0] * 3 - 1]);
  emberrt_memref_init(&mrows, rows, 2, rows_sizes);
  emberrt_memref_init(&mlike, like, 2, like_sizes);
  if (!(error = split_rows_result_sizes(&mrows, &mlike, split_sizes))) {
    emberrt_memref_init(&msplit, split, 3, split_sizes);
    error = split_rows(&mrows, &mlike, &msplit);
  }
  if (error)
    printf("error: %s\n", error);
  else
    printf("split [%lld, %lld, %lld]: last %g\n", (long long)split_sizes[0],
           (long long)split_sizes[1], (long long)split_sizes[2], split[11]);
  emberrt_memref_init(&mlike, like, 2, small_like);
  error = split_rows_result_sizes(&mrows, &mlike, split_sizes);
  printf("error: %s\n", error ? error : "(none)");
  /* (Set after init, whose strides would overflow: only the sizes are read.) */
  mx.sizes_and_strides[0] = (int64_t)1 << 40;
  mx.sizes_and_strides[1] = (int64_t)1 << 40;
  error = merge_steps_result_sizes(&mx, merged_sizes);
  printf("error: %s\n", error ? error : "(none)");
  return 0;
}
