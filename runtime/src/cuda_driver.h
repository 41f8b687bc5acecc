//===- cuda_driver.h - the CUDA driver API, opened with dlopen --*- C++ -*-===//
//
// Private to the runtime. The driver's types and the few constants the runtime
// uses are declared here instead of including <cuda.h>, so that the runtime
// builds where CUDA is not installed; their values are the CUDA 13 header's
// (stable ABI since CUDA 4). EMBERRT_CUDA_SYMBOLS is the one list of the
// driver functions the runtime calls: the table of function pointers and the
// loop that fills it with dlsym are generated from it.
//
//===----------------------------------------------------------------------===//

#ifndef EMBERRT_SRC_CUDA_DRIVER_H
#define EMBERRT_SRC_CUDA_DRIVER_H

#include "emberrt/cuda.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace emberrt::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
// Enumerations in cuda.h, passed as int-sized values.
using CUdevice_attribute = int;
using CUfunction_attribute = int;
using CUjit_option = int;

struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned CU_MEM_ATTACH_GLOBAL = 0x1;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_OPTIMIZATION_LEVEL = 7;

// SYMBOL(member, "exported name", (parameters)) for a function every driver
// ember supports has; SYMBOL_OR_OLDER(member, "name", "older name", (...))
// for one whose newer entry point an older driver lacks. The exported names
// are what cuda.h's #defines map the API names to (cuMemAlloc is
// cuMemAlloc_v2, ...): the unsuffixed ones are older ABIs kept for old
// binaries (32-bit sizes for cuMemAlloc). All return CUresult.
#define EMBERRT_CUDA_SYMBOLS(SYMBOL, SYMBOL_OR_OLDER)                                        \
  SYMBOL(cuInit, "cuInit", (unsigned int flags))                                             \
  SYMBOL(cuDriverGetVersion, "cuDriverGetVersion", (int *version))                           \
  SYMBOL(cuGetErrorName, "cuGetErrorName", (CUresult error, const char **name))              \
  SYMBOL(cuGetErrorString, "cuGetErrorString", (CUresult error, const char **description))   \
  SYMBOL(cuDeviceGetCount, "cuDeviceGetCount", (int *count))                                 \
  SYMBOL(cuDeviceGet, "cuDeviceGet", (CUdevice *device, int ordinal))                       \
  SYMBOL(cuDeviceGetName, "cuDeviceGetName", (char *name, int length, CUdevice device))      \
  SYMBOL(cuDeviceGetAttribute, "cuDeviceGetAttribute",                                       \
         (int *value, CUdevice_attribute attribute, CUdevice device))                        \
  SYMBOL(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                               \
         (CUcontext *context, CUdevice device))                                             \
  SYMBOL(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext context))                            \
  SYMBOL(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *ptr, size_t bytes))                     \
  SYMBOL(cuMemAllocManaged, "cuMemAllocManaged",                                             \
         (CUdeviceptr *ptr, size_t bytes, unsigned int flags))                              \
  SYMBOL(cuMemFree, "cuMemFree_v2", (CUdeviceptr ptr))                                       \
  SYMBOL(cuMemHostAlloc, "cuMemHostAlloc", (void **ptr, size_t bytes, unsigned int flags))   \
  SYMBOL(cuMemFreeHost, "cuMemFreeHost", (void *ptr))                                        \
  SYMBOL(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                          \
         (CUdeviceptr dst, const void *src, size_t bytes, CUstream stream))                  \
  SYMBOL(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                          \
         (void *dst, CUdeviceptr src, size_t bytes, CUstream stream))                        \
  SYMBOL(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2",                                          \
         (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))                  \
  SYMBOL(cuMemcpyAsync, "cuMemcpyAsync",                                                     \
         (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))                  \
  SYMBOL(cuMemsetD8Async, "cuMemsetD8Async",                                                 \
         (CUdeviceptr dst, unsigned char value, size_t count, CUstream stream))              \
  SYMBOL(cuMemsetD16Async, "cuMemsetD16Async",                                               \
         (CUdeviceptr dst, unsigned short value, size_t count, CUstream stream))             \
  SYMBOL(cuMemsetD32Async, "cuMemsetD32Async",                                               \
         (CUdeviceptr dst, unsigned int value, size_t count, CUstream stream))               \
  SYMBOL(cuStreamCreate, "cuStreamCreate", (CUstream *stream, unsigned int flags))          \
  SYMBOL(cuStreamSynchronize, "cuStreamSynchronize", (CUstream stream))                      \
  SYMBOL(cuStreamWaitEvent, "cuStreamWaitEvent",                                             \
         (CUstream stream, CUevent event, unsigned int flags))                               \
  SYMBOL(cuEventCreate, "cuEventCreate", (CUevent *event, unsigned int flags))              \
  SYMBOL(cuEventRecord, "cuEventRecord", (CUevent event, CUstream stream))                   \
  SYMBOL(cuEventSynchronize, "cuEventSynchronize", (CUevent event))                          \
  SYMBOL(cuEventQuery, "cuEventQuery", (CUevent event))                                      \
  SYMBOL(cuEventDestroy, "cuEventDestroy_v2", (CUevent event))                               \
  SYMBOL_OR_OLDER(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",         \
                  (float *milliseconds, CUevent start, CUevent end))                         \
  SYMBOL(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                           \
         (CUmodule *module, const void *image, unsigned int numOptions,                     \
          CUjit_option *options, void **optionValues))                                       \
  SYMBOL(cuModuleUnload, "cuModuleUnload", (CUmodule module))                                \
  SYMBOL(cuModuleGetFunction, "cuModuleGetFunction",                                         \
         (CUfunction *function, CUmodule module, const char *name))                         \
  SYMBOL(cuModuleGetGlobal, "cuModuleGetGlobal_v2",                                          \
         (CUdeviceptr *address, size_t *bytes, CUmodule module, const char *name))          \
  SYMBOL(cuFuncSetAttribute, "cuFuncSetAttribute",                                           \
         (CUfunction function, CUfunction_attribute attribute, int value))                   \
  SYMBOL(cuLaunchKernel, "cuLaunchKernel",                                                   \
         (CUfunction function, unsigned int gridX, unsigned int gridY, unsigned int gridZ,   \
          unsigned int blockX, unsigned int blockY, unsigned int blockZ,                     \
          unsigned int sharedBytes, CUstream stream, void **params, void **extra))

struct DriverApi {
#define EMBERRT_CUDA_MEMBER(member, name, parameters) CUresult (*member) parameters = nullptr;
#define EMBERRT_CUDA_MEMBER_OR_OLDER(member, name, older, parameters)                          \
  EMBERRT_CUDA_MEMBER(member, name, parameters)
  EMBERRT_CUDA_SYMBOLS(EMBERRT_CUDA_MEMBER, EMBERRT_CUDA_MEMBER_OR_OLDER)
#undef EMBERRT_CUDA_MEMBER_OR_OLDER
#undef EMBERRT_CUDA_MEMBER
};

/// The driver, ready for calls from this thread (initialized, the device's
/// primary context current); nullptr, after recording why, when CUDA is not
/// available. `where` names the caller in the error.
const DriverApi *enter(const char *where);
/// The runtime's stream; valid once enter() has succeeded.
CUstream runtimeStream();

/// Records the thread's error unless one is recorded already.
void recordError(const char *format, ...) __attribute__((format(printf, 1, 2)));
/// Returns true for CUDA_SUCCESS; otherwise records "<NAME>: <description>
/// (in <function>)", followed by ": <detail>" when there is one, and returns
/// false. Needs enter() to have succeeded.
bool check(CUresult result, const char *function, const char *detail = nullptr);

/// Device memory from the caching allocator (host-shared: managed memory,
/// not cached). Records the error and returns EMBERRT_OUT_OF_MEMORY or
/// EMBERRT_DEVICE_ERROR on failure.
emberrt_status_t allocate(size_t size, bool hostShared, const char *where, void **out);
void release(void *ptr, const char *where);

/// The module cache: a module per image address, counted. `optLevel` is the
/// JIT's optimization level for PTX, or -1 for the driver's default.
CUmodule loadModule(const void *image, int optLevel, const char *where);
void unloadModule(CUmodule module, const char *where);
/// Counts the modules unloaded so far: a function looked up before an
/// unload may belong to it (and its handle be reused), so caches of
/// functions are valid for one generation.
extern std::atomic<uint64_t> moduleGeneration;

/// Launches on `stream`; a zero dimension launches nothing (an empty tensor).
bool launch(const DriverApi &api, CUfunction function, const unsigned grid[3],
            const unsigned block[3], unsigned sharedBytes, CUstream stream, void **params,
            void **extra);

} // namespace emberrt::cuda

#endif // EMBERRT_SRC_CUDA_DRIVER_H
