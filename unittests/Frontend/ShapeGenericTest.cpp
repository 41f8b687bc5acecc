// Shape-generic eager kernels: a new size of a seen op compiles nothing; hot
// shapes are specialized in the background; generic, specialized and a
// double-precision reference agree on random shapes.
#include "ember/ember.h"

#include "Dispatcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ember;

namespace {

/// x of [rows, cols] with values that vary along both axes.
Tensor ramp(int64_t rows, int64_t cols) {
  std::vector<float> values(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(static_cast<int64_t>(i % 97) - 48) / 16.0f;
  return Tensor::from_vector(values, {rows, cols});
}

} // namespace

TEST(ShapeGeneric, NewRowCountsCompileNothing) {
  Tensor w = reshape(ramp(1, 24), {24}), b = reshape(ramp(1, 24), {24}) * 0.5;
  auto step = [&](int64_t rows) { return reduce_sum(relu(ramp(rows, 24) * w + b), {1}); };
  (void)step(1000); // compiles one generic kernel per op
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t rows = 1001; rows < 1040; ++rows)
    (void)step(rows);
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.misses, before.misses); // no compile for 39 new row counts
  EXPECT_EQ(after.generic_kernels, before.generic_kernels);
  EXPECT_GE(after.generic_shapes, before.generic_shapes + 39 * 4);
}

TEST(ShapeGeneric, ResultsMatchTheShapeItWasCalledWith) {
  Tensor w = reshape(ramp(1, 5), {5});
  for (int64_t rows : {2, 3, 7, 64, 129}) {
    Tensor x = ramp(rows, 5);
    Tensor y = x * w;
    ASSERT_EQ(y.shape(), Shape({rows, 5}));
    std::vector<float> xs = x.to_vector<float>(), ws = w.to_vector<float>(), ys = y.to_vector<float>();
    for (int64_t i = 0; i < rows * 5; ++i)
      ASSERT_EQ(ys[i], xs[i] * ws[i % 5]) << "rows " << rows << " element " << i;
    Tensor mean = reduce_mean(x, {0}, /*keepdims=*/true);
    ASSERT_EQ(mean.shape(), Shape({1, 5}));
    std::vector<float> means = mean.to_vector<float>();
    for (int64_t c = 0; c < 5; ++c) {
      double sum = 0;
      for (int64_t r = 0; r < rows; ++r)
        sum += xs[r * 5 + c];
      EXPECT_NEAR(means[c], sum / rows, 1e-5) << "rows " << rows;
    }
  }
}

TEST(ShapeGeneric, SizesZeroAndOneAreKernelsOfTheirOwn) {
  // A size-1 dim broadcasts, so [1, 6] + [4, 6] and [3, 6] + [4, 6]... are
  // different programs; both still give numpy's answers.
  Tensor a = ramp(1, 6), b = ramp(4, 6);
  EXPECT_EQ((a + b).shape(), Shape({4, 6}));
  EXPECT_EQ((ramp(4, 6) + b).shape(), Shape({4, 6}));
  EXPECT_EQ(reduce_sum(zeros({0, 6}), {0}).to_vector<float>(), std::vector<float>(6, 0.0f));
  EXPECT_EQ((zeros({0, 6}) + ramp(1, 6)).shape(), Shape({0, 6}));
}

TEST(ShapeGeneric, MismatchedShapesStillRaiseAtTheCallersLine) {
  (void)(ramp(3, 4) + ramp(3, 4)); // the generic kernel exists
  try {
    (void)(ramp(3, 4) + ramp(4, 3));
    FAIL() << "no error";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("ShapeGenericTest.cpp:"), std::string::npos) << message;
    EXPECT_NE(message.find("'ember.add' op"), std::string::npos) << message;
  }
}

/// Sets the hot-shape count for one test, then waits for its compiles (so
/// that the next test's counts are its own) and restores the count.
struct HotShapes {
  explicit HotShapes(uint32_t calls) : saved(hot_shape_calls()) { set_hot_shape_calls(calls); }
  ~HotShapes() {
    finish_background_compiles();
    set_hot_shape_calls(saved);
  }
  uint32_t saved;
};

TEST(ShapeGeneric, HotShapesAreSpecializedInTheBackgroundAndStayCorrect) {
  HotShapes hot(16);
  Tensor x = ramp(333, 17), y = ramp(333, 17) * 2.0;
  (void)(x - y);
  KernelCacheStats before = kernel_cache_stats();
  std::vector<float> first = (x - y).to_vector<float>();
  for (int i = 0; i < 40; ++i)
    (void)(x - y);
  finish_background_compiles();
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_GE(after.background_compiles, before.background_compiles + 1);
  EXPECT_GE(after.specializations, before.specializations + 1);
  EXPECT_EQ((x - y).to_vector<float>(), first); // the specialization computes the same
}

// After its first, a call on a large tensor counts one call per 64K
// elements: a shape of 512K elements is hot at its second call with a count
// of 8 (its next calls run the specialization, on every thread), a small
// one after 8 calls. Large shapes called once use up none of the kernel's
// specializations.
TEST(ShapeGeneric, LargeShapesAreHotSooner) {
  HotShapes hot(8);
  Tensor big = ramp(1024, 512), small = ramp(7, 13); // 2^19 and 91 elements
  (void)(small * 3.0); // the generic kernel, compiled for the first shape
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t rows = 1000; rows < 1010; ++rows) // ten large shapes, once each
    (void)(ramp(rows, 512) * 3.0);
  std::vector<float> first = (big * 3.0).to_vector<float>();
  finish_background_compiles();
  EXPECT_EQ(kernel_cache_stats().specializations, before.specializations);
  EXPECT_EQ((big * 3.0).to_vector<float>(), first);
  finish_background_compiles();
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.specializations, before.specializations + 1);
  EXPECT_EQ((big * 3.0).to_vector<float>(), first);
  for (int i = 0; i < 6; ++i)
    (void)(small * 3.0);
  finish_background_compiles();
  EXPECT_EQ(kernel_cache_stats().specializations, after.specializations); // 7 calls: not yet
  (void)(small * 3.0);
  finish_background_compiles();
  EXPECT_EQ(kernel_cache_stats().specializations, after.specializations + 1);
}

// Random shapes, ranks and broadcast patterns for each op family: the
// kernels the cache serves (generic first, specialized once hot) agree with
// a double-precision reference.
TEST(ShapeGeneric, RandomShapesAgreeWithADoubleReference) {
  HotShapes hot(10);
  std::mt19937 rng(25);
  auto size = [&] { return std::uniform_int_distribution<int64_t>(1, 40)(rng); };
  for (int trial = 0; trial < 36; ++trial) {
    int rank = 1 + trial % 3;
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d)
      dims.push_back(size());
    Shape shape(dims);
    // The second operand broadcasts: trailing dims, some of them 1.
    std::vector<int64_t> small(dims.begin() + (rank > 1 ? 1 : 0), dims.end());
    for (int64_t &d : small)
      if (std::uniform_int_distribution<int>(0, 2)(rng) == 0)
        d = 1;
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    std::vector<float> xs(static_cast<size_t>(shape.numel())), ys(static_cast<size_t>(Shape(small).numel()));
    for (float &v : xs)
      v = value(rng);
    for (float &v : ys)
      v = value(rng);
    Tensor x = Tensor::from_vector(xs, shape), y = Tensor::from_vector(ys, Shape(small));
    for (int repeat = 0; repeat < 20; ++repeat) { // crosses the hot-shape threshold
      std::vector<float> got = tanh(x * y + y).to_vector<float>();
      for (int64_t i = 0; i < shape.numel(); ++i) {
        // The broadcast operand's element for flat index i of x.
        int64_t rem = i, yi = 0, stride = 1;
        std::vector<int64_t> index(rank);
        for (int d = rank - 1; d >= 0; --d) {
          index[d] = rem % dims[d];
          rem /= dims[d];
        }
        for (int d = static_cast<int>(small.size()) - 1; d >= 0; --d) {
          int64_t at = small[d] == 1 ? 0 : index[d + rank - small.size()];
          yi += at * stride;
          stride *= small[d];
        }
        double expected = std::tanh(double(xs[i]) * ys[yi] + ys[yi]);
        ASSERT_NEAR(got[i], expected, 1e-5) << "shape " << shape.str() << " element " << i;
      }
      int axis = static_cast<int>(trial % rank);
      std::vector<float> sums = reduce_sum(x, {axis}).to_vector<float>();
      std::vector<double> reference(sums.size(), 0.0);
      for (int64_t i = 0; i < shape.numel(); ++i) {
        int64_t rem = i, out = 0, outStride = 1;
        for (int d = rank - 1; d >= 0; --d) {
          int64_t at = rem % dims[d];
          rem /= dims[d];
          if (d != axis) {
            out += at * outStride;
            outStride *= dims[d];
          }
        }
        reference[out] += xs[i];
      }
      for (size_t i = 0; i < sums.size(); ++i)
        ASSERT_NEAR(sums[i], reference[i], 1e-4) << "shape " << shape.str() << " axis " << axis;
    }
  }
  finish_background_compiles();
}

// By default a shape is specialized once it has been called 100 times.
TEST(ShapeGeneric, AShapeIsSpecializedAfter100CallsByDefault) {
  if (std::getenv("EMBER_HOT_SHAPE_CALLS"))
    GTEST_SKIP() << "EMBER_HOT_SHAPE_CALLS is set";
  ASSERT_EQ(hot_shape_calls(), 100u);
  // (Under 64K elements, so that each call counts one.)
  Tensor x = ramp(1000 + static_cast<int64_t>(std::random_device{}() % 6000), 9);
  KernelCacheStats before = kernel_cache_stats();
  for (int i = 0; i < 99; ++i)
    (void)(x * x);
  finish_background_compiles();
  EXPECT_EQ(kernel_cache_stats().background_compiles, before.background_compiles);
  (void)(x * x);
  finish_background_compiles();
  EXPECT_EQ(kernel_cache_stats().background_compiles, before.background_compiles + 1);
  EXPECT_EQ(kernel_cache_stats().specializations, before.specializations + 1);
}

// With specialization on, a program that waits for its background compiles
// before it exits (the documented contract) exits cleanly.
TEST(ShapeGeneric, ExitAfterFinishingBackgroundCompilesIsClean) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto hotShapeThenExit = [] {
    set_hot_shape_calls(4);
    // A shape no earlier run compiled, so the specialization is a real compile.
    int64_t rows = 1000 + static_cast<int64_t>(std::random_device{}() % 100000);
    Tensor x = ramp(rows, 7);
    for (int i = 0; i < 20; ++i)
      (void)(x * x);
    finish_background_compiles();
    std::exit(kernel_cache_stats().background_compiles == 1 ? 0 : 1);
  };
  EXPECT_EXIT(hotShapeThenExit(), testing::ExitedWithCode(0), "");
}

// A program that exits (returns from main or calls exit) while a background
// compile is in flight exits cleanly: the compile finishes before any static
// destructor runs. Each round specializes shapes no earlier run compiled.
TEST(ShapeGeneric, ExitDuringABackgroundCompileIsClean) {
  // The guard that stops the background compiler before exit destroys
  // anything was made on the main thread at start-up (a guard that was
  // never made left exit to the handlers that run after LLVM's lazily made
  // statics are destroyed: a crash in LLVM's code generator, now and then).
  EXPECT_TRUE(detail::backgroundCompilesStopAtMainThreadExit());
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int round = 0; round < 4; ++round) {
    // Odd rounds call the ops on another thread: the main thread's exit
    // still waits for the compile that thread queued.
    auto exitWhileCompiling = [round] {
      set_hot_shape_calls(2);
      auto calls = [] {
        int64_t rows = 1000 + static_cast<int64_t>(std::random_device{}() % 100000);
        Tensor x = ramp(rows, 7), y = ramp(rows, 3);
        for (int i = 0; i < 3; ++i) {
          (void)(x * x);
          (void)tanh(y);
          (void)reduce_sum(x, {1});
        }
      };
      if (round % 2)
        std::thread(calls).join();
      else
        calls();
      // Three compiles queued, the first one running (2: none was left).
      std::exit(kernel_cache_stats().background_compiles < 3 ? 0 : 2);
    };
    EXPECT_EXIT(exitWhileCompiling(), testing::ExitedWithCode(0), "") << "round " << round;
  }
}

// A fork while compiles are queued (one in flight): the child, which has
// no background thread of its parent's, specializes its own hot shapes and
// waits for them without hanging.
TEST(ShapeGeneric, AForkedChildSpecializesItsOwnHotShapes) {
  HotShapes hot(2);
  Tensor x = ramp(1000 + static_cast<int64_t>(std::random_device{}() % 100000), 5);
  for (int i = 0; i < 3; ++i) {
    (void)(x * x);
    (void)tanh(x);
  }
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(120); // a hang ends the child, and fails the test
    uint64_t before = kernel_cache_stats().specializations;
    bool ok = true;
    // Two rounds: the second wakes the child's own worker, waiting by then.
    for (int round = 0; round < 2; ++round) {
      Tensor y = ramp(1000 + static_cast<int64_t>(std::random_device{}() % 100000), 6 + round);
      for (int i = 0; i < 3; ++i)
        (void)(y + y);
      finish_background_compiles();
      std::vector<float> values = (y + y).to_vector<float>(), expected = y.to_vector<float>();
      for (float &v : expected)
        v *= 2;
      ok = ok && values == expected;
    }
    _exit(kernel_cache_stats().specializations == before + 2 && ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

/// A [rows, cols] tensor of random values in [-1, 1].
static Tensor randomMatrix(std::mt19937 &rng, std::vector<int64_t> dims) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(Shape(dims).numel()));
  for (float &v : values)
    v = value(rng);
  return Tensor::from_vector(values, Shape(dims));
}

/// C = A @ B in double precision, batched over the leading dims.
static std::vector<double> referenceMatmul(const Tensor &a, const Tensor &b) {
  std::vector<int64_t> as = a.shape().vec(), bs = b.shape().vec();
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  int64_t batch = a.shape().numel() / (m * k);
  std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>();
  std::vector<double> c(static_cast<size_t>(batch * m * n), 0.0);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < n; ++j)
          c[(p * m + i) * n + j] += double(av[(p * m + i) * k + kk]) * bv[(p * k + kk) * n + j];
  return c;
}

// Matmuls: one generic kernel serves every M, N and K (sizes 1 keep their
// own); random sizes, across the edges of the register blocks and panels,
// agree with a double-precision reference, batched ones too.
TEST(ShapeGeneric, MatmulsOfRandomSizesAgreeWithADoubleReference) {
  std::mt19937 rng(2025);
  auto size = [&] { return std::uniform_int_distribution<int64_t>(2, 70)(rng); };
  (void)matmul(randomMatrix(rng, {5, 6}), randomMatrix(rng, {6, 7}));
  KernelCacheStats before = kernel_cache_stats();
  for (int trial = 0; trial < 30; ++trial) {
    bool batched = trial % 3 == 2;
    int64_t m = size(), n = size(), k = size(), p = batched ? size() % 4 + 2 : 1;
    std::vector<int64_t> adims = {m, k}, bdims = {k, n};
    if (batched) { // rank 3, or rank 4 (two batch dims)
      adims.insert(adims.begin(), p);
      bdims.insert(bdims.begin(), p);
      if (trial % 6 == 5) {
        adims.insert(adims.begin(), 3);
        bdims.insert(bdims.begin(), 3);
      }
    }
    Tensor a = randomMatrix(rng, adims), b = randomMatrix(rng, bdims);
    Tensor c = matmul(a, b);
    std::vector<int64_t> cdims = adims;
    cdims.back() = n;
    ASSERT_EQ(c.shape(), Shape(cdims));
    std::vector<float> got = c.to_vector<float>();
    std::vector<double> expected = referenceMatmul(a, b);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], expected[i], 1e-4 * k)
          << "A " << a.shape().str() << " B " << b.shape().str() << " element " << i;
  }
  // Rank 2 was compiled above; ranks 3 and 4 compile (or load) once each.
  EXPECT_LE(kernel_cache_stats().misses, before.misses + 2);
}

// A new batch of an MLP layer (x @ w + b, relu) compiles nothing.
TEST(ShapeGeneric, NewBatchSizesOfADenseLayerCompileNothing) {
  std::mt19937 rng(7);
  Tensor w = randomMatrix(rng, {64, 32}), b = reshape(randomMatrix(rng, {1, 32}), {32});
  auto layer = [&](int64_t batch) { return relu(matmul(randomMatrix(rng, {batch, 64}), w) + b); };
  (void)layer(10);
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t batch = 11; batch < 40; ++batch)
    EXPECT_EQ(layer(batch).shape(), Shape({batch, 32}));
  EXPECT_EQ(kernel_cache_stats().misses, before.misses);
}

// Transposes: one generic kernel per rank and permutation.
TEST(ShapeGeneric, TransposesOfNewSizesCompileNothing) {
  std::mt19937 rng(11);
  (void)transpose(randomMatrix(rng, {3, 4, 5}), {2, 0, 1});
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t n : {2, 7, 19}) {
    Tensor x = randomMatrix(rng, {n, n + 1, n + 2});
    Tensor y = transpose(x, {2, 0, 1});
    ASSERT_EQ(y.shape(), Shape({n + 2, n, n + 1}));
    std::vector<float> xs = x.to_vector<float>(), ys = y.to_vector<float>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n + 1; ++j)
        for (int64_t k = 0; k < n + 2; ++k)
          ASSERT_EQ(ys[(k * n + i) * (n + 1) + j], xs[(i * (n + 1) + j) * (n + 2) + k]);
  }
  EXPECT_EQ(kernel_cache_stats().misses, before.misses);
}

// Concatenations (along any axis) and argmax: one kernel per op, rank and
// axis serves every size; values checked element by element.
TEST(ShapeGeneric, ConcatAndArgmaxOfNewSizesCompileNothing) {
  std::mt19937 rng(13);
  (void)concat({randomMatrix(rng, {3, 4}), randomMatrix(rng, {2, 4})}, 0);
  (void)concat({randomMatrix(rng, {3, 4}), randomMatrix(rng, {3, 2})}, 1);
  (void)argmax(randomMatrix(rng, {3, 4}), 1);
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t n : {2, 7, 19}) {
    Tensor a = randomMatrix(rng, {n, n + 1}), b = randomMatrix(rng, {n + 3, n + 1});
    Tensor rows = concat({a, b}, 0);
    ASSERT_EQ(rows.shape(), Shape({2 * n + 3, n + 1}));
    std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>();
    std::vector<float> expected = av;
    expected.insert(expected.end(), bv.begin(), bv.end());
    EXPECT_EQ(rows.to_vector<float>(), expected);
    Tensor c = randomMatrix(rng, {n, n + 4});
    std::vector<float> cols = concat({a, c}, 1).to_vector<float>(), cv = c.to_vector<float>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < 2 * n + 5; ++j)
        ASSERT_EQ(cols[i * (2 * n + 5) + j],
                  j <= n ? av[i * (n + 1) + j] : cv[i * (n + 4) + j - (n + 1)]);
    std::vector<int64_t> best = argmax(b, 1).to_vector<int64_t>();
    for (int64_t i = 0; i < n + 3; ++i) {
      auto row = bv.begin() + i * (n + 1);
      EXPECT_EQ(best[i], std::max_element(row, row + n + 1) - row);
    }
  }
  EXPECT_EQ(kernel_cache_stats().misses, before.misses);
}

// Convolutions and poolings: one kernel per op serves every batch size (its
// heights, widths, channels and filter stay fixed), agreeing with kernels
// traced for each shape.
TEST(ShapeGeneric, ConvolutionsAndPoolingsServeEveryBatchSize) {
  std::mt19937 rng(12);
  std::vector<int64_t> filterDims = {3, 3, 2, 4};
  Tensor filter = randomMatrix(rng, filterDims);
  auto layers = [&](const Tensor &x) {
    Tensor h = relu(nn::conv2d(x, filter, {1, 1}, "SAME"));
    return nn::avg_pool2d(nn::max_pool2d(h, {2, 2}, {2, 2}), {2, 2}, {1, 1}, "SAME");
  };
  auto traced = function(layers, "layers_per_shape");
  (void)layers(randomMatrix(rng, {2, 8, 8, 2})); // compiles one generic kernel per op
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t batch : {3, 5, 9}) {
    Tensor x = randomMatrix(rng, {batch, 8, 8, 2});
    Tensor eager = layers(x), expected = traced(x);
    ASSERT_EQ(eager.shape(), Shape({batch, 4, 4, 4}));
    std::vector<float> a = eager.to_vector<float>(), b = expected.to_vector<float>();
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_NEAR(a[i], b[i], 1e-5) << "batch " << batch << " element " << i;
  }
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.misses, before.misses) << "no eager compile for a new batch size";
  EXPECT_EQ(after.generic_kernels, before.generic_kernels);
  // Another height is another kernel (windows keep their heights and widths).
  EXPECT_EQ(layers(randomMatrix(rng, {3, 6, 8, 2})).shape(), Shape({3, 3, 4, 4}));
  EXPECT_GT(kernel_cache_stats().misses, after.misses);
}
