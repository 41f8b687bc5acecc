//===- ThreadsTest.cpp - parallel loops and the thread count ---------------===//

#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sched.h>

using namespace ember;

namespace {

/// Restores the default thread count when a test ends.
struct DefaultThreadsAfter {
  ~DefaultThreadsAfter() { set_num_threads(0); }
};

TEST(Threads, DefaultIsEveryCpuThisProcessMayUse) {
  cpu_set_t cpus;
  ASSERT_EQ(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
  const char *fromEnvironment = std::getenv("EMBER_NUM_THREADS");
  int expected = fromEnvironment ? std::atoi(fromEnvironment) : CPU_COUNT(&cpus);
  EXPECT_EQ(get_num_threads(), expected);
}

TEST(Threads, SetGetAndRestore) {
  DefaultThreadsAfter restore;
  int all = get_num_threads();
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  set_num_threads(7);
  EXPECT_EQ(get_num_threads(), 7);
  set_num_threads(0);
  EXPECT_EQ(get_num_threads(), all);
  try {
    set_num_threads(-2);
    FAIL() << "a negative count was accepted";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("set_num_threads"), std::string::npos) << e.what();
  }
  EXPECT_EQ(get_num_threads(), all);
}

// Parallel loops split rows (or panels of columns) between threads; every
// element is computed the same way whatever the split, so the results are
// the same bits for 1 thread and for more (here more threads than cores).
TEST(Threads, ResultsAreTheSameForAnyThreadCount) {
  DefaultThreadsAfter restore;
  Tensor a = random_uniform({512, 256}, 3), b = random_uniform({256, 384}, 4);
  auto work = function(
      [](const Tensor &x, const Tensor &y) {
        Tensor e = exp(x) * 0.5f + x;                 // elementwise, 131072 elements
        Tensor rows = reduce_sum(e, {1});             // a reduction along rows
        Tensor product = matmul(e, y);                // a blocked matmul, 9 panels
        Tensor total = reduce_sum(e * e);             // split into 64 partial sums
        return std::make_tuple(e, rows, product, total);
      },
      "parallel_work");
  auto run = [&](int threads) {
    set_num_threads(threads);
    auto [e, rows, product, total] = work(a, b);
    Tensor eager = matmul(exp(a), b); // eager kernels split too
    return std::make_tuple(e.to_vector<float>(), rows.to_vector<float>(),
                           product.to_vector<float>(), eager.to_vector<float>(),
                           total.item<float>(), reduce_sum(a).item<float>());
  };
  auto one = run(1);
  auto three = run(3);
  EXPECT_EQ(std::get<0>(one), std::get<0>(three));
  EXPECT_EQ(std::get<1>(one), std::get<1>(three));
  EXPECT_EQ(std::get<2>(one), std::get<2>(three));
  EXPECT_EQ(std::get<3>(one), std::get<3>(three));
  EXPECT_EQ(std::get<4>(one), std::get<4>(three));
  EXPECT_EQ(std::get<5>(one), std::get<5>(three));
  // ... and they are right: a row's sum, against the elementwise result.
  const std::vector<float> &e = std::get<0>(one);
  double sum = 0;
  for (int j = 0; j < 256; ++j)
    sum += e[7 * 256 + j];
  EXPECT_NEAR(std::get<1>(one)[7], sum, 1e-3 * sum);
  double squares = 0;
  for (float x : e)
    squares += static_cast<double>(x) * x;
  EXPECT_NEAR(std::get<4>(one), squares, 1e-4 * squares);
}

} // namespace
