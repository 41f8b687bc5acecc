// The SGEMM peer: OpenBLAS's cblas_sgemm on the square sizes of
// matmul_bench (256, 1024, 4096), row-major, C = A B. Its thread count is
// OPENBLAS_NUM_THREADS (bench/run.sh sets 1, then 2) and its kernels are
// OPENBLAS_CORETYPE's (SkylakeX on AVX-512 hosts, as in PEERS.md).
#include "bench_util.h"

#include <cblas.h>

#include <random>
#include <string>
#include <vector>

int main() {
  std::mt19937 generator(1);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  for (int n : {256, 1024, 4096}) {
    std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), c(a.size());
    for (float &x : a)
      x = uniform(generator);
    for (float &x : b)
      x = uniform(generator);
    auto sgemm = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a.data(), n,
                  b.data(), n, 0.f, c.data(), n);
    };
    bench::report(("blas.sgemm_gflops_" + std::to_string(n)).c_str(),
                  bench::sgemmGflops(n, sgemm), "GFLOP/s");
  }
}
