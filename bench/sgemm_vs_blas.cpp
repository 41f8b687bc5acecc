// ember's float32 matmul and OpenBLAS's cblas_sgemm in one process, taking
// turns: each round times ember (median of 3 samples), then OpenBLAS on the
// same matrices, and the ratio is per round, so that both see the same
// machine. (On this shared 2-vCPU machine speed drifts by several percent
// from minute to minute, more than the gaps left to measure; separate
// programs run minutes apart compared different machines.)
//
//   sgemm_vs_blas [rounds]            the shapes below
//   sgemm_vs_blas rounds M K N ...    M x K times K x N
//
// Prints "sgemm_vs_blas.ratio_MxKxN <median ratio> x" (OpenBLAS time over
// ember's: above 1, ember is faster), and each round's GFLOP/s on stderr.
// The thread counts are EMBER_NUM_THREADS and OPENBLAS_NUM_THREADS; use 1:
// at 2, the two runtimes' idle threads spin on the same two cores.
#include "bench_util.h"

#include "ember/ember.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ember;

namespace {
void compare(int rounds, int m, int k, int n) {
  Tensor a = random_uniform({m, k}, 1), b = random_uniform({k, n}, 2);
  std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>();
  std::vector<float> cv(static_cast<size_t>(m) * n);
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.f, av.data(), k, bv.data(),
                n, 0.f, cv.data(), n);
  };
  Tensor c = matmul(a, b); // compiled (or loaded from the disk cache) here
  blas();
  double flop = 2.0 * m * n * k;
  // Samples of about 50 ms at 150 GFLOP/s.
  long iterations = std::max(1L, static_cast<long>(0.05 / (flop / 150e9)));
  std::vector<double> ratios;
  std::string shape = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
  for (int round = 0; round < rounds; ++round) {
    double ember = bench::medianSeconds(3, iterations, [&] { c = matmul(a, b); });
    double peer = bench::medianSeconds(3, iterations, blas);
    ratios.push_back(peer / ember);
    std::fprintf(stderr, "%s round %d: ember %.1f GFLOP/s, OpenBLAS %.1f GFLOP/s, %.3fx\n",
                 shape.c_str(), round, flop / ember / 1e9, flop / peer / 1e9, peer / ember);
  }
  std::sort(ratios.begin(), ratios.end());
  bench::report(("sgemm_vs_blas.ratio_" + shape).c_str(), ratios[ratios.size() / 2], "x");
}
} // namespace

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (argc > 4) {
    for (int i = 2; i + 2 < argc; i += 3)
      compare(rounds, std::atoi(argv[i]), std::atoi(argv[i + 1]), std::atoi(argv[i + 2]));
    return 0;
  }
  // The squares of matmul_bench, and the shapes between them where row
  // groups are (4096x512x4096) or are not (4096x1024x4096) worth it.
  const int shapes[][3] = {{1024, 1024, 1024}, {4096, 4096, 4096}, {2048, 2048, 2048},
                           {4096, 512, 4096},  {4096, 1024, 4096}};
  for (const auto &s : shapes)
    compare(rounds, s[0], s[1], s[2]);
}
