//===- cuda_driver.cpp - the CUDA driver, device memory and modules -------===//
//
// Opens libcuda.so.1 on first use and keeps, for the whole process, the
// primary context of device 0, one stream, a caching allocator for device
// memory and a cache of loaded modules. The state is created once and never
// destroyed: compiled code unloads its modules from global destructors, which
// may run after this file's static objects would have been.
//
//===----------------------------------------------------------------------===//

#include "cuda_driver.h"

#include <algorithm>
#include <atomic>

#include <dlfcn.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

using namespace emberrt::cuda;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

namespace {
// Trivially destructible, so it can be written from destructors at exit.
thread_local char lastError[2048];

struct State {
  DriverApi api;
  bool available = false;
  char status[512] = "";
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  int major = 0, minor = 0;
};

State *state = nullptr;
std::once_flag initOnce;

// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
void describe(const DriverApi &api, CUresult result, char *out, size_t size) {
  const char *name = nullptr, *description = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (api.cuGetErrorString && api.cuGetErrorString(result, &description) != CUDA_SUCCESS)
    description = nullptr;
  if (name)
    std::snprintf(out, size, "%s (%s)", name, description ? description : "no description");
  else
    std::snprintf(out, size, "CUDA error %d", result);
}
} // namespace

void emberrt::cuda::recordError(const char *format, ...) {
  if (lastError[0])
    return;
  va_list args;
  va_start(args, format);
  std::vsnprintf(lastError, sizeof(lastError), format, args);
  va_end(args);
  if (!lastError[0])
    std::snprintf(lastError, sizeof(lastError), "unknown CUDA error");
}

bool emberrt::cuda::check(CUresult result, const char *function, const char *detail) {
  if (result == CUDA_SUCCESS)
    return true;
  if (lastError[0])
    return false;
  const char *name = nullptr, *description = nullptr;
  char code[32];
  if (state->api.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) {
    std::snprintf(code, sizeof(code), "CUDA error %d", result);
    name = code;
  }
  if (state->api.cuGetErrorString(result, &description) != CUDA_SUCCESS || !description)
    description = "no description";
  if (detail && *detail)
    recordError("%s: %s (in %s): %s", name, description, function, detail);
  else
    recordError("%s: %s (in %s)", name, description, function);
  return false;
}

extern "C" const char *emberrt_cuda_last_error(void) { return lastError; }

extern "C" void emberrt_cuda_clear_error(void) { lastError[0] = '\0'; }

//===----------------------------------------------------------------------===//
// Initialization
//===----------------------------------------------------------------------===//

namespace {
// Fills `api` from the library; on failure names the missing symbol.
bool loadSymbols(void *library, DriverApi &api, char *status, size_t size) {
  const char *missing = nullptr;
  auto find = [&](const char *name, const char *older) -> void * {
    void *address = dlsym(library, name);
    if (!address && older)
      address = dlsym(library, older);
    if (!address && !missing)
      missing = name;
    return address;
  };
  // POSIX guarantees that a dlsym result converts to a function pointer.
#define EMBERRT_CUDA_LOAD(member, name, parameters)                                           \
  api.member = reinterpret_cast<decltype(api.member)>(find(name, nullptr));
#define EMBERRT_CUDA_LOAD_OR_OLDER(member, name, older, parameters)                           \
  api.member = reinterpret_cast<decltype(api.member)>(find(name, older));
  EMBERRT_CUDA_SYMBOLS(EMBERRT_CUDA_LOAD, EMBERRT_CUDA_LOAD_OR_OLDER)
#undef EMBERRT_CUDA_LOAD_OR_OLDER
#undef EMBERRT_CUDA_LOAD
  if (missing)
    std::snprintf(status, size, "the CUDA driver lacks %s (older than ember needs)", missing);
  return !missing;
}

void initialize(State &s) {
  const char *path = std::getenv("EMBERRT_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  // The driver stays loaded for the life of the process, so never dlclose.
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    std::snprintf(s.status, sizeof(s.status), "%s not found: %s", path, why ? why : "");
    return;
  }
  if (!loadSymbols(library, s.api, s.status, sizeof(s.status)))
    return;

  char why[256];
  auto failed = [&](const char *function, CUresult result) {
    describe(s.api, result, why, sizeof(why));
    std::snprintf(s.status, sizeof(s.status), "%s failed: %s", function, why);
  };
  CUresult result = s.api.cuInit(0);
  if (result != CUDA_SUCCESS)
    return failed("cuInit", result);
  int count = 0;
  if ((result = s.api.cuDeviceGetCount(&count)) != CUDA_SUCCESS)
    return failed("cuDeviceGetCount", result);
  if (count == 0) {
    std::snprintf(s.status, sizeof(s.status), "no CUDA device (cuDeviceGetCount found none)");
    return;
  }
  CUdevice device = 0;
  if ((result = s.api.cuDeviceGet(&device, 0)) != CUDA_SUCCESS)
    return failed("cuDeviceGet", result);
  char name[256] = "";
  if ((result = s.api.cuDeviceGetName(name, sizeof(name), device)) != CUDA_SUCCESS)
    return failed("cuDeviceGetName", result);
  if ((result = s.api.cuDeviceGetAttribute(&s.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                           device)) != CUDA_SUCCESS ||
      (result = s.api.cuDeviceGetAttribute(&s.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                           device)) != CUDA_SUCCESS)
    return failed("cuDeviceGetAttribute", result);
  int version = 0;
  if ((result = s.api.cuDriverGetVersion(&version)) != CUDA_SUCCESS)
    return failed("cuDriverGetVersion", result);
  // The primary context is the one the CUDA runtime (and so PyTorch, cuBLAS)
  // uses too: retained once, never released.
  if ((result = s.api.cuDevicePrimaryCtxRetain(&s.context, device)) != CUDA_SUCCESS)
    return failed("cuDevicePrimaryCtxRetain", result);
  if ((result = s.api.cuCtxSetCurrent(s.context)) != CUDA_SUCCESS)
    return failed("cuCtxSetCurrent", result);
  // Non-blocking: work other libraries put on the legacy default stream does
  // not serialize with ours.
  if ((result = s.api.cuStreamCreate(&s.stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    return failed("cuStreamCreate", result);
  std::snprintf(s.status, sizeof(s.status), "%s (sm_%d%d, driver %d.%d)", name, s.major, s.minor,
                version / 1000, version % 1000 / 10);
  s.available = true;
}

State &initialized() {
  std::call_once(initOnce, [] {
    auto *s = new State; // never deleted, see the file comment
    initialize(*s);
    state = s;
  });
  return *state;
}
} // namespace

const DriverApi *emberrt::cuda::enter(const char *where) {
  State &s = initialized();
  if (!s.available) {
    recordError("CUDA unavailable: %s (in %s)", s.status, where);
    return nullptr;
  }
  // A thread's current context is the driver's per-thread state; setting it
  // once per thread is enough as long as nothing else on the thread switches
  // contexts (the CUDA runtime uses the same primary context).
  thread_local bool current = false;
  if (!current) {
    if (!check(s.api.cuCtxSetCurrent(s.context), "cuCtxSetCurrent"))
      return nullptr;
    current = true;
  }
  return &s.api;
}

CUstream emberrt::cuda::runtimeStream() { return state->stream; }

extern "C" int emberrt_cuda_available(void) { return initialized().available ? 1 : 0; }

extern "C" const char *emberrt_cuda_status(void) { return initialized().status; }

extern "C" int emberrt_cuda_compute_capability(int *major, int *minor) {
  State &s = initialized();
  if (major)
    *major = s.available ? s.major : 0;
  if (minor)
    *minor = s.available ? s.minor : 0;
  return s.available ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// The caching allocator
//===----------------------------------------------------------------------===//

namespace {
constexpr size_t kSmallLimit = size_t(1) << 20;
constexpr size_t kSmallGranule = 512;
constexpr size_t kLargeGranule = size_t(2) << 20;

// 0 when the rounded size would overflow.
size_t roundedSize(size_t size) {
  size_t granule = size < kSmallLimit ? kSmallGranule : kLargeGranule;
  if (size > SIZE_MAX - granule)
    return 0;
  size_t rounded = (size + granule - 1) / granule * granule;
  return rounded ? rounded : kSmallGranule;
}

struct Block {
  size_t size;
  bool managed;
};

struct Allocator {
  std::mutex mutex;
  std::unordered_map<CUdeviceptr, Block> live;
  std::unordered_map<size_t, std::vector<CUdeviceptr>> cached; // by rounded size
  uint64_t allocations = 0, cacheHits = 0, bytesReserved = 0;
};

Allocator &allocator() {
  static Allocator *instance = new Allocator; // never deleted, see the file comment
  return *instance;
}

// Returns every cached block to the driver.
void freeCached(const DriverApi &api) {
  Allocator &a = allocator();
  std::vector<CUdeviceptr> blocks;
  {
    std::lock_guard<std::mutex> lock(a.mutex);
    for (auto &[size, list] : a.cached) {
      blocks.insert(blocks.end(), list.begin(), list.end());
      a.bytesReserved -= size * list.size();
    }
    a.cached.clear();
  }
  if (blocks.empty())
    return;
  // A cached block's last use was queued before it was freed, so once the
  // stream is idle no work touches it.
  check(api.cuStreamSynchronize(runtimeStream()), "cuStreamSynchronize");
  for (CUdeviceptr block : blocks)
    check(api.cuMemFree(block), "cuMemFree");
}
} // namespace

emberrt_status_t emberrt::cuda::allocate(size_t size, bool hostShared, const char *where,
                                         void **out) {
  *out = nullptr;
  const DriverApi *api = enter(where);
  if (!api)
    return EMBERRT_DEVICE_ERROR;
  Allocator &a = allocator();
  CUdeviceptr ptr = 0;
  if (hostShared) {
    // Managed memory migrates between host and device; it is rare and not
    // worth caching.
    CUresult result = api->cuMemAllocManaged(&ptr, size ? size : 1, CU_MEM_ATTACH_GLOBAL);
    if (!check(result, "cuMemAllocManaged"))
      return result == CUDA_ERROR_OUT_OF_MEMORY ? EMBERRT_OUT_OF_MEMORY : EMBERRT_DEVICE_ERROR;
    std::lock_guard<std::mutex> lock(a.mutex);
    a.live[ptr] = {size, true};
    *out = reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
    return EMBERRT_OK;
  }
  size_t rounded = roundedSize(size);
  if (rounded == 0) {
    recordError("CUDA_ERROR_OUT_OF_MEMORY: %zu bytes cannot be allocated (in %s)", size, where);
    return EMBERRT_OUT_OF_MEMORY;
  }
  {
    std::lock_guard<std::mutex> lock(a.mutex);
    auto it = a.cached.find(rounded);
    if (it != a.cached.end() && !it->second.empty()) {
      ptr = it->second.back();
      it->second.pop_back();
      a.live[ptr] = {rounded, false};
      ++a.cacheHits;
      *out = reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
      return EMBERRT_OK;
    }
  }
  // The driver call runs unlocked so that other threads' cache hits do not
  // wait for it.
  CUresult result = api->cuMemAlloc(&ptr, rounded);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    freeCached(*api);
    result = api->cuMemAlloc(&ptr, rounded);
  }
  if (!check(result, "cuMemAlloc"))
    return result == CUDA_ERROR_OUT_OF_MEMORY ? EMBERRT_OUT_OF_MEMORY : EMBERRT_DEVICE_ERROR;
  std::lock_guard<std::mutex> lock(a.mutex);
  a.live[ptr] = {rounded, false};
  ++a.allocations;
  a.bytesReserved += rounded;
  *out = reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
  return EMBERRT_OK;
}

void emberrt::cuda::release(void *pointer, const char *where) {
  if (!pointer)
    return;
  auto ptr = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
  Allocator &a = allocator();
  Block block;
  {
    std::lock_guard<std::mutex> lock(a.mutex);
    auto it = a.live.find(ptr);
    if (it == a.live.end()) {
      recordError("CUDA_ERROR_INVALID_VALUE: %p is not memory from emberrt_cuda_malloc (in %s)",
                  pointer, where);
      return;
    }
    block = it->second;
    a.live.erase(it);
    // Reuse is safe without waiting: everything runs on one stream, so the
    // block's next use is queued after its last one.
    if (!block.managed) {
      a.cached[block.size].push_back(ptr);
      return;
    }
  }
  if (const DriverApi *api = enter(where))
    check(api->cuMemFree(ptr), "cuMemFree");
}

extern "C" emberrt_status_t emberrt_cuda_malloc(size_t size, void **out) {
  if (!out)
    return EMBERRT_INVALID_ARGUMENT;
  return allocate(size, false, "emberrt_cuda_malloc", out);
}

extern "C" void emberrt_cuda_free(void *ptr) { release(ptr, "emberrt_cuda_free"); }

//===----------------------------------------------------------------------===//
// Page-locked host memory
//===----------------------------------------------------------------------===//

namespace {
/// Page-locked blocks in use, and freed ones by rounded size, each with an
/// event recorded on the runtime's stream when it was freed: a copy queued
/// before then may still read or write it, so it is reused only once the
/// event has completed (cuMemHostAlloc costs milliseconds: a pipeline that
/// stages every batch must not call it each time).
struct PinnedCache {
  std::mutex mutex;
  std::unordered_map<void *, size_t> live;
  std::unordered_map<size_t, std::vector<std::pair<void *, CUevent>>> freed;
  size_t bytesCached = 0;
};
constexpr size_t kMaxPinnedCached = size_t(1) << 30;

PinnedCache &pinnedCache() {
  static PinnedCache *instance = new PinnedCache; // never deleted, as the allocator
  return *instance;
}

// Returns every freed page-locked block to the driver.
void freePinned(const DriverApi &api) {
  PinnedCache &c = pinnedCache();
  std::vector<std::pair<void *, CUevent>> blocks;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto &[size, list] : c.freed)
      blocks.insert(blocks.end(), list.begin(), list.end());
    c.freed.clear();
    c.bytesCached = 0;
  }
  for (auto &[block, event] : blocks) {
    check(api.cuEventSynchronize(event), "cuEventSynchronize");
    check(api.cuEventDestroy(event), "cuEventDestroy");
    check(api.cuMemFreeHost(block), "cuMemFreeHost");
  }
}
} // namespace

extern "C" emberrt_status_t emberrt_cuda_pinned_malloc(size_t size, void **out) {
  if (!out)
    return EMBERRT_INVALID_ARGUMENT;
  *out = nullptr;
  const DriverApi *api = enter("emberrt_cuda_pinned_malloc");
  if (!api)
    return EMBERRT_DEVICE_ERROR;
  size_t rounded = roundedSize(size);
  if (rounded == 0) {
    recordError("CUDA_ERROR_OUT_OF_MEMORY: %zu bytes cannot be allocated (in %s)", size,
                "emberrt_cuda_pinned_malloc");
    return EMBERRT_OUT_OF_MEMORY;
  }
  PinnedCache &c = pinnedCache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto &list = c.freed[rounded];
    for (size_t i = 0; i < list.size(); ++i) {
      auto [block, event] = list[i];
      if (api->cuEventQuery(event) != CUDA_SUCCESS)
        continue; // still in a queued copy (CUDA_ERROR_NOT_READY)
      check(api->cuEventDestroy(event), "cuEventDestroy");
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
      c.bytesCached -= rounded;
      c.live[block] = rounded;
      *out = block;
      return EMBERRT_OK;
    }
  }
  void *block = nullptr;
  CUresult result = api->cuMemHostAlloc(&block, rounded, 0);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    freePinned(*api);
    result = api->cuMemHostAlloc(&block, rounded, 0);
  }
  if (!check(result, "cuMemHostAlloc"))
    return result == CUDA_ERROR_OUT_OF_MEMORY ? EMBERRT_OUT_OF_MEMORY : EMBERRT_DEVICE_ERROR;
  std::lock_guard<std::mutex> lock(c.mutex);
  c.live[block] = rounded;
  *out = block;
  return EMBERRT_OK;
}

extern "C" void emberrt_cuda_pinned_free(void *ptr) {
  if (!ptr)
    return;
  const DriverApi *api = enter("emberrt_cuda_pinned_free");
  if (!api)
    return;
  PinnedCache &c = pinnedCache();
  std::unique_lock<std::mutex> lock(c.mutex);
  auto it = c.live.find(ptr);
  if (it == c.live.end()) {
    recordError("CUDA_ERROR_INVALID_VALUE: %p is not memory from emberrt_cuda_pinned_malloc (in %s)",
                ptr, "emberrt_cuda_pinned_free");
    return;
  }
  size_t size = it->second;
  c.live.erase(it);
  CUevent event = nullptr;
  if (c.bytesCached + size <= kMaxPinnedCached &&
      check(api->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate")) {
    if (check(api->cuEventRecord(event, runtimeStream()), "cuEventRecord")) {
      c.freed[size].emplace_back(ptr, event);
      c.bytesCached += size;
      return;
    }
    check(api->cuEventDestroy(event), "cuEventDestroy");
  }
  lock.unlock();
  // Not kept: freed once no queued copy can touch it.
  check(api->cuStreamSynchronize(runtimeStream()), "cuStreamSynchronize");
  check(api->cuMemFreeHost(ptr), "cuMemFreeHost");
}

extern "C" void emberrt_cuda_empty_cache(void) {
  if (!initialized().available)
    return;
  if (const DriverApi *api = enter("emberrt_cuda_empty_cache")) {
    freeCached(*api);
    freePinned(*api);
  }
}

extern "C" void emberrt_cuda_allocator_stats(uint64_t *allocations, uint64_t *cache_hits,
                                             uint64_t *bytes_reserved) {
  Allocator &a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  if (allocations)
    *allocations = a.allocations;
  if (cache_hits)
    *cache_hits = a.cacheHits;
  if (bytes_reserved)
    *bytes_reserved = a.bytesReserved;
}

//===----------------------------------------------------------------------===//
// Copies and synchronization
//===----------------------------------------------------------------------===//

namespace {
CUdeviceptr device(const void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

/// Queues `n` bytes of work on the runtime's stream through `issue` (the
/// driver call, named `call`), after the checks every copy and memset makes;
/// `waitForHost` then waits for the stream, so that a host buffer may be
/// read or reused on return (even pinned memory, which the driver reads or
/// writes later).
template <typename Issue>
emberrt_status_t onStream(const char *function, size_t n, bool pointersGiven, const char *call,
                          bool waitForHost, Issue &&issue) {
  if (n == 0)
    return EMBERRT_OK;
  if (!pointersGiven)
    return EMBERRT_INVALID_ARGUMENT;
  const DriverApi *api = enter(function);
  if (!api)
    return EMBERRT_DEVICE_ERROR;
  if (!check(issue(*api, runtimeStream()), call) ||
      (waitForHost && !check(api->cuStreamSynchronize(runtimeStream()), "cuStreamSynchronize")))
    return EMBERRT_DEVICE_ERROR;
  return EMBERRT_OK;
}
} // namespace

extern "C" emberrt_status_t emberrt_cuda_memcpy_htod(void *dst, const void *src, size_t n) {
  return onStream("emberrt_cuda_memcpy_htod", n, dst && src, "cuMemcpyHtoDAsync", true,
                  [&](const DriverApi &api, CUstream stream) {
                    return api.cuMemcpyHtoDAsync(device(dst), src, n, stream);
                  });
}

extern "C" emberrt_status_t emberrt_cuda_memcpy_htod_async(void *dst, const void *src, size_t n) {
  return onStream("emberrt_cuda_memcpy_htod_async", n, dst && src, "cuMemcpyHtoDAsync", false,
                  [&](const DriverApi &api, CUstream stream) {
                    return api.cuMemcpyHtoDAsync(device(dst), src, n, stream);
                  });
}

extern "C" emberrt_status_t emberrt_cuda_memcpy_dtoh(void *dst, const void *src, size_t n) {
  return onStream("emberrt_cuda_memcpy_dtoh", n, dst && src, "cuMemcpyDtoHAsync", true,
                  [&](const DriverApi &api, CUstream stream) {
                    return api.cuMemcpyDtoHAsync(dst, device(src), n, stream);
                  });
}

extern "C" emberrt_status_t emberrt_cuda_memcpy_dtod(void *dst, const void *src, size_t n) {
  return onStream("emberrt_cuda_memcpy_dtod", n, dst && src, "cuMemcpyDtoDAsync", false,
                  [&](const DriverApi &api, CUstream stream) {
                    return api.cuMemcpyDtoDAsync(device(dst), device(src), n, stream);
                  });
}

extern "C" emberrt_status_t emberrt_cuda_memset(void *dst, int value, size_t n) {
  return onStream("emberrt_cuda_memset", n, dst != nullptr, "cuMemsetD8Async", false,
                  [&](const DriverApi &api, CUstream stream) {
                    return api.cuMemsetD8Async(device(dst), static_cast<unsigned char>(value), n,
                                               stream);
                  });
}

extern "C" emberrt_status_t emberrt_cuda_synchronize(void) {
  const DriverApi *api = enter("emberrt_cuda_synchronize");
  if (!api)
    return EMBERRT_DEVICE_ERROR;
  return check(api->cuStreamSynchronize(runtimeStream()), "cuStreamSynchronize")
             ? EMBERRT_OK
             : EMBERRT_DEVICE_ERROR;
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

namespace {
struct LoadedModule {
  CUmodule module;
  size_t loads;
};

struct ModuleCache {
  std::mutex mutex;
  std::unordered_map<const void *, LoadedModule> byImage;
  std::unordered_map<CUmodule, const void *> imageOf;
};

ModuleCache &modules() {
  static ModuleCache *instance = new ModuleCache; // never deleted, see the file comment
  return *instance;
}

// The JIT's log without trailing newlines.
void trimLog(char *log) {
  size_t n = std::strlen(log);
  while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == '\r' || log[n - 1] == ' '))
    log[--n] = '\0';
}
} // namespace

//===----------------------------------------------------------------------===//
// Faults that kernels report
//===----------------------------------------------------------------------===//

namespace {
/// A module whose kernels can fault (ember-cuda-lower-fault-reports) has two
/// globals: the address of the word its kernels report to (one per process,
/// in device memory) and the tag that the code loading it chose
/// (emberrt_cuda_set_fault_tag). A kernel that faults sets the word, if it is
/// still 0, to tag << 32 | kind << 24 | site (site 0xffffff: unknown).
constexpr const char *kFaultWordGlobal = "__ember_fault_word";
constexpr const char *kFaultTagGlobal = "__ember_fault_tag";
thread_local uint32_t loadingTag = 0;

struct KernelFaults {
  std::mutex mutex;
  CUdeviceptr word = 0;           ///< made with the first module that reports
  std::atomic<bool> armed{false}; ///< whether any such module was loaded
};
KernelFaults &kernelFaults() {
  static KernelFaults *instance = new KernelFaults; // never deleted, see the file comment
  return *instance;
}

/// Whether `image` (PTX text, or a cubin: an ELF file) may declare global
/// `name`: true unless it certainly does not (a fatbin is not read).
bool mayDeclare(const void *image, const char *name) {
  const char *bytes = static_cast<const char *>(image);
  if (std::memcmp(bytes, "\177ELF", 4) != 0) { // PTX (NUL-terminated text), or a fatbin
    bool ptx = std::memcmp(bytes, "//", 2) == 0 || std::memcmp(bytes, ".version", 8) == 0;
    return !ptx || std::strstr(bytes, name) != nullptr;
  }
  if (bytes[4] != 2) // not 64-bit (ELFCLASS64): not read
    return true;
  // A 64-bit ELF file: its size is where its section header table (e_shoff,
  // e_shentsize, e_shnum at offsets 40, 58, 60) or its last section
  // (sh_offset and sh_size at 24 and 32 of a header) ends; its symbol names
  // are in it.
  auto read = [&](size_t at, auto value) {
    std::memcpy(&value, bytes + at, sizeof(value));
    return value;
  };
  uint64_t headers = read(40, uint64_t()), entrySize = read(58, uint16_t()),
           entries = read(60, uint16_t());
  if (entrySize < 40)
    return true;
  uint64_t size = headers + entrySize * entries;
  for (uint64_t i = 0; i < entries; ++i) {
    uint64_t header = headers + i * entrySize;
    size = std::max(size, read(header + 24, uint64_t()) + read(header + 32, uint64_t()));
  }
  return memmem(bytes, size, name, std::strlen(name)) != nullptr;
}

/// Points a new `module`'s fault globals, if it has them, at the word and
/// gives it this thread's tag.
void setUpFaultReports(const DriverApi &api, CUmodule module, const void *image) {
  // Looked up only where the image names them: a lookup that fails is an
  // error that compute-sanitizer reports.
  if (!mayDeclare(image, kFaultWordGlobal))
    return;
  CUdeviceptr wordGlobal = 0, tagGlobal = 0;
  size_t wordBytes = 0, tagBytes = 0;
  // Not found: a module whose kernels cannot fault.
  if (api.cuModuleGetGlobal(&wordGlobal, &wordBytes, module, kFaultWordGlobal) != CUDA_SUCCESS ||
      api.cuModuleGetGlobal(&tagGlobal, &tagBytes, module, kFaultTagGlobal) != CUDA_SUCCESS)
    return;
  if (wordBytes != sizeof(uint64_t) || tagBytes != sizeof(uint32_t)) {
    recordError("CUDA_ERROR_INVALID_IMAGE: the module's %s or %s has the wrong size (in "
                "loading a module)",
                kFaultWordGlobal, kFaultTagGlobal);
    return;
  }
  KernelFaults &faults = kernelFaults();
  CUstream stream = runtimeStream();
  uint64_t address;
  {
    std::lock_guard<std::mutex> lock(faults.mutex);
    if (!faults.word && (!check(api.cuMemAlloc(&faults.word, sizeof(uint64_t)), "cuMemAlloc") ||
                         !check(api.cuMemsetD8Async(faults.word, 0, sizeof(uint64_t), stream),
                                "cuMemsetD8Async"))) {
      faults.word = 0;
      return;
    }
    address = faults.word;
  }
  uint32_t tag = loadingTag;
  // From this stack frame: pageable memory, which a queued copy has read
  // when it returns (the module's kernels are queued after it).
  if (check(api.cuMemcpyHtoDAsync(wordGlobal, &address, sizeof(address), stream),
            "cuMemcpyHtoDAsync") &&
      check(api.cuMemcpyHtoDAsync(tagGlobal, &tag, sizeof(tag), stream), "cuMemcpyHtoDAsync"))
    faults.armed.store(true, std::memory_order_release);
}
} // namespace

extern "C" void emberrt_cuda_set_fault_tag(uint32_t tag) { loadingTag = tag; }

extern "C" int emberrt_cuda_take_kernel_fault(emberrt_fault_t *fault, uint32_t *tag) {
  *fault = {EMBERRT_FAULT_NONE, 0};
  *tag = 0;
  KernelFaults &faults = kernelFaults();
  if (!faults.armed.load(std::memory_order_acquire)) // no kernel can have reported
    return 0;
  const DriverApi *api = enter("emberrt_cuda_take_kernel_fault");
  if (!api)
    return 0;
  // One taker at a time: a fault is taken once.
  std::lock_guard<std::mutex> lock(faults.mutex);
  uint64_t code = 0;
  CUstream stream = runtimeStream();
  if (!check(api->cuMemcpyDtoHAsync(&code, faults.word, sizeof(code), stream),
             "cuMemcpyDtoHAsync") ||
      !check(api->cuStreamSynchronize(stream), "cuStreamSynchronize") || code == 0)
    return 0;
  // Cleared for the next report: before any kernel queued after this call.
  check(api->cuMemsetD8Async(faults.word, 0, sizeof(code), stream), "cuMemsetD8Async");
  uint32_t site = code & 0xffffff;
  *fault = {static_cast<int32_t>((code >> 24) & 0xff),
            site == 0xffffff ? -1 : static_cast<int32_t>(site)};
  *tag = static_cast<uint32_t>(code >> 32);
  return 1;
}

CUmodule emberrt::cuda::loadModule(const void *image, int optLevel, const char *where) {
  const DriverApi *api = enter(where);
  if (!api)
    return nullptr;
  if (!image) {
    recordError("CUDA_ERROR_INVALID_VALUE: no module image (in %s)", where);
    return nullptr;
  }
  ModuleCache &cache = modules();
  // Held while the driver loads, so that two threads loading one image get
  // one module. Loads are rare: once per compiled object.
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.byImage.find(image);
  if (it != cache.byImage.end()) {
    ++it->second.loads;
    return it->second.module;
  }
  char log[4096] = "";
  CUjit_option options[3] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                             CU_JIT_OPTIMIZATION_LEVEL};
  void *values[3] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log))),
                     reinterpret_cast<void *>(uintptr_t(optLevel < 0 ? 0 : optLevel))};
  CUmodule module = nullptr;
  CUresult result =
      api->cuModuleLoadDataEx(&module, image, optLevel < 0 ? 2 : 3, options, values);
  if (result != CUDA_SUCCESS) {
    trimLog(log);
    check(result, "cuModuleLoadDataEx", log);
    return nullptr;
  }
  cache.byImage[image] = {module, 1};
  cache.imageOf[module] = image;
  setUpFaultReports(*api, module, image);
  return module;
}

std::atomic<uint64_t> emberrt::cuda::moduleGeneration{0};

void emberrt::cuda::unloadModule(CUmodule module, const char *where) {
  if (!module)
    return;
  ModuleCache &cache = modules();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.imageOf.find(module);
    if (it == cache.imageOf.end()) {
      recordError("CUDA_ERROR_INVALID_HANDLE: %p is not a module the runtime loaded (in %s)",
                  static_cast<void *>(module), where);
      return;
    }
    LoadedModule &loaded = cache.byImage[it->second];
    if (--loaded.loads > 0)
      return;
    cache.byImage.erase(it->second);
    cache.imageOf.erase(it);
  }
  // Functions looked up in it are stale now (mgpuModuleGetFunction's cache).
  moduleGeneration.fetch_add(1, std::memory_order_release);
  const DriverApi *api = enter(where);
  if (!api)
    return;
  // Kernels of the module may still be queued.
  if (check(api->cuStreamSynchronize(runtimeStream()), "cuStreamSynchronize"))
    check(api->cuModuleUnload(module), "cuModuleUnload");
}

bool emberrt::cuda::launch(const DriverApi &api, CUfunction function, const unsigned grid[3],
                           const unsigned block[3], unsigned sharedBytes, CUstream stream,
                           void **params, void **extra) {
  for (int d = 0; d < 3; ++d)
    if (grid[d] == 0 || block[d] == 0)
      return true;
  // Dynamic shared memory beyond the default 48 KiB must be opted into.
  constexpr unsigned kDefaultSharedLimit = 48 * 1024;
  if (sharedBytes > kDefaultSharedLimit &&
      !check(api.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(sharedBytes)),
             "cuFuncSetAttribute"))
    return false;
  return check(api.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1],
                                  block[2], sharedBytes, stream, params, extra),
               "cuLaunchKernel");
}

extern "C" emberrt_status_t emberrt_cuda_module_load(const void *image, void **module) {
  if (!module)
    return EMBERRT_INVALID_ARGUMENT;
  *module = loadModule(image, -1, "emberrt_cuda_module_load");
  return *module ? EMBERRT_OK : EMBERRT_DEVICE_ERROR;
}

extern "C" void emberrt_cuda_module_unload(void *module) {
  unloadModule(static_cast<CUmodule>(module), "emberrt_cuda_module_unload");
}

extern "C" emberrt_status_t emberrt_cuda_function(void *module, const char *name,
                                                  void **function) {
  if (!module || !name || !function)
    return EMBERRT_INVALID_ARGUMENT;
  *function = nullptr;
  const DriverApi *api = enter("emberrt_cuda_function");
  if (!api)
    return EMBERRT_DEVICE_ERROR;
  CUfunction found = nullptr;
  if (!check(api->cuModuleGetFunction(&found, static_cast<CUmodule>(module), name),
             "cuModuleGetFunction", name))
    return EMBERRT_DEVICE_ERROR;
  *function = found;
  return EMBERRT_OK;
}

extern "C" emberrt_status_t emberrt_cuda_launch(void *function, unsigned grid_x, unsigned grid_y,
                                                unsigned grid_z, unsigned block_x,
                                                unsigned block_y, unsigned block_z,
                                                unsigned shared_bytes, void **params) {
  if (!function)
    return EMBERRT_INVALID_ARGUMENT;
  const DriverApi *api = enter("emberrt_cuda_launch");
  if (!api)
    return EMBERRT_DEVICE_ERROR;
  const unsigned grid[3] = {grid_x, grid_y, grid_z}, block[3] = {block_x, block_y, block_z};
  return launch(*api, static_cast<CUfunction>(function), grid, block, shared_bytes,
                runtimeStream(), params, nullptr)
             ? EMBERRT_OK
             : EMBERRT_DEVICE_ERROR;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

extern "C" emberrt_status_t emberrt_cuda_event_record(void **event) {
  if (!event)
    return EMBERRT_INVALID_ARGUMENT;
  *event = nullptr;
  const DriverApi *api = enter("emberrt_cuda_event_record");
  if (!api)
    return EMBERRT_DEVICE_ERROR;
  CUevent created = nullptr;
  if (!check(api->cuEventCreate(&created, CU_EVENT_DEFAULT), "cuEventCreate"))
    return EMBERRT_DEVICE_ERROR;
  if (!check(api->cuEventRecord(created, runtimeStream()), "cuEventRecord")) {
    api->cuEventDestroy(created);
    return EMBERRT_DEVICE_ERROR;
  }
  *event = created;
  return EMBERRT_OK;
}

extern "C" emberrt_status_t emberrt_cuda_event_elapsed_ms(void *start, void *end,
                                                          float *milliseconds) {
  if (!start || !end || !milliseconds)
    return EMBERRT_INVALID_ARGUMENT;
  const DriverApi *api = enter("emberrt_cuda_event_elapsed_ms");
  if (!api)
    return EMBERRT_DEVICE_ERROR;
  auto first = static_cast<CUevent>(start), last = static_cast<CUevent>(end);
  if (!check(api->cuEventSynchronize(last), "cuEventSynchronize") ||
      !check(api->cuEventElapsedTime(milliseconds, first, last), "cuEventElapsedTime"))
    return EMBERRT_DEVICE_ERROR;
  return EMBERRT_OK;
}

extern "C" void emberrt_cuda_event_destroy(void *event) {
  if (!event)
    return;
  if (const DriverApi *api = enter("emberrt_cuda_event_destroy"))
    check(api->cuEventDestroy(static_cast<CUevent>(event)), "cuEventDestroy");
}
