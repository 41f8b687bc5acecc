// The runtime's buffers, caching allocator and memref descriptors.
#include "emberrt/runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

TEST(HostBuffer, AllocationIsAlignedAndSized) {
  emberrt_buffer_t *buffer = nullptr;
  ASSERT_EQ(emberrt_buffer_allocate(100, &buffer), EMBERRT_OK);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data) % EMBERRT_BUFFER_ALIGNMENT, 0u);
  EXPECT_EQ(buffer->size, 100u);
  EXPECT_GE(buffer->capacity, 100u);
  EXPECT_EQ(buffer->refcount, 1);
  emberrt_buffer_release(buffer);
}

TEST(HostBuffer, ReleasedMemoryIsReusedWithoutMalloc) {
  emberrt_allocator_trim();
  emberrt_buffer_t *first = nullptr, *second = nullptr;
  ASSERT_EQ(emberrt_buffer_allocate(4000, &first), EMBERRT_OK);
  void *data = first->data;
  emberrt_buffer_release(first);
  emberrt_allocator_stats_t before, after;
  emberrt_allocator_stats(&before);
  ASSERT_EQ(emberrt_buffer_allocate(3000, &second), EMBERRT_OK); // same size class
  emberrt_allocator_stats(&after);
  EXPECT_EQ(second->data, data);
  EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
  emberrt_buffer_release(second);
}

// Large buffers (a batch's activations) take at most a quarter more than
// asked (classes of 1.25, 1.5, 1.75 and 2 times a power of two above 1 MiB),
// and one of hundreds of MB is cached and reused like a small one.
TEST(HostBuffer, LargeBuffersTakeAtMostAQuarterMoreAndAreReused) {
  emberrt_allocator_trim();
  for (size_t size : {size_t(1) << 20, (size_t(1) << 20) + 1, size_t(5000000), size_t(102760448),
                      size_t(200) << 20}) { // under the least bound (256 MiB)
    emberrt_buffer_t *buffer = nullptr;
    ASSERT_EQ(emberrt_buffer_allocate(size, &buffer), EMBERRT_OK) << size;
    EXPECT_GE(buffer->capacity, size);
    EXPECT_LE(buffer->capacity, size + size / 4) << size;
    void *data = buffer->data;
    emberrt_buffer_release(buffer);
    ASSERT_EQ(emberrt_buffer_allocate(size, &buffer), EMBERRT_OK) << size;
    EXPECT_EQ(buffer->data, data) << size << " bytes were not reused";
    emberrt_buffer_release(buffer);
  }
  emberrt_allocator_trim();
}

TEST(HostBuffer, AThreadThatOnlyFreesKeepsABoundedCache) {
  // A producer thread allocates, this one frees (a prefetching pipeline):
  // the cache keeps a few buffers of the size, not all of them.
  emberrt_allocator_trim();
  constexpr int kBuffers = 200;
  std::vector<emberrt_buffer_t *> made(kBuffers);
  std::thread([&] {
    for (auto &buffer : made)
      ASSERT_EQ(emberrt_buffer_allocate(100000, &buffer), EMBERRT_OK);
  }).join();
  for (emberrt_buffer_t *buffer : made)
    emberrt_buffer_release(buffer);
  emberrt_allocator_stats_t stats;
  emberrt_allocator_stats(&stats);
  EXPECT_GT(stats.bytes_cached, 0u);
  EXPECT_LE(stats.bytes_cached, 16u * 131072u) << "at most 16 buffers of a size class";
  emberrt_allocator_trim();
}

namespace {
struct ReleaseAtThreadExit {
  emberrt_buffer_t *buffer = nullptr;
  ~ReleaseAtThreadExit() {
    emberrt_buffer_release(buffer);
    emberrt_buffer_t *late = nullptr; // and one allocated after the cache is gone
    if (emberrt_buffer_allocate(100, &late) == EMBERRT_OK)
      emberrt_buffer_release(late);
  }
};
} // namespace

TEST(HostBuffer, BuffersOutlivingTheThreadsCacheAreFreed) {
  // A thread_local made before the thread's first allocation is destroyed
  // after its cache (as a static Tensor outlives the main thread's): its
  // buffer must not go into the destroyed cache (ASan would see it).
  std::thread([] {
    thread_local ReleaseAtThreadExit holder;
    ASSERT_EQ(emberrt_buffer_allocate(1000, &holder.buffer), EMBERRT_OK);
  }).join();
}

TEST(HostBuffer, SharedOwnershipKeepsTheBufferAlive) {
  emberrt_buffer_t *buffer = nullptr;
  ASSERT_EQ(emberrt_buffer_allocate(64, &buffer), EMBERRT_OK);
  emberrt_buffer_retain(buffer);
  emberrt_buffer_release(buffer);
  EXPECT_EQ(buffer->refcount, 1);
  static_cast<char *>(buffer->data)[0] = 42; // still ours
  emberrt_buffer_release(buffer);
}

TEST(HostBuffer, ReleaseOnAnotherThreadIsSafe) {
  emberrt_buffer_t *buffer = nullptr;
  ASSERT_EQ(emberrt_buffer_allocate(1 << 20, &buffer), EMBERRT_OK);
  std::thread([buffer] { emberrt_buffer_release(buffer); }).join();
}

TEST(HostBuffer, InvalidArgumentsAreRefused) {
  EXPECT_EQ(emberrt_buffer_allocate(8, nullptr), EMBERRT_INVALID_ARGUMENT);
  emberrt_memref_t memref;
  int64_t sizes[9] = {};
  EXPECT_EQ(emberrt_memref_init(&memref, nullptr, 9, sizes), EMBERRT_INVALID_ARGUMENT);
  EXPECT_EQ(emberrt_memref_init(nullptr, nullptr, 0, nullptr), EMBERRT_INVALID_ARGUMENT);
}

TEST(MemrefDescriptor, RowMajorStridesFollowTheSizes) {
  float data[24];
  int64_t sizes[3] = {2, 3, 4};
  emberrt_memref_t memref;
  ASSERT_EQ(emberrt_memref_init(&memref, data, 3, sizes), EMBERRT_OK);
  EXPECT_EQ(memref.aligned, data);
  EXPECT_EQ(memref.offset, 0);
  // sizes, then strides, packed for rank 3
  int64_t expected[6] = {2, 3, 4, 12, 4, 1};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(memref.sizes_and_strides[i], expected[i]) << i;
}

TEST(ScratchMemory, IsAlignedAndRecycledThroughTheCache) {
  emberrt_allocator_trim();
  void *first = emberrt_scratch_allocate(64, 1 << 20);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  static_cast<char *>(first)[(1 << 20) - 1] = 1; // the whole size is usable
  emberrt_scratch_free(first);
  emberrt_allocator_stats_t before, after;
  emberrt_allocator_stats(&before);
  void *second = emberrt_scratch_allocate(64, 1 << 20);
  emberrt_allocator_stats(&after);
  EXPECT_EQ(second, first);
  EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
  emberrt_scratch_free(second);
  emberrt_scratch_free(nullptr);
}

TEST(ScratchMemory, HonoursLargeAlignmentsAndRefusesBadOnes) {
  for (size_t alignment : {1, 16, 128, 4096}) {
    void *data = emberrt_scratch_allocate(alignment, 1000);
    ASSERT_NE(data, nullptr) << alignment;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % alignment, 0u) << alignment;
    static_cast<char *>(data)[999] = 1;
    emberrt_scratch_free(data);
  }
  EXPECT_EQ(emberrt_scratch_allocate(0, 8), nullptr);
  EXPECT_EQ(emberrt_scratch_allocate(48, 8), nullptr);
}

namespace {
/// A rank-3 memref descriptor (allocated, aligned, offset, sizes, strides).
struct Descriptor3 {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
};
} // namespace

TEST(MemrefCopy, StridedViewsCopyElementForElement) {
  // A [2, 3, 4] source into the middle of a [4, 5, 6] target (a padding's
  // insert_slice): contiguous runs of 4, strided rows and planes.
  std::vector<float> source(24), target(4 * 5 * 6, -1.f);
  for (size_t i = 0; i < source.size(); ++i)
    source[i] = static_cast<float>(i);
  Descriptor3 from{source.data(), source.data(), 0, {2, 3, 4}, {12, 4, 1}};
  Descriptor3 to{target.data(), target.data(), 1 * 30 + 1 * 6 + 1, {2, 3, 4}, {30, 6, 1}};
  emberrt_unranked_memref_t a{3, &from}, b{3, &to};
  emberrt_memref_copy(sizeof(float), &a, &b);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t k = 0; k < 6; ++k) {
        bool inside = i >= 1 && i < 3 && j >= 1 && j < 4 && k >= 1 && k < 5;
        float expected = inside ? static_cast<float>(((i - 1) * 3 + (j - 1)) * 4 + (k - 1)) : -1.f;
        ASSERT_EQ(target[(i * 5 + j) * 6 + k], expected) << i << " " << j << " " << k;
      }
  // A transposing view (no contiguous run): element by element.
  std::vector<float> transposed(24);
  Descriptor3 t{transposed.data(), transposed.data(), 0, {2, 3, 4}, {1, 8, 2}};
  emberrt_unranked_memref_t c{3, &t};
  emberrt_memref_copy(sizeof(float), &a, &c);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k)
        ASSERT_EQ(transposed[i + j * 8 + k * 2], source[(i * 3 + j) * 4 + k]);
}
