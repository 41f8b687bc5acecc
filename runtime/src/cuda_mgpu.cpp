//===- cuda_mgpu.cpp - the mgpu* functions MLIR's GPU lowering calls ------===//
//
// `gpu-to-llvm` turns gpu.alloc, gpu.memcpy, gpu.wait, ... into calls of
// mgpu* functions, and the `#gpu.select_object` translation loads kernel
// modules and launches kernels through more of them. Upstream implements them
// in mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp (libmlir_cuda_runtime),
// which Debian does not ship; these are ember's, over its own runtime, with
// the signatures MLIR 22 declares:
//  - one stream: mgpuStreamCreate hands out the runtime's stream instead of
//    creating one per launch, and mgpuStreamDestroy leaves it alone;
//  - memory from the caching allocator, modules from the module cache;
//  - a failure records the thread's error (see emberrt_cuda_last_error) and
//    returns NULL or does nothing; compiled code cannot check, its caller
//    does after the call.
//
//===----------------------------------------------------------------------===//

#include "cuda_driver.h"

#include <climits>
#include <cstdint>
#include <cstdlib>

using namespace emberrt::cuda;

namespace {
CUstream streamOr(void *stream) {
  return stream ? static_cast<CUstream>(stream) : runtimeStream();
}

CUdeviceptr device(const void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}
} // namespace

extern "C" void *mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  return loadModule(data, -1, "mgpuModuleLoad");
}

// PTX that the driver compiles, at the optimization level of the gpu.object's
// `O` property.
extern "C" void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return loadModule(data, optLevel, "mgpuModuleLoadJIT");
}

extern "C" void mgpuModuleUnload(void *module) {
  unloadModule(static_cast<CUmodule>(module), "mgpuModuleUnload");
}

extern "C" void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module || !name) {
    recordError("CUDA_ERROR_INVALID_VALUE: no module or kernel name (in mgpuModuleGetFunction)");
    return nullptr;
  }
  // Compiled code looks its kernel up before every launch (MLIR's host code
  // does): the last few lookups of this thread are remembered, so an eager
  // op does not pay a driver call for it.
  struct Lookup {
    void *module = nullptr;
    const char *name = nullptr;
    uint64_t generation = 0;
    CUfunction function = nullptr;
  };
  constexpr size_t kLookups = 16;
  thread_local Lookup lookups[kLookups];
  uint64_t generation = moduleGeneration.load(std::memory_order_acquire);
  Lookup &slot = lookups[(reinterpret_cast<uintptr_t>(name) >> 4) % kLookups];
  if (slot.module == module && slot.name == name && slot.generation == generation)
    return slot.function;
  const DriverApi *api = enter("mgpuModuleGetFunction");
  if (!api)
    return nullptr;
  CUfunction function = nullptr;
  if (check(api->cuModuleGetFunction(&function, static_cast<CUmodule>(module), name),
            "cuModuleGetFunction", name))
    slot = {module, name, generation, function};
  return function;
}

// Dimensions come as index (intptr_t); the driver takes unsigned int.
extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem,
                                 void *stream, void **params, void **extra,
                                 size_t /*paramsCount*/) {
  const DriverApi *api = enter("mgpuLaunchKernel");
  if (!api)
    return;
  const intptr_t dims[6] = {gridX, gridY, gridZ, blockX, blockY, blockZ};
  unsigned grid[3], block[3];
  for (int d = 0; d < 6; ++d) {
    if (dims[d] < 0 || static_cast<uintmax_t>(dims[d]) > UINT_MAX) {
      recordError("CUDA_ERROR_INVALID_VALUE: launch dimension %jd out of range (in "
                  "mgpuLaunchKernel)",
                  static_cast<intmax_t>(dims[d]));
      return;
    }
    (d < 3 ? grid[d] : block[d - 3]) = static_cast<unsigned>(dims[d]);
  }
  if (!function || smem < 0) {
    recordError("CUDA_ERROR_INVALID_VALUE: no kernel or negative shared memory size (in "
                "mgpuLaunchKernel)");
    return;
  }
  launch(*api, static_cast<CUfunction>(function), grid, block, static_cast<unsigned>(smem),
         streamOr(stream), params, extra);
}

extern "C" void *mgpuStreamCreate(void) {
  return enter("mgpuStreamCreate") ? runtimeStream() : nullptr;
}

extern "C" void mgpuStreamDestroy(void * /*stream*/) {}

// Compiled functions are asynchronous, as eager ops are in TensorFlow and
// PyTorch: the synchronize that MLIR's host code emits after each launch on
// the runtime's stream is skipped, so calls queue their kernels and return.
// The host waits where it reads (copies to the host, emberrt_cuda_synchronize),
// and kernel errors surface there. Temporaries freed meanwhile are safe to
// reuse: every kernel runs on the one stream, in order.
// EMBERRT_CUDA_LAUNCH_BLOCKING=1 (like CUDA_LAUNCH_BLOCKING) waits after
// every launch, so that an error names the launch that caused it.
static bool launchBlocking() {
  static const bool blocking = [] {
    const char *value = std::getenv("EMBERRT_CUDA_LAUNCH_BLOCKING");
    return value && value[0] == '1';
  }();
  return blocking;
}

extern "C" void mgpuStreamSynchronize(void *stream) {
  const DriverApi *api = enter("mgpuStreamSynchronize");
  if (!api || (streamOr(stream) == runtimeStream() && !launchBlocking()))
    return;
  check(api->cuStreamSynchronize(streamOr(stream)), "cuStreamSynchronize");
}

extern "C" void mgpuStreamWaitEvent(void *stream, void *event) {
  if (const DriverApi *api = enter("mgpuStreamWaitEvent"))
    check(api->cuStreamWaitEvent(streamOr(stream), static_cast<CUevent>(event), 0),
          "cuStreamWaitEvent");
}

extern "C" void *mgpuEventCreate(void) {
  const DriverApi *api = enter("mgpuEventCreate");
  if (!api)
    return nullptr;
  CUevent event = nullptr;
  check(api->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

extern "C" void mgpuEventDestroy(void *event) {
  if (const DriverApi *api = enter("mgpuEventDestroy"))
    check(api->cuEventDestroy(static_cast<CUevent>(event)), "cuEventDestroy");
}

extern "C" void mgpuEventSynchronize(void *event) {
  if (const DriverApi *api = enter("mgpuEventSynchronize"))
    check(api->cuEventSynchronize(static_cast<CUevent>(event)), "cuEventSynchronize");
}

extern "C" void mgpuEventRecord(void *event, void *stream) {
  if (const DriverApi *api = enter("mgpuEventRecord"))
    check(api->cuEventRecord(static_cast<CUevent>(event), streamOr(stream)), "cuEventRecord");
}

// gpu.alloc host_shared asks for memory the host can use too.
static_assert(sizeof(size_t) == sizeof(uint64_t), "the runtime supports 64-bit hosts only");

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/, bool isHostShared) {
  void *ptr = nullptr;
  allocate(static_cast<size_t>(sizeBytes), isHostShared, "mgpuMemAlloc", &ptr);
  return ptr;
}

extern "C" void mgpuMemFree(void *ptr, void * /*stream*/) { release(ptr, "mgpuMemFree"); }

// Either side may be host or device memory: with unified addressing the
// driver tells them apart.
// Either side may be host memory, which the host may read or reuse on
// return (stream synchronizes are skipped, see above): the copy waits.
extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (sizeBytes == 0)
    return;
  if (const DriverApi *api = enter("mgpuMemcpy"))
    if (check(api->cuMemcpyAsync(device(dst), device(src), sizeBytes, streamOr(stream)),
              "cuMemcpyAsync"))
      check(api->cuStreamSynchronize(streamOr(stream)), "cuStreamSynchronize");
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  if (count == 0)
    return;
  if (const DriverApi *api = enter("mgpuMemset32"))
    check(api->cuMemsetD32Async(device(dst), value, count, streamOr(stream)), "cuMemsetD32Async");
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  if (count == 0)
    return;
  if (const DriverApi *api = enter("mgpuMemset16"))
    check(api->cuMemsetD16Async(device(dst), value, count, streamOr(stream)), "cuMemsetD16Async");
}

extern "C" void mgpuSetDefaultDevice(int32_t device) {
  if (device != 0)
    recordError("CUDA_ERROR_INVALID_DEVICE: ember's runtime uses device 0 only, not %d (in "
                "mgpuSetDefaultDevice)",
                static_cast<int>(device));
}

// Temporaries of compiled GPU host code (see ember-device-allocations).
extern "C" void *emberrt_cuda_host_malloc(size_t size) {
  void *ptr = nullptr;
  allocate(size, /*isHostShared=*/false, "emberrt_cuda_host_malloc", &ptr);
  return ptr;
}

extern "C" void *emberrt_cuda_aligned_alloc(size_t alignment, size_t size) {
  if (alignment > 256 || (alignment & (alignment - 1)) != 0) {
    recordError("CUDA_ERROR_INVALID_VALUE: alignment %zu is not a power of two up to 256 (in "
                "emberrt_cuda_aligned_alloc)",
                alignment);
    return nullptr;
  }
  return emberrt_cuda_host_malloc(size);
}

extern "C" void emberrt_cuda_free_any(void *ptr) { release(ptr, "emberrt_cuda_free_any"); }

/// A copy between addresses as compiled code has them (integers).
static void copyAddresses(emberrt_status_t (*copy)(void *, const void *, size_t),
                          int64_t destination, int64_t source, int64_t bytes) {
  if (bytes > 0)
    copy(reinterpret_cast<void *>(static_cast<uintptr_t>(destination)),
         reinterpret_cast<const void *>(static_cast<uintptr_t>(source)),
         static_cast<size_t>(bytes));
}

extern "C" void emberrt_cuda_download(int64_t destination, int64_t source, int64_t bytes) {
  copyAddresses(emberrt_cuda_memcpy_dtoh, destination, source, bytes);
}

extern "C" void emberrt_cuda_upload(int64_t destination, int64_t source, int64_t bytes) {
  copyAddresses(emberrt_cuda_memcpy_htod_async, destination, source, bytes);
}
