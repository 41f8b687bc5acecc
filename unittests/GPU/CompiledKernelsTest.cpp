//===- CompiledKernelsTest.cpp - ember's GPU code on a GPU ----------------===//
//
// The functions of kernels.mlir, compiled ahead of time for sm_90 by
// ember-lower-to-nvvm, run on the GPU and are compared with references
// computed here on the CPU. Without a GPU every test skips, naming why
// (emberrt_cuda_status).
//
//===----------------------------------------------------------------------===//

#include "gpu_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace ember::gpu_test;

namespace {

#define REQUIRE_GPU()                                                                              \
  if (!emberrt_cuda_available())                                                                   \
  GTEST_SKIP() << "no GPU: " << emberrt_cuda_status()

template <typename T> std::vector<T> randomValues(size_t n, unsigned seed, T low, T high) {
  std::mt19937 engine(seed);
  std::vector<T> values(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> dist(low, high);
    for (T &v : values)
      v = dist(engine);
  } else {
    std::uniform_int_distribution<T> dist(low, high);
    for (T &v : values)
      v = dist(engine);
  }
  return values;
}

template <typename T>
void expectNear(const std::vector<T> &got, const std::vector<T> &expected, double tolerance,
                const char *what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], tolerance * std::max(1.0, std::abs(double(expected[i]))))
        << what << " at " << i;
}

float chainElement(float x) {
  float t = x;
  for (int op = 0; op < 8; ++op)
    t = op % 3 == 0 ? t * 1.0001f : op % 3 == 1 ? t + 0.5f : std::max(t, x);
  return t;
}

TEST(GpuKernels, ElementwiseChainIsOneKernelOverAnyShape) {
  REQUIRE_GPU();
  // 256 x 1000: the last block is partial.
  std::vector<float> x = randomValues<float>(256 * 1000, 1, -2, 2), expected(x.size());
  std::transform(x.begin(), x.end(), expected.begin(), chainElement);
  DeviceArray in = DeviceArray::from(x, {256, 1000}), out({256, 1000}, sizeof(float));
  call(ember_entry_chain8_small, {&in, &out});
  expectNear(out.toHost<float>(), expected, 1e-6, "chain8_small");
}

TEST(GpuKernels, LargeChain) {
  REQUIRE_GPU();
  std::vector<float> x = randomValues<float>(size_t(16384) * 4096, 2, -2, 2), expected(x.size());
  std::transform(x.begin(), x.end(), expected.begin(), chainElement);
  DeviceArray in = DeviceArray::from(x, {16384, 4096}), out({16384, 4096}, sizeof(float));
  call(ember_entry_chain8_big, {&in, &out});
  expectNear(out.toHost<float>(), expected, 1e-6, "chain8_big");
}

TEST(GpuKernels, SmallAdd) {
  REQUIRE_GPU();
  std::vector<float> a = randomValues<float>(100, 3, -1, 1), b = randomValues<float>(100, 4, -1, 1);
  std::vector<float> expected(100);
  for (int i = 0; i < 100; ++i)
    expected[i] = a[i] + b[i];
  DeviceArray da = DeviceArray::from(a, {10, 10}), db = DeviceArray::from(b, {10, 10});
  DeviceArray out({10, 10}, sizeof(float));
  call(ember_entry_add10, {&da, &db, &out});
  EXPECT_EQ(out.toHost<float>(), expected);
}

TEST(GpuKernels, SoftmaxWithReductionsAndBroadcasts) {
  REQUIRE_GPU();
  std::vector<float> x = randomValues<float>(64 * 100, 5, -5, 5), expected(x.size());
  for (int r = 0; r < 64; ++r) {
    float m = *std::max_element(&x[r * 100], &x[r * 100 + 100]);
    double sum = 0;
    for (int c = 0; c < 100; ++c)
      sum += std::exp(double(x[r * 100 + c]) - m);
    for (int c = 0; c < 100; ++c)
      expected[r * 100 + c] = float(std::exp(double(x[r * 100 + c]) - m) / sum);
  }
  DeviceArray in = DeviceArray::from(x, {64, 100}), out({64, 100}, sizeof(float));
  call(ember_entry_softmax, {&in, &out});
  expectNear(out.toHost<float>(), expected, 1e-5, "softmax");
}

TEST(GpuKernels, FullReductionTransposeAndIntegers) {
  REQUIRE_GPU();
  std::vector<double> x = randomValues<double>(300 * 7, 6, -1, 1);
  std::vector<int32_t> i = randomValues<int32_t>(300, 7, -1000, 1000);
  double sum = 0;
  std::vector<double> transposed(7 * 300);
  for (int r = 0; r < 300; ++r)
    for (int c = 0; c < 7; ++c) {
      sum += x[r * 7 + c];
      transposed[c * 300 + r] = x[r * 7 + c];
    }
  std::vector<int32_t> floorDiv(300);
  for (int k = 0; k < 300; ++k)
    floorDiv[k] = (i[k] * i[k]) / 7; // non-negative: floor is truncation
  DeviceArray dx = DeviceArray::from(x, {300, 7}), di = DeviceArray::from(i, {300});
  DeviceArray dsum({}, sizeof(double)), dt({7, 300}, sizeof(double)), dq({300}, sizeof(int32_t));
  call(ember_entry_mixed, {&dx, &di, &dsum, &dt, &dq});
  EXPECT_NEAR(dsum.toHost<double>()[0], sum, 1e-9);
  EXPECT_EQ(dt.toHost<double>(), transposed);
  EXPECT_EQ(dq.toHost<int32_t>(), floorDiv);
}

std::vector<float> referenceMatmul(const std::vector<float> &a, const std::vector<float> &b, int m,
                                   int k, int n) {
  std::vector<float> c(size_t(m) * n, 0.f);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk)
      for (int j = 0; j < n; ++j)
        c[size_t(i) * n + j] += a[size_t(i) * k + kk] * b[size_t(kk) * n + j];
  return c;
}

TEST(GpuKernels, Matmul) {
  REQUIRE_GPU();
  std::vector<float> a = randomValues<float>(256 * 96, 8, -1, 1), b = randomValues<float>(96 * 200, 9, -1, 1);
  DeviceArray da = DeviceArray::from(a, {256, 96}), db = DeviceArray::from(b, {96, 200});
  DeviceArray out({256, 200}, sizeof(float));
  call(ember_entry_matmul, {&da, &db, &out});
  expectNear(out.toHost<float>(), referenceMatmul(a, b, 256, 96, 200), 1e-4, "matmul");
}

TEST(GpuKernels, LargeMatmulWithPartialTiles) {
  REQUIRE_GPU();
  std::vector<float> a = randomValues<float>(1030 * 700, 13, -1, 1), b = randomValues<float>(700 * 1100, 14, -1, 1);
  DeviceArray da = DeviceArray::from(a, {1030, 700}), db = DeviceArray::from(b, {700, 1100});
  DeviceArray out({1030, 1100}, sizeof(float));
  call(ember_entry_matmul_large_edges, {&da, &db, &out});
  expectNear(out.toHost<float>(), referenceMatmul(a, b, 1030, 700, 1100), 1e-4, "matmul_large_edges");
}

// 16-bit values as the kernels store them: bfloat16 the top half of a
// float32 (inputs truncated, so exactly what the reference reads), float16
// clang's _Float16.
uint16_t toBFloat16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  return uint16_t(bits >> 16);
}
float fromBFloat16(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

/// C = op(A) op(B) in double from A [m, k] (or [k, m] transposed) and B
/// [k, n] (or [n, k]).
std::vector<double> referenceMatmul(const std::vector<float> &a, const std::vector<float> &b, int m,
                                    int k, int n, bool aTransposed, bool bTransposed) {
  std::vector<double> c(size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk) {
      double x = a[aTransposed ? size_t(kk) * m + i : size_t(i) * k + kk];
      for (int j = 0; j < n; ++j)
        c[size_t(i) * n + j] += x * b[bTransposed ? size_t(j) * k + kk : size_t(kk) * n + j];
    }
  return c;
}

/// Runs a 16-bit matmul `entry` on random operands of `aShape` and `bShape`
/// and compares C with the double reference to one unit in the last place
/// of C's type (2^-7 relative for bfloat16, 2^-10 for float16): the float32
/// sums differ from it by far less, a wrong fragment by O(1).
template <typename Half>
void expectHalfMatmul(emberrt_entry_fn entry, std::vector<int64_t> aShape,
                      std::vector<int64_t> bShape, bool aTransposed, bool bTransposed,
                      const char *what) {
  int m = int(aTransposed ? aShape[1] : aShape[0]), k = int(aTransposed ? aShape[0] : aShape[1]);
  int n = int(bTransposed ? bShape[0] : bShape[1]);
  constexpr bool bf16 = std::is_same_v<Half, uint16_t>;
  auto encode = [](const std::vector<float> &values, std::vector<float> &exact) {
    std::vector<Half> encoded;
    for (float v : values) {
      if constexpr (bf16)
        encoded.push_back(toBFloat16(v));
      else
        encoded.push_back(Half(v));
      exact.push_back(bf16 ? fromBFloat16(uint16_t(encoded.back())) : float(encoded.back()));
    }
    return encoded;
  };
  std::vector<float> aExact, bExact;
  std::vector<Half> a = encode(randomValues<float>(size_t(m) * k, 21, -1, 1), aExact);
  std::vector<Half> b = encode(randomValues<float>(size_t(k) * n, 22, -1, 1), bExact);
  DeviceArray da = DeviceArray::from(a, aShape), db = DeviceArray::from(b, bShape);
  DeviceArray out({m, n}, sizeof(Half));
  call(entry, {&da, &db, &out});
  std::vector<double> expected = referenceMatmul(aExact, bExact, m, k, n, aTransposed, bTransposed);
  std::vector<Half> got = out.toHost<Half>();
  double ulp = bf16 ? 1.0 / 128 : 1.0 / 1024;
  for (size_t i = 0; i < got.size(); ++i) {
    double value = bf16 ? fromBFloat16(uint16_t(got[i])) : double(float(got[i]));
    ASSERT_NEAR(value, expected[i], ulp * std::max(1.0, std::abs(expected[i])))
        << what << " at row " << i / n << ", column " << i % n;
  }
}

TEST(GpuKernels, BFloat16AndFloat16MatmulsOnTensorCores) {
  REQUIRE_GPU();
  expectHalfMatmul<uint16_t>(ember_entry_matmul_bf16_edges, {200, 72}, {72, 136}, false, false,
                             "matmul_bf16_edges");
  expectHalfMatmul<_Float16>(ember_entry_matmul_f16_transposed, {72, 200}, {136, 72}, true, true,
                             "matmul_f16_transposed");
  expectHalfMatmul<uint16_t>(ember_entry_matmul_bf16_large_edges, {1030, 264}, {1096, 264}, false,
                             true, "matmul_bf16_large_edges");
}

TEST(GpuKernels, PowerLoopOfMatmulsWithTemporaries) {
  REQUIRE_GPU();
  // x = 0.9 I + noise: x^100 stays finite. One kernel of one block runs the
  // loop; its temporaries are shared memory, so calls allocate nothing on
  // the device.
  std::vector<float> x = randomValues<float>(100, 10, -0.01f, 0.01f);
  for (int d = 0; d < 10; ++d)
    x[d * 11] += 0.9f;
  std::vector<float> expected(100, 0.f);
  for (int d = 0; d < 10; ++d)
    expected[d * 11] = 1.f;
  for (int step = 0; step < 100; ++step)
    expected = referenceMatmul(expected, x, 10, 10, 10);
  DeviceArray dx = DeviceArray::from(x, {10, 10}), out({10, 10}, sizeof(float));
  uint64_t allocationsBefore = 0, allocationsAfter = 0;
  call(ember_entry_power100, {&dx, &out}); // warm the allocator's cache
  emberrt_cuda_allocator_stats(&allocationsBefore, nullptr, nullptr);
  call(ember_entry_power100, {&dx, &out});
  emberrt_cuda_allocator_stats(&allocationsAfter, nullptr, nullptr);
  expectNear(out.toHost<float>(), expected, 1e-4, "power100");
  EXPECT_EQ(allocationsAfter, allocationsBefore) << "temporaries must come from the cache";
}

TEST(GpuKernels, WhileLoopOnATensorConditionRunsOnTheDevice) {
  REQUIRE_GPU();
  // Halve x while its sum is above 1: the condition is read inside the
  // kernel. The kernel sums in index order, as here, so the number of
  // halvings is the same.
  std::vector<float> x = randomValues<float>(16, 15, 0.5f, 4.f), expected = x;
  auto sum = [](const std::vector<float> &v) {
    float total = 0.f;
    for (float e : v)
      total += e;
    return total;
  };
  while (sum(expected) > 1.f)
    for (float &e : expected)
      e *= 0.5f;
  DeviceArray dx = DeviceArray::from(x, {16}), out({16}, sizeof(float));
  call(ember_entry_halve_while, {&dx, &out});
  EXPECT_EQ(out.toHost<float>(), expected);
}

TEST(GpuKernels, CondInsideALoop) {
  REQUIRE_GPU();
  std::vector<int32_t> x = randomValues<int32_t>(64, 16, -3, 4), expected = x;
  for (int step = 0; step < 10; ++step) {
    int64_t total = 0;
    for (int32_t e : expected)
      total += e;
    for (int32_t &e : expected)
      e = total > 0 ? e - 1 : e * 2;
  }
  DeviceArray dx = DeviceArray::from(x, {8, 8}), out({8, 8}, sizeof(int32_t));
  call(ember_entry_cond_loop, {&dx, &out});
  EXPECT_EQ(out.toHost<int32_t>(), expected);
}

TEST(GpuKernels, ReductionsAsBlockTrees) {
  REQUIRE_GPU();
  // 16M elements: blocks share the output (atomic adds of block totals).
  std::vector<float> x = randomValues<float>(size_t(1) << 24, 11, -1, 1);
  double sum = 0;
  for (float v : x)
    sum += v;
  DeviceArray dx = DeviceArray::from(x, {int64_t(1) << 24}), dsum({}, sizeof(float));
  call(ember_entry_sum16m, {&dx, &dsum});
  EXPECT_NEAR(dsum.toHost<float>()[0], sum, 1e-5 * (1 << 24) * 0.1);
  // A block per row.
  std::vector<float> m = randomValues<float>(size_t(4096) * 4096, 12, -100, 100);
  std::vector<float> expected(4096);
  for (int r = 0; r < 4096; ++r)
    expected[r] = *std::max_element(&m[size_t(r) * 4096], &m[size_t(r) * 4096] + 4096);
  DeviceArray dm = DeviceArray::from(m, {4096, 4096}), dmax({4096}, sizeof(float));
  call(ember_entry_row_max, {&dm, &dmax});
  EXPECT_EQ(dmax.toHost<float>(), expected);
}

/// C = A^T B for A [k, m], B [k, n] (row-major).
std::vector<float> transposedTimes(const std::vector<float> &a, const std::vector<float> &b, int k,
                                   int m, int n) {
  std::vector<float> c(size_t(m) * n, 0.f);
  for (int kk = 0; kk < k; ++kk)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        c[size_t(i) * n + j] += a[size_t(kk) * m + i] * b[size_t(kk) * n + j];
  return c;
}

/// C = A B^T for A [m, k], B [n, k].
std::vector<float> timesTransposed(const std::vector<float> &a, const std::vector<float> &b, int m,
                                   int k, int n) {
  std::vector<float> c(size_t(m) * n, 0.f);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int kk = 0; kk < k; ++kk)
        c[size_t(i) * n + j] += a[size_t(i) * k + kk] * b[size_t(j) * k + kk];
  return c;
}

TEST(GpuKernels, MlpTrainingStepMatchesHandWrittenBackprop) {
  REQUIRE_GPU();
  const int batch = 64, sizes[] = {784, 256, 256, 10};
  std::vector<std::vector<float>> w, b;
  for (int l = 0; l < 3; ++l) {
    float scale = std::sqrt(6.f / float(sizes[l] + sizes[l + 1]));
    w.push_back(randomValues<float>(size_t(sizes[l]) * sizes[l + 1], 20 + l, -scale, scale));
    b.push_back(randomValues<float>(sizes[l + 1], 30 + l, -0.1f, 0.1f));
  }
  std::vector<float> x = randomValues<float>(size_t(batch) * 784, 40, 0, 1), y(batch * 10, 0.f);
  for (int r = 0; r < batch; ++r)
    y[r * 10 + (r * 7) % 10] = 1.f;

  // Forward, softmax cross-entropy, backward, SGD (lr 0.1), by hand.
  std::vector<std::vector<float>> pre(3), act(4);
  act[0] = x;
  for (int l = 0; l < 3; ++l) {
    pre[l] = referenceMatmul(act[l], w[l], batch, sizes[l], sizes[l + 1]);
    for (int r = 0; r < batch; ++r)
      for (int c = 0; c < sizes[l + 1]; ++c)
        pre[l][r * sizes[l + 1] + c] += b[l][c];
    act[l + 1] = pre[l];
    if (l < 2)
      for (float &v : act[l + 1])
        v = std::max(v, 0.f);
  }
  double loss = 0;
  std::vector<float> delta(batch * 10);
  for (int r = 0; r < batch; ++r) {
    float *logits = &act[3][r * 10];
    float m = *std::max_element(logits, logits + 10);
    double sum = 0;
    for (int c = 0; c < 10; ++c)
      sum += std::exp(double(logits[c]) - m);
    for (int c = 0; c < 10; ++c) {
      double logp = double(logits[c]) - m - std::log(sum);
      loss -= y[r * 10 + c] * logp / batch;
      delta[r * 10 + c] = float((std::exp(logp) - y[r * 10 + c]) / batch);
    }
  }
  std::vector<std::vector<float>> newW(3), newB(3);
  for (int l = 2; l >= 0; --l) {
    std::vector<float> gw = transposedTimes(act[l], delta, batch, sizes[l], sizes[l + 1]);
    std::vector<float> gb(sizes[l + 1], 0.f);
    for (int r = 0; r < batch; ++r)
      for (int c = 0; c < sizes[l + 1]; ++c)
        gb[c] += delta[r * sizes[l + 1] + c];
    if (l > 0) {
      std::vector<float> back = timesTransposed(delta, w[l], batch, sizes[l + 1], sizes[l]);
      for (size_t i = 0; i < back.size(); ++i)
        back[i] = pre[l - 1][i] > 0 ? back[i] : 0.f;
      delta = back;
    }
    newW[l] = w[l];
    for (size_t i = 0; i < gw.size(); ++i)
      newW[l][i] -= 0.1f * gw[i];
    newB[l] = b[l];
    for (size_t i = 0; i < gb.size(); ++i)
      newB[l][i] -= 0.1f * gb[i];
  }

  std::vector<DeviceArray> in;
  for (int l = 0; l < 3; ++l) {
    in.push_back(DeviceArray::from(w[l], {sizes[l], sizes[l + 1]}));
    in.push_back(DeviceArray::from(b[l], {sizes[l + 1]}));
  }
  in.push_back(DeviceArray::from(x, {batch, 784}));
  in.push_back(DeviceArray::from(y, {batch, 10}));
  std::vector<DeviceArray> out;
  out.emplace_back(std::vector<int64_t>{}, sizeof(float));
  for (int l = 0; l < 3; ++l) {
    out.emplace_back(std::vector<int64_t>{sizes[l], sizes[l + 1]}, sizeof(float));
    out.emplace_back(std::vector<int64_t>{sizes[l + 1]}, sizeof(float));
  }
  std::vector<DeviceArray *> args;
  for (DeviceArray &a : in)
    args.push_back(&a);
  for (DeviceArray &a : out)
    args.push_back(&a);
  call(ember_entry_mlp_step, args);
  EXPECT_NEAR(out[0].toHost<float>()[0], loss, 1e-4 * std::max(1.0, loss));
  for (int l = 0; l < 3; ++l) {
    expectNear(out[1 + 2 * l].toHost<float>(), newW[l], 1e-4, "updated weights");
    expectNear(out[2 + 2 * l].toHost<float>(), newB[l], 1e-4, "updated biases");
  }
}

} // namespace
