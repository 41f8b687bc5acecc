/* A C99 program calling GPU code compiled ahead of time by ember-compile
 * (--target=cuda:sm_90: host code with the kernels embedded), through the
 * header it wrote; linked with ember's runtime alone, which opens the CUDA
 * driver when there is one. Without a GPU it says so. */
#include "add.h"

#include "emberrt/cuda.h"

#include <stdio.h>

int main(void) {
  float a[32], b[32], c[32];
  int64_t sizes[2] = {4, 8};
  void *da, *db, *dc;
  emberrt_memref_t ma, mb, mc;
  int i;
  if (!emberrt_cuda_available()) {
    printf("no GPU: %s\n", emberrt_cuda_status());
    return 0;
  }
  for (i = 0; i < 32; ++i) {
    a[i] = (float)i;
    b[i] = 0.5f;
  }
  if (emberrt_cuda_malloc(sizeof a, &da) || emberrt_cuda_malloc(sizeof b, &db) ||
      emberrt_cuda_malloc(sizeof c, &dc) || emberrt_cuda_memcpy_htod(da, a, sizeof a) ||
      emberrt_cuda_memcpy_htod(db, b, sizeof b))
    return 1;
  emberrt_memref_init(&ma, da, 2, sizes);
  emberrt_memref_init(&mb, db, 2, sizes);
  emberrt_memref_init(&mc, dc, 2, sizes);
  add_mul(&ma, &mb, &mc); /* queued on the runtime's stream */
  /* Compiled code records failures (a module that did not load, a launch
   * refused) instead of returning them: check once after the calls. */
  if (emberrt_cuda_synchronize() || *emberrt_cuda_last_error() ||
      emberrt_cuda_memcpy_dtoh(c, dc, sizeof c)) {
    printf("CUDA error: %s\n", emberrt_cuda_last_error());
    return 1;
  }
  printf("%g %g %g\n", c[0], c[1], c[31]);
  return 0;
}
