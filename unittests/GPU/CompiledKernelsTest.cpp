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

TEST(GpuKernels, PowerLoopOfMatmulsWithTemporaries) {
  REQUIRE_GPU();
  // x = 0.9 I + noise: x^100 stays finite; every step allocates a temporary
  // on the device and frees the previous one (buffer deallocation's
  // ownership flags stay on the host).
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

} // namespace
