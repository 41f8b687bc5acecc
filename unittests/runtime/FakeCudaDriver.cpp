//===- FakeCudaDriver.cpp - a stand-in for libcuda.so.1 without a GPU -----===//
//
// Loaded through EMBERRT_CUDA_DRIVER on machines without a GPU, so that the
// host side of ember's GPU support runs in CI: device selection, copies,
// scopes, the JIT's CUDA target (modules loaded, kernels looked up and
// launched). "Device memory" is host memory and copies are memcpy, so values
// survive round trips; kernels do not run (a launch only counts), so what a
// kernel computes is not checked here — the GPU machine checks that.
//
//===----------------------------------------------------------------------===//

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

extern "C" {
using CUresult = int;
using CUdeviceptr = unsigned long long;

static int launches = 0, lookups = 0, pinned = 0;
/// For tests: how many kernels were launched, and looked up by name; how
/// many blocks of page-locked host memory are held.
int emberFakeCudaLaunches() { return launches; }
int emberFakeCudaFunctionLookups() { return lookups; }
int emberFakeCudaPinnedBlocks() { return pinned; }

CUresult cuInit(unsigned) { return 0; }
CUresult cuDriverGetVersion(int *version) { return *version = 13000, 0; }
CUresult cuGetErrorName(CUresult, const char **name) { return *name = "CUDA_ERROR_FAKE", 0; }
CUresult cuGetErrorString(CUresult, const char **text) { return *text = "fake driver", 0; }
CUresult cuDeviceGetCount(int *count) { return *count = 1, 0; }
CUresult cuDeviceGet(int *device, int) { return *device = 0, 0; }
CUresult cuDeviceGetName(char *name, int length, int) {
  std::strncpy(name, "Fake GPU (no kernels run)", length);
  return 0;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int) {
  *value = attribute == 75 ? 9 : 0; // compute capability 9.0
  return 0;
}
static int context;
CUresult cuDevicePrimaryCtxRetain(void **out, int) { return *out = &context, 0; }
CUresult cuCtxSetCurrent(void *) { return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  *ptr = reinterpret_cast<CUdeviceptr>(memory);
  return memory ? 0 : 2;
}
CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned) {
  return cuMemAlloc_v2(ptr, bytes);
}
CUresult cuMemFree_v2(CUdeviceptr ptr) { return std::free(reinterpret_cast<void *>(ptr)), 0; }
CUresult cuMemHostAlloc(void **ptr, size_t bytes, unsigned) {
  ++pinned;
  return (*ptr = std::malloc(bytes ? bytes : 1)) ? 0 : 2;
}
CUresult cuMemFreeHost(void *ptr) { return --pinned, std::free(ptr), 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *) {
  return std::memcpy(reinterpret_cast<void *>(dst), src, n), 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *) {
  return std::memcpy(dst, reinterpret_cast<void *>(src), n), 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void *) {
  return std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), n), 0;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, void *stream) {
  return cuMemcpyDtoDAsync_v2(dst, src, n, stream);
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, void *) {
  return std::memset(reinterpret_cast<void *>(dst), value, n), 0;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t n, void *) {
  for (size_t i = 0; i < n; ++i)
    reinterpret_cast<unsigned short *>(dst)[i] = value;
  return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t n, void *) {
  for (size_t i = 0; i < n; ++i)
    reinterpret_cast<unsigned *>(dst)[i] = value;
  return 0;
}
static int handle; // streams, events, modules and functions all point here
CUresult cuStreamCreate(void **stream, unsigned) { return *stream = &handle, 0; }
CUresult cuStreamSynchronize(void *) { return 0; }
CUresult cuStreamWaitEvent(void *, void *, unsigned) { return 0; }
CUresult cuEventCreate(void **event, unsigned) { return *event = &handle, 0; }
CUresult cuEventRecord(void *, void *) { return 0; }
CUresult cuEventSynchronize(void *) { return 0; }
CUresult cuEventQuery(void *) { return 0; }
CUresult cuEventDestroy_v2(void *) { return 0; }
CUresult cuEventElapsedTime_v2(float *ms, void *, void *) { return *ms = 0, 0; }
/// A module: its image (PTX text or a binary) and, for globals that the
/// PTX declares, host memory standing for them.
struct FakeModule {
  const char *image;
  std::unordered_map<std::string, void *> globals;
};
static std::unordered_map<std::string, void *> lastGlobals;
static std::mutex globalsMutex; // modules load and unload on several threads
/// For tests: the memory of global `name` in the module that most recently
/// had it looked up (cuModuleGetGlobal), or null.
void *emberFakeCudaLastGlobal(const char *name) {
  std::lock_guard<std::mutex> lock(globalsMutex);
  auto it = lastGlobals.find(name);
  return it == lastGlobals.end() ? nullptr : it->second;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned, int *, void **) {
  // A handle of its own, as the runtime's cache expects.
  return *module = new FakeModule{static_cast<const char *>(image), {}}, 0;
}
CUresult cuModuleUnload(void *module) {
  auto *fake = static_cast<FakeModule *>(module);
  std::lock_guard<std::mutex> lock(globalsMutex);
  for (auto &[name, memory] : fake->globals) {
    if (auto it = lastGlobals.find(name); it != lastGlobals.end() && it->second == memory)
      lastGlobals.erase(it);
    std::free(memory);
  }
  delete fake;
  return 0;
}
/// A global that the module's PTX declares (`.global .align A .uN name`,
/// N 32 or 64; binaries have none here): 8 bytes of zeroed host memory.
CUresult cuModuleGetGlobal_v2(CUdeviceptr *address, size_t *bytes, void *module, const char *name) {
  auto *fake = static_cast<FakeModule *>(module);
  std::string ptx = fake->image && std::strstr(fake->image, ".version") ? fake->image : "";
  size_t at = ptx.find(std::string(" ") + name + ";");
  size_t line = ptx.rfind('\n', at);
  if (at == std::string::npos || ptx.compare(line + 1, 8, ".visible") != 0)
    return 500; // CUDA_ERROR_NOT_FOUND
  std::lock_guard<std::mutex> lock(globalsMutex);
  void *&memory = fake->globals[name];
  if (!memory)
    memory = std::calloc(1, 8);
  lastGlobals[name] = memory;
  *address = reinterpret_cast<CUdeviceptr>(memory);
  *bytes = ptx.rfind(".u64", at) > line && ptx.rfind(".u64", at) != std::string::npos ? 8 : 4;
  return 0;
}
CUresult cuModuleGetFunction(void **function, void *, const char *) {
  ++lookups;
  return *function = &handle, 0;
}
CUresult cuFuncSetAttribute(void *, int, int) { return 0; }
CUresult cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, void *, void **, void **) {
  ++launches;
  return 0;
}
} // extern "C"
