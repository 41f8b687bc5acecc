//===- host_buffer.cpp - reference-counted buffers, caching allocator -----===//
//
// Buffers are recycled per thread by size class (powers of two from 64 bytes),
// so an eager loop that frees and allocates the same sizes never calls malloc.
// A buffer released on another thread goes to that thread's cache, which
// keeps a bounded number per size class.
//
//===----------------------------------------------------------------------===//

#include "emberrt/runtime.h"
#include "emberrt/cuda.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include <unistd.h>

namespace {
// Size classes: powers of two up to 1 MiB, then four per doubling (1.25,
// 1.5, 1.75 and 2 times a power of two), so that a large buffer (a batch's
// activations: ResNet-18's 103 MB at batch 32) takes at most a quarter more
// than it asked for rather than up to twice.
constexpr int kPowerClasses = 15; // EMBERRT_BUFFER_ALIGNMENT << 14 = 1 MiB
constexpr int kStepsPerDoubling = 4;
constexpr int kNumClasses = kPowerClasses + kStepsPerDoubling * 34;

/// The memory this process may use: the machine's, or less where a cgroup
/// (a container) limits it (cgroup v2's memory.max, v1's limit_in_bytes).
size_t usableMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  size_t memory = pages > 0 && pageSize > 0 ? size_t(pages) * size_t(pageSize) : 0;
  for (const char *path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    if (FILE *file = std::fopen(path, "r")) {
      unsigned long long limit = 0;
      if (std::fscanf(file, "%llu", &limit) == 1 && limit > 0 && limit < memory) // not "max"
        memory = static_cast<size_t>(limit);
      std::fclose(file);
    }
  }
  return memory;
}

// Upper bounds of what one thread keeps cached; beyond them memory is freed.
// The byte bound, an eighth of the memory the process may use (the
// machine's or its container's) between 256 MiB and 4 GiB, holds a large
// batch's temporaries (ResNet-18 at batch 32 cycles through 1.1 GB of them a
// call; with 256 MiB cached, each call mapped and faulted in fresh pages for
// the rest: a sixth of its time).
size_t maxCachedBytes() {
  static const size_t bound = std::clamp(usableMemory() / 8, size_t(256) << 20, size_t(4) << 30);
  return bound;
}
// Per size class too: a thread that only frees what another allocates (a
// prefetching input pipeline's consumer) would otherwise keep every buffer
// it was given, up to the byte bound, and never reuse one.
constexpr size_t kMaxCachedPerClass = 16;

size_t classCapacity(int cls) {
  if (cls < kPowerClasses)
    return size_t(EMBERRT_BUFFER_ALIGNMENT) << cls;
  int past = cls - kPowerClasses, step = past % kStepsPerDoubling + 1; // 1.25x ... 2x
  size_t base = size_t(EMBERRT_BUFFER_ALIGNMENT) << (kPowerClasses - 1 + past / kStepsPerDoubling);
  return base + base / kStepsPerDoubling * step;
}

/// The smallest class whose capacity holds `size` (kNumClasses if none).
int sizeClass(size_t size) {
  int cls = 0;
  while (cls < kNumClasses && classCapacity(cls) < size)
    ++cls;
  return cls;
}

// The header sits in the first aligned block, the data right after it.
constexpr size_t kHeaderBytes = EMBERRT_BUFFER_ALIGNMENT;
static_assert(sizeof(emberrt_buffer_t) <= kHeaderBytes);

// Set when this thread's cache has been destroyed (at thread exit; for the
// main thread, before static objects): a buffer that outlives it (a static
// Tensor, another thread_local) is then freed directly, never cached.
thread_local bool cacheGone = false;

struct ThreadCache {
  std::vector<emberrt_buffer_t *> free[kNumClasses];
  emberrt_allocator_stats_t stats{};

  ~ThreadCache() {
    trim();
    cacheGone = true;
  }

  void trim() {
    for (auto &list : free) {
      for (emberrt_buffer_t *buffer : list)
        std::free(buffer);
      list.clear();
    }
    stats.bytes_cached = 0;
  }
};

ThreadCache &cache() {
  thread_local ThreadCache instance;
  return instance;
}
} // namespace

extern "C" emberrt_status_t emberrt_buffer_allocate(size_t size, emberrt_buffer_t **out) {
  if (!out)
    return EMBERRT_INVALID_ARGUMENT;
  int cls = sizeClass(size);
  if (cls >= kNumClasses)
    return EMBERRT_OUT_OF_MEMORY;
  ThreadCache *tc = cacheGone ? nullptr : &cache();
  if (tc)
    ++tc->stats.allocations;
  emberrt_buffer_t *buffer;
  if (tc && !tc->free[cls].empty()) {
    buffer = tc->free[cls].back();
    tc->free[cls].pop_back();
    tc->stats.bytes_cached -= classCapacity(cls);
    ++tc->stats.cache_hits;
  } else {
    void *memory = std::aligned_alloc(EMBERRT_BUFFER_ALIGNMENT, kHeaderBytes + classCapacity(cls));
    if (!memory)
      return EMBERRT_OUT_OF_MEMORY;
    buffer = static_cast<emberrt_buffer_t *>(memory);
    buffer->capacity = classCapacity(cls);
    buffer->data = static_cast<char *>(memory) + kHeaderBytes;
  }
  buffer->refcount = 1;
  buffer->size = size;
  buffer->device = EMBERRT_DEVICE_CPU;
  *out = buffer;
  return EMBERRT_OK;
}

extern "C" void emberrt_buffer_retain(emberrt_buffer_t *buffer) {
  std::atomic_ref<int64_t>(buffer->refcount).fetch_add(1, std::memory_order_relaxed);
}

extern "C" void emberrt_buffer_release(emberrt_buffer_t *buffer) {
  if (!buffer)
    return;
  // The last reference (no other holder can retain it meanwhile) skips the
  // locked decrement.
  std::atomic_ref<int64_t> refcount(buffer->refcount);
  if (refcount.load(std::memory_order_acquire) != 1 &&
      refcount.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  if (buffer->device != EMBERRT_DEVICE_CPU) { // the header alone is from new
    if (buffer->device == EMBERRT_DEVICE_CUDA)
      emberrt_cuda_free(buffer->data);
    else
      emberrt_cuda_pinned_free(buffer->data);
    delete buffer;
    return;
  }
  if (cacheGone) {
    std::free(buffer);
    return;
  }
  ThreadCache &tc = cache();
  int cls = sizeClass(buffer->capacity);
  if (tc.stats.bytes_cached + buffer->capacity > maxCachedBytes() ||
      tc.free[cls].size() >= kMaxCachedPerClass) {
    std::free(buffer);
    return;
  }
  tc.free[cls].push_back(buffer);
  tc.stats.bytes_cached += buffer->capacity;
}

extern "C" void emberrt_allocator_stats(emberrt_allocator_stats_t *stats) {
  if (stats)
    *stats = cache().stats;
}

extern "C" void emberrt_allocator_trim(void) { cache().trim(); }

// The owning buffer's address sits in the 8 bytes before the returned
// pointer: inside the buffer's header block when the data is returned as is,
// inside the data when a larger alignment moved the pointer forward.
extern "C" void *emberrt_scratch_allocate(size_t alignment, size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return nullptr;
  size_t extra = alignment > EMBERRT_BUFFER_ALIGNMENT ? alignment : 0;
  if (size > SIZE_MAX - extra)
    return nullptr;
  emberrt_buffer_t *buffer;
  if (emberrt_buffer_allocate(size + extra, &buffer) != EMBERRT_OK)
    return nullptr;
  auto address = reinterpret_cast<uintptr_t>(buffer->data);
  if (extra)
    address = (address + sizeof(void *) + alignment - 1) & ~(uintptr_t(alignment) - 1);
  void *data = reinterpret_cast<void *>(address);
  static_assert(sizeof(emberrt_buffer_t) + sizeof(void *) <= kHeaderBytes);
  std::memcpy(static_cast<char *>(data) - sizeof(void *), &buffer, sizeof(void *));
  return data;
}

extern "C" void emberrt_scratch_free(void *data) {
  if (!data)
    return;
  emberrt_buffer_t *buffer;
  std::memcpy(&buffer, static_cast<char *>(data) - sizeof(void *), sizeof(void *));
  emberrt_buffer_release(buffer);
}

extern "C" emberrt_status_t emberrt_memref_init(emberrt_memref_t *memref, void *data, int rank,
                                                const int64_t *sizes) {
  if (!memref || rank < 0 || rank > EMBERRT_MAX_RANK || (rank > 0 && !sizes))
    return EMBERRT_INVALID_ARGUMENT;
  memref->allocated = data;
  memref->aligned = data;
  memref->offset = 0;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    memref->sizes_and_strides[d] = sizes[d];
    memref->sizes_and_strides[rank + d] = stride;
    stride *= sizes[d];
  }
  return EMBERRT_OK;
}

namespace {
/// Views a ranked descriptor of `rank` dims: {alloc, aligned, offset, sizes, strides}.
struct StridedView {
  char *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};

StridedView viewOf(const emberrt_unranked_memref_t *memref) {
  auto *words = static_cast<int64_t *>(memref->descriptor);
  return {reinterpret_cast<char *>(words[1]), words[2], words + 3, words + 3 + memref->rank};
}
} // namespace

extern "C" void emberrt_memref_copy(int64_t element_size, emberrt_unranked_memref_t *source,
                                    emberrt_unranked_memref_t *target) {
  int64_t rank = source->rank;
  StridedView from = viewOf(source), to = viewOf(target);
  int64_t total = 1;
  for (int64_t d = 0; d < rank; ++d)
    total *= from.sizes[d];
  if (total == 0)
    return;
  // The innermost dims that are one contiguous run in both (strides 1,
  // and each outer stride the run below it) copy with one memcpy: a padded
  // or sliced tensor's rows, not element by element.
  int64_t run = 1, outer = rank;
  while (outer > 0 && from.strides[outer - 1] == run && to.strides[outer - 1] == run) {
    run *= from.sizes[outer - 1];
    --outer;
  }
  size_t runBytes = static_cast<size_t>(run * element_size);
  // Walk the outer index space like an odometer, keeping both offsets.
  std::vector<int64_t> index(static_cast<size_t>(outer), 0);
  int64_t fromOffset = from.offset, toOffset = to.offset;
  for (int64_t n = 0; n < total / run; ++n) {
    std::memcpy(to.aligned + toOffset * element_size, from.aligned + fromOffset * element_size,
                runBytes);
    for (int64_t d = outer - 1; d >= 0; --d) {
      ++index[d];
      fromOffset += from.strides[d];
      toOffset += to.strides[d];
      if (index[d] < from.sizes[d])
        break;
      fromOffset -= from.strides[d] * from.sizes[d];
      toOffset -= to.strides[d] * from.sizes[d];
      index[d] = 0;
    }
  }
}

//===----------------------------------------------------------------------===//
// Printing from compiled code
//===----------------------------------------------------------------------===//

namespace {
std::atomic<emberrt_print_hook_t> printHook{nullptr};

template <typename T>
void plainPrint(const char *message, size_t messageSize, const StridedView &view, int64_t rank) {
  std::fwrite(message, 1, messageSize, stdout);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t total = 1;
  for (int64_t d = 0; d < rank; ++d)
    total *= view.sizes[d];
  std::fputc('[', stdout);
  for (int64_t n = 0; n < total; ++n) {
    int64_t offset = view.offset;
    for (int64_t d = 0, rem = n; d < rank; ++d) {
      int64_t inner = 1;
      for (int64_t e = d + 1; e < rank; ++e)
        inner *= view.sizes[e];
      offset += (rem / inner) * view.strides[d];
      rem %= inner;
    }
    T value;
    std::memcpy(&value, view.aligned + offset * sizeof(T), sizeof(T));
    std::printf(n ? " %g" : "%g", static_cast<double>(value));
  }
  std::fputs("]\n", stdout);
  std::fflush(stdout);
}

template <typename T>
void printMemref(emberrt_dtype_t dtype, int64_t rank, void *descriptor, int64_t messageRank,
                 void *message) {
  emberrt_unranked_memref_t value{rank, descriptor}, text{messageRank, message};
  StridedView view = viewOf(&value), textView = viewOf(&text);
  const char *chars = textView.aligned + textView.offset;
  size_t size = messageRank == 1 ? static_cast<size_t>(textView.sizes[0]) : 0;
  if (emberrt_print_hook_t hook = printHook.load()) {
    hook(chars, size, dtype, static_cast<int>(rank), view.sizes, view.strides,
         view.aligned + view.offset * static_cast<int64_t>(sizeof(T)));
    return;
  }
  plainPrint<T>(chars, size, view, rank);
}
} // namespace

extern "C" void emberrt_set_print_hook(emberrt_print_hook_t hook) { printHook.store(hook); }

extern "C" void emberrt_print_i1(int64_t rank, void *d, int64_t mrank, void *m) {
  printMemref<bool>(EMBERRT_BOOL, rank, d, mrank, m);
}
extern "C" void emberrt_print_i32(int64_t rank, void *d, int64_t mrank, void *m) {
  printMemref<int32_t>(EMBERRT_INT32, rank, d, mrank, m);
}
extern "C" void emberrt_print_i64(int64_t rank, void *d, int64_t mrank, void *m) {
  printMemref<int64_t>(EMBERRT_INT64, rank, d, mrank, m);
}
extern "C" void emberrt_print_f32(int64_t rank, void *d, int64_t mrank, void *m) {
  printMemref<float>(EMBERRT_FLOAT32, rank, d, mrank, m);
}
extern "C" void emberrt_print_f64(int64_t rank, void *d, int64_t mrank, void *m) {
  printMemref<double>(EMBERRT_FLOAT64, rank, d, mrank, m);
}

namespace {
/// A buffer over `size` bytes of `malloc`'s memory, released with `free`.
emberrt_status_t driverBuffer(size_t size, emberrt_device_kind_t device,
                              emberrt_status_t (*malloc)(size_t, void **), void (*free)(void *),
                              emberrt_buffer_t **out) {
  if (!out)
    return EMBERRT_INVALID_ARGUMENT;
  void *data = nullptr;
  if (emberrt_status_t status = malloc(size, &data); status != EMBERRT_OK)
    return status;
  auto *buffer = new (std::nothrow) emberrt_buffer_t{};
  if (!buffer) {
    free(data);
    return EMBERRT_OUT_OF_MEMORY;
  }
  buffer->refcount = 1;
  buffer->size = size;
  buffer->capacity = size;
  buffer->data = data;
  buffer->device = device;
  *out = buffer;
  return EMBERRT_OK;
}
} // namespace

extern "C" emberrt_status_t emberrt_cuda_buffer_allocate(size_t size, emberrt_buffer_t **out) {
  return driverBuffer(size, EMBERRT_DEVICE_CUDA, emberrt_cuda_malloc, emberrt_cuda_free, out);
}

extern "C" emberrt_status_t emberrt_cuda_pinned_buffer_allocate(size_t size,
                                                              emberrt_buffer_t **out) {
  return driverBuffer(size, EMBERRT_DEVICE_CUDA_PINNED, emberrt_cuda_pinned_malloc,
                      emberrt_cuda_pinned_free, out);
}
