// The eager kernel cache: one compile per signature, hits afterwards, safe
// from many threads.
#include "ember/ember.h"

#include <gtest/gtest.h>

#include "llvm/Support/CommandLine.h"

#include <thread>
#include <vector>

using namespace ember;

TEST(KernelCache, SecondCallOfASignatureCompilesNothing) {
  Tensor a = ones({3, 7}), b = ones({3, 7});
  (void)(a + b);
  KernelCacheStats before = kernel_cache_stats();
  for (int i = 0; i < 10; ++i)
    (void)(a + b);
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_EQ(after.hits, before.hits + 10);
}

// The tests that count compiles use rank-4 and rank-5 signatures no other
// test uses, so that they count the same when the whole binary runs in one
// process (shape-generic kernels are shared by every size of a signature).

TEST(KernelCache, NewDTypeOrAttributeIsANewKernelANewSizeIsNot) {
  Tensor a = ones({5, 11, 2, 3}, DType::Int32);
  (void)reduce_sum(a, {0, 2});
  uint64_t misses = kernel_cache_stats().misses;
  uint64_t shapes = kernel_cache_stats().generic_shapes;
  (void)reduce_sum(a, {1, 2}); // new attribute
  EXPECT_EQ(kernel_cache_stats().misses, misses + 1);
  (void)reduce_sum(ones({5, 12, 2, 3}, DType::Int32), {1, 2}); // new size: the generic kernel
  EXPECT_EQ(kernel_cache_stats().misses, misses + 1);
  EXPECT_EQ(kernel_cache_stats().generic_shapes, shapes + 2); // [5, 11, ...] and [5, 12, ...]
  (void)reduce_sum(ones({5, 1, 2, 3}, DType::Int32), {1, 2}); // a size of 1: a kernel of its own
  EXPECT_EQ(kernel_cache_stats().misses, misses + 2);
  (void)reduce_sum(ones({5, 12, 2, 3}, DType::Int64), {1, 2}); // new dtype
  EXPECT_EQ(kernel_cache_stats().misses, misses + 3);
  (void)reduce_sum(a, {1, 2});
  EXPECT_EQ(kernel_cache_stats().misses, misses + 3);
  EXPECT_GT(kernel_cache_stats().compile_seconds, 0.0);
}

TEST(KernelCache, ConcurrentMissesCompileOnce) {
  Tensor a = ones({13, 17, 1, 3, 2}, DType::Float64), b = ones({13, 17, 1, 3, 2}, DType::Float64);
  uint64_t misses = kernel_cache_stats().misses;
  std::vector<std::thread> threads;
  std::vector<double> sums(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i)
        sums[t] = reduce_sum(maximum(a, b * 2.0)).item<double>();
    });
  for (auto &thread : threads)
    thread.join();
  for (double sum : sums)
    EXPECT_EQ(sum, 13 * 17 * 1 * 3 * 2 * 2);
  // mul (with the scalar's broadcast inside it), maximum and reduce_sum: one
  // kernel each, whatever the thread count.
  EXPECT_EQ(kernel_cache_stats().misses, misses + 3);
}

TEST(KernelCache, EagerBroadcastsHappenInsideTheOpsKernel) {
  // x + 1 and a [3, 1] + [1, 4] outer sum are one kernel each: no broadcast
  // operand is materialized (numpy semantics kept).
  Tensor x = ones({5, 7, 2, 3}, DType::Float64);
  uint64_t misses = kernel_cache_stats().misses;
  EXPECT_EQ((x + 1.0).to_vector<double>(), std::vector<double>(210, 2.0));
  EXPECT_EQ(kernel_cache_stats().misses, misses + 1);
  Tensor column = cast(Tensor({{1}, {2}, {3}}), DType::Int64),
         row = cast(Tensor({{10, 20, 30, 40}}), DType::Int64);
  misses = kernel_cache_stats().misses;
  Tensor outer = column + row;
  EXPECT_EQ(kernel_cache_stats().misses, misses + 1);
  EXPECT_EQ(outer.shape(), (Shape{3, 4}));
  EXPECT_EQ(outer.to_vector<int64_t>(),
            (std::vector<int64_t>{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43}));
  // where(): condition, and both branches, broadcast in one kernel.
  Tensor picked = where(Tensor({true, false, true}), Tensor({{1.f}, {2.f}}), Tensor(0.f));
  EXPECT_EQ(picked.to_vector<float>(), (std::vector<float>{1, 0, 1, 2, 0, 2}));
}

TEST(KernelCache, DifferentSignaturesCompileInParallelThreads) {
  std::vector<std::thread> threads;
  std::vector<int> results(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Tensor x = arange(0, 20 + t);
      results[t] = reduce_sum(x * x).item<int>();
    });
  for (auto &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t) {
    int n = 20 + t, expected = 0;
    for (int i = 0; i < n; ++i)
      expected += i * i;
    EXPECT_EQ(results[t], expected);
  }
}

// Compiling leaves LLVM's process-wide options alone (a program may embed
// ember next to other LLVM users): the JIT limits loop unrolling with loop
// metadata, not with -unroll-threshold and friends.
TEST(KernelCache, CompilingChangesNoGlobalLLVMOptions) {
  auto traced = ember::function(
      [](const ember::Tensor &x) {
        ember::Tensor t = x;
        for (int i = 0; i < 3; ++i)
          t = ember::matmul(t, x) + 1.0f;
        return t;
      },
      "unrolling_probe");
  (void)traced(ember::random_uniform({7, 7}, 3));
  auto &options = llvm::cl::getRegisteredOptions();
  for (const char *name : {"unroll-threshold", "unroll-runtime", "unroll-allow-partial"})
    if (auto it = options.find(name); it != options.end())
      EXPECT_EQ(it->second->getNumOccurrences(), 0) << name;
}

// A thread keeps its recent hits in a small table by hash: many signatures
// take turns in its slots, and each call still runs its own kernel.
TEST(KernelCache, ManySignaturesTakingTurnsEachRunTheirOwnKernel) {
  constexpr int kShapes = 100; // more than the recent-hit table's slots
  for (int n = 1; n <= kShapes; ++n)
    (void)(arange(0, n) * 2);
  uint64_t misses = kernel_cache_stats().misses;
  for (int round = 0; round < 3; ++round)
    for (int n = kShapes; n >= 1; n -= 1 + round) {
      std::vector<int> doubled = (arange(0, n) * 2).to_vector<int>();
      ASSERT_EQ(doubled.size(), size_t(n));
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(doubled[i], 2 * i) << "shape [" << n << "]";
    }
  EXPECT_EQ(kernel_cache_stats().misses, misses); // all hits
}

// Handles on one tensor are copied and dropped by many threads while the
// owner keeps its own: the last one out frees the value once (the sanitizer
// build checks for a double free), and the value lives until then.
TEST(KernelCache, HandlesSharedAcrossThreadsFreeTheValueOnce) {
  for (int trial = 0; trial < 20; ++trial) {
    auto shared = std::make_unique<Tensor>(full({4, 4}, 3.f));
    std::vector<std::thread> threads;
    std::vector<float> sums(4);
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t, copy = *shared] {
        float sum = 0;
        for (int i = 0; i < 200; ++i) {
          Tensor again = copy;
          sum = reduce_sum(again + 1.f).item<float>();
        }
        sums[t] = sum;
      });
    shared.reset(); // the threads' copies keep the value alive
    for (auto &thread : threads)
      thread.join();
    for (float sum : sums)
      EXPECT_EQ(sum, 16 * 4);
  }
}
