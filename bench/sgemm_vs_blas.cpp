// ember's float32 matmul and OpenBLAS's cblas_sgemm in one process, taking
// turns: each round times one sample of ember and one of OpenBLAS on the same
// matrices (the order alternating from round to round, so that a drift
// favours neither), and the ratio is per round, so that both see the same
// machine. On a shared 2-vCPU machine speed drifts by 10-30% from minute to
// minute, more than the gaps left to measure; many short paired rounds and
// their median, with its confidence interval, are what can tell a few
// percent apart.
//
//   sgemm_vs_blas [-t T,...] [rounds]            the shapes below
//   sgemm_vs_blas [-t T,...] rounds M K N ...    M x K times K x N
//
// -t lists thread counts (default: 1); each round runs every count, both
// libraries set to it (ember::set_num_threads, openblas_set_num_threads).
// Prints per shape and count "sgemm_vs_blas.ratio_MxKxN[_tT] <median> x"
// (OpenBLAS time over ember's: above 1, ember is faster), the median's 95%
// interval (ratio_low_..., ratio_high_...), the rounds ember won (wins_...)
// and each library's median GFLOP/s; with several counts, each library's
// speed-up from the first count to the others ("speedup_..._ember",
// "..._openblas"), the median of per-round ratios. Each round's GFLOP/s go
// to stderr.
//
// Idle threads must not spin while the other library runs: the program
// re-executes itself with KMP_BLOCKTIME=1 (libomp's workers sleep after 1
// ms idle, not 200) and OPENBLAS_THREAD_TIMEOUT=22 (OpenBLAS's after 2^22
// cycles, about 1.5 ms, not 2^28) unless they are set, and waits 10 ms
// between samples. Within a sample (one or more calls) every library's
// threads stay awake, as with the defaults. (A block time of 0 would make
// ember's workers sleep between the parallel loops of one matmul: at 1024,
// 2 threads, that cost ember about 10%.)
#include "bench_util.h"

#include "ember/ember.h"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace ember;

namespace {

/// The median of `values` and a 95% interval for it that assumes nothing
/// of their distribution: the order statistics n/2 -+ 0.98 sqrt(n)
/// (a binomial's normal approximation).
struct MedianInterval {
  double median, low, high;
};
MedianInterval medianInterval(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  double n = static_cast<double>(values.size());
  double half = 0.98 * std::sqrt(n);
  auto at = [&](double rank) {
    long i = std::lround(rank);
    return values[static_cast<size_t>(std::clamp(i, 0L, static_cast<long>(n) - 1))];
  };
  return {values[values.size() / 2], at(std::floor(n / 2 - half)), at(std::ceil(n / 2 + half))};
}

void compare(int rounds, const std::vector<int> &threadCounts, int m, int k, int n) {
  Tensor a = random_uniform({m, k}, 1), b = random_uniform({k, n}, 2);
  std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>();
  std::vector<float> cv(static_cast<size_t>(m) * n);
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.f, av.data(), k, bv.data(),
                n, 0.f, cv.data(), n);
  };
  double flop = 2.0 * m * n * k;
  // Samples of about 50 ms at 150 GFLOP/s.
  long iterations = std::max(1L, static_cast<long>(0.05 / (flop / 150e9)));
  size_t counts = threadCounts.size();
  std::vector<std::vector<double>> emberTimes(counts), blasTimes(counts);
  Tensor c;
  for (size_t t = 0; t < counts; ++t) { // compile (or load) and warm up both
    set_num_threads(threadCounts[t]);
    openblas_set_num_threads(threadCounts[t]);
    c = matmul(a, b);
    blas();
  }
  std::string shape = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
  for (int round = 0; round < rounds; ++round) {
    for (size_t t = 0; t < counts; ++t) {
      set_num_threads(threadCounts[t]);
      openblas_set_num_threads(threadCounts[t]);
      // Each sample after 10 ms idle: the other library's threads asleep.
      auto sample = [&](auto &&body) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return bench::medianSeconds(1, iterations, body);
      };
      auto timeEmber = [&] { emberTimes[t].push_back(sample([&] { c = matmul(a, b); })); };
      auto timeBlas = [&] { blasTimes[t].push_back(sample(blas)); };
      if (round % 2 == 0) {
        timeEmber();
        timeBlas();
      } else {
        timeBlas();
        timeEmber();
      }
      std::fprintf(stderr, "%s %d thread(s) round %d: ember %.1f GFLOP/s, OpenBLAS %.1f, %.3fx\n",
                   shape.c_str(), threadCounts[t], round, flop / emberTimes[t].back() / 1e9,
                   flop / blasTimes[t].back() / 1e9,
                   blasTimes[t].back() / emberTimes[t].back());
    }
  }
  auto suffix = [&](size_t t) {
    return counts == 1 && threadCounts[0] == 1 ? std::string()
                                               : "_t" + std::to_string(threadCounts[t]);
  };
  auto gflops = [&](const std::vector<double> &times) {
    return flop / medianInterval(times).median / 1e9;
  };
  for (size_t t = 0; t < counts; ++t) {
    std::vector<double> ratios;
    int wins = 0;
    for (int r = 0; r < rounds; ++r) {
      ratios.push_back(blasTimes[t][r] / emberTimes[t][r]);
      wins += ratios.back() >= 1.0;
    }
    MedianInterval ratio = medianInterval(ratios);
    std::string name = shape + suffix(t);
    bench::report(("sgemm_vs_blas.ratio_" + name).c_str(), ratio.median, "x");
    bench::report(("sgemm_vs_blas.ratio_low_" + name).c_str(), ratio.low, "x");
    bench::report(("sgemm_vs_blas.ratio_high_" + name).c_str(), ratio.high, "x");
    std::string ofRounds = "of " + std::to_string(rounds);
    bench::report(("sgemm_vs_blas.wins_" + name).c_str(), wins, ofRounds.c_str());
    bench::report(("sgemm_vs_blas.ember_" + name).c_str(), gflops(emberTimes[t]), "GFLOP/s");
    bench::report(("sgemm_vs_blas.openblas_" + name).c_str(), gflops(blasTimes[t]), "GFLOP/s");
  }
  for (size_t t = 1; t < counts; ++t) {
    std::string name = "sgemm_vs_blas.speedup_" + shape + "_t" + std::to_string(threadCounts[0]) +
                       "_t" + std::to_string(threadCounts[t]);
    auto speedup = [&](const std::vector<std::vector<double>> &times) {
      std::vector<double> perRound;
      for (int r = 0; r < rounds; ++r)
        perRound.push_back(times[0][r] / times[t][r]);
      return medianInterval(perRound).median;
    };
    bench::report((name + "_ember").c_str(), speedup(emberTimes), "x");
    bench::report((name + "_openblas").c_str(), speedup(blasTimes), "x");
  }
}

std::vector<int> parseCounts(const char *text) {
  std::vector<int> counts;
  for (const char *p = text; *p;) {
    char *end;
    long value = std::strtol(p, &end, 10);
    if (end == p || value < 1) {
      std::fprintf(stderr, "sgemm_vs_blas: -t takes thread counts like 1,2 (got '%s')\n", text);
      std::exit(2);
    }
    counts.push_back(static_cast<int>(value));
    p = *end == ',' ? end + 1 : end;
  }
  return counts;
}

} // namespace

int main(int argc, char **argv) {
  if (!std::getenv("KMP_BLOCKTIME") || !std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
    setenv("KMP_BLOCKTIME", "1", 0);
    setenv("OPENBLAS_THREAD_TIMEOUT", "22", 0);
    execv("/proc/self/exe", argv);
    std::perror("sgemm_vs_blas: re-executing with KMP_BLOCKTIME and OPENBLAS_THREAD_TIMEOUT");
    return 1;
  }
  std::vector<int> threadCounts = {1};
  int arg = 1;
  if (argc > 2 && std::strcmp(argv[1], "-t") == 0) {
    threadCounts = parseCounts(argv[2]);
    arg = 3;
  }
  int rounds = argc > arg ? std::atoi(argv[arg]) : 5;
  if (rounds < 1) {
    std::fprintf(stderr, "sgemm_vs_blas: rounds must be at least 1\n");
    return 2;
  }
  if (argc > arg + 3) {
    for (int i = arg + 1; i + 2 < argc; i += 3)
      compare(rounds, threadCounts, std::atoi(argv[i]), std::atoi(argv[i + 1]),
              std::atoi(argv[i + 2]));
    return 0;
  }
  // The squares of matmul_bench, and the shapes between them where row
  // groups are (4096x512x4096) or are not (4096x1024x4096) worth it.
  const int shapes[][3] = {{1024, 1024, 1024}, {4096, 4096, 4096}, {2048, 2048, 2048},
                           {4096, 512, 4096},  {4096, 1024, 4096}};
  for (const auto &s : shapes)
    compare(rounds, threadCounts, s[0], s[1], s[2]);
}
