//===- OnceCacheTest.cpp - made once per key, shared by every thread -----===//

#include "ember/Support/OnceCache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

using ember::support::OnceCache;
using ember::support::WordsHash;

namespace {

using Cache = OnceCache<std::vector<int64_t>, int, WordsHash>;

TEST(OnceCache, ConcurrentCallersOfOneKeyMakeItOnce) {
  Cache cache;
  std::atomic<int> makes{0};
  std::atomic<int> madeHere{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      bool made = false;
      const int &value = cache.getOrMake(
          {1, 2, 3},
          [&] {
            ++makes;
            // Long enough for the other threads to arrive and wait.
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            return 42;
          },
          &made);
      EXPECT_EQ(value, 42);
      madeHere += made;
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(makes.load(), 1);
  EXPECT_EQ(madeHere.load(), 1);
  EXPECT_EQ(cache.stats().misses, 1u);
  EXPECT_EQ(cache.stats().hits, 7u);
  // Another key is made on its own; the first stays.
  EXPECT_EQ(cache.getOrMake({1, 2}, [] { return 7; }), 7);
  EXPECT_EQ(cache.getOrMake({1, 2, 3}, []() -> int { throw std::logic_error("not again"); }), 42);
}

TEST(OnceCache, AFailedMakeReachesEveryWaiterAndIsNotKept) {
  Cache cache;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      try {
        cache.getOrMake({9}, []() -> int {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          throw std::runtime_error("refused");
        });
      } catch (const std::runtime_error &e) {
        EXPECT_STREQ(e.what(), "refused");
        ++failures;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 4);
  EXPECT_EQ(cache.stats().failures, 1u);
  // The next caller makes it again.
  bool made = false;
  EXPECT_EQ(cache.getOrMake({9}, [] { return 5; }, &made), 5);
  EXPECT_TRUE(made);
  EXPECT_EQ(cache.stats().misses, 2u);
}

} // namespace
