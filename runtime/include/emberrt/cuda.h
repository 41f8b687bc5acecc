/*===- emberrt/cuda.h - ember's runtime: the CUDA device --------------------===*
 *
 * Plain C. The runtime links no CUDA library: it opens the driver
 * (libcuda.so.1) with dlopen on first use, so a program that never touches
 * the GPU, or runs where there is none, needs no CUDA at all.
 *
 *  - One device (ordinal 0) through its primary context, which the runtime
 *    makes current on every thread that calls in.
 *  - One stream, created once, that every copy, memset and launch goes on:
 *    work is ordered without events, and a freed block can be handed out
 *    again at once because its next use is queued behind its last one.
 *  - Device memory from a caching allocator: freed blocks are kept per
 *    rounded size and reused, so steady-state code does not call cuMemAlloc.
 *  - Errors: every failing call records a message in a thread-local slot,
 *    read with emberrt_cuda_last_error(). The first error wins until
 *    emberrt_cuda_clear_error(), so a caller checks once after a compiled
 *    call instead of after every runtime call inside it. Nothing aborts or
 *    prints.
 *
 * The second half declares the `mgpu*` functions that MLIR's GPU lowering
 * (`gpu-to-llvm` and the `#gpu.select_object` translation) emits calls to,
 * implemented over the above; the JIT binds compiled code to them.
 *
 *===----------------------------------------------------------------------===*/
#ifndef EMBERRT_CUDA_H
#define EMBERRT_CUDA_H

#include "emberrt/runtime.h"

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define EMBERRT_EXPORT __attribute__((visibility("default")))
#else
#define EMBERRT_EXPORT
#endif

/*===----------------------------------------------------------------------===*
 * The device
 *===----------------------------------------------------------------------===*/

/* 1 when the driver loads, cuInit succeeds and there is a device; else 0.
 * The first call of any emberrt_cuda_* / mgpu* function initializes, once per
 * process (thread-safe). The driver is $EMBERRT_CUDA_DRIVER when that is set
 * (a library name or path, read at initialization), else libcuda.so.1. */
int emberrt_cuda_available(void);

/* One line: the device, e.g. "NVIDIA H100 80GB HBM3 (sm_90, driver 13.0)", or
 * why there is none, e.g. "libcuda.so.1 not found: <dlerror>" or "cuInit
 * failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)". */
const char *emberrt_cuda_status(void);

/* Writes the device's compute capability (9 and 0 for sm_90) and returns 1;
 * returns 0 and writes zeros when CUDA is not available. */
int emberrt_cuda_compute_capability(int *major, int *minor);

/* The calling thread's first error since the last clear:
 * "<CUDA_ERROR_NAME>: <description> (in <function>)", with the JIT log
 * appended for modules that do not compile; "" when there is none. */
const char *emberrt_cuda_last_error(void);
void emberrt_cuda_clear_error(void);

/*===----------------------------------------------------------------------===*
 * Memory
 *===----------------------------------------------------------------------===*/

/* Allocates `size` bytes of device memory (256-byte aligned or better).
 * Sizes round up to a multiple of 512 bytes below 1 MiB and to a multiple of
 * 2 MiB from there; a block of the same rounded size freed earlier is reused.
 * When the driver is out of memory the cache is emptied and the allocation
 * tried once more. A size of 0 gets a real (512-byte) block. */
emberrt_status_t emberrt_cuda_malloc(size_t size, void **out);
/* Returns a block to the cache. NULL is ignored; a pointer that did not come
 * from emberrt_cuda_malloc is an error (recorded, nothing freed). */
void emberrt_cuda_free(void *ptr);
/* Gives every cached (free) block, device and page-locked host memory, back
 * to the driver, after the runtime's stream has finished with them. */
void emberrt_cuda_empty_cache(void);
/* allocations: blocks obtained from cuMemAlloc so far; cache_hits: requests
 * served from the cache instead; bytes_reserved: bytes held from the driver
 * now, in use or cached. Any pointer may be NULL. */
void emberrt_cuda_allocator_stats(uint64_t *allocations, uint64_t *cache_hits,
                                  uint64_t *bytes_reserved);

/* Allocates `size` bytes of page-locked ("pinned") host memory, which the
 * GPU copies from and to at full speed and without a staging copy, rounded
 * as emberrt_cuda_malloc's sizes. Freed blocks are kept (up to 1 GiB) and
 * reused once every copy queued before their free has completed. */
emberrt_status_t emberrt_cuda_pinned_malloc(size_t size, void **out);
/* Returns a block of emberrt_cuda_pinned_malloc to its cache (NULL ignored). */
void emberrt_cuda_pinned_free(void *ptr);

/* A reference-counted buffer (emberrt/runtime.h) of `size` bytes of device
 * memory from the caching allocator, with one reference; its `device` is
 * EMBERRT_DEVICE_CUDA and emberrt_buffer_release gives the memory back. */
emberrt_status_t emberrt_cuda_buffer_allocate(size_t size, emberrt_buffer_t **out);
/* The same in page-locked host memory (emberrt_cuda_pinned_malloc): its
 * `device` is EMBERRT_DEVICE_CUDA_PINNED; host code reads and writes it as any
 * host buffer. */
emberrt_status_t emberrt_cuda_pinned_buffer_allocate(size_t size, emberrt_buffer_t **out);

/* Copies between host and device memory. Host-to-device and device-to-host
 * copies wait for the runtime's stream (work queued before them included),
 * so the host buffer may be reused, or read, on return. Device-to-device
 * copies are queued on the stream and return at once. */
emberrt_status_t emberrt_cuda_memcpy_htod(void *dst, const void *src, size_t n);
emberrt_status_t emberrt_cuda_memcpy_dtoh(void *dst, const void *src, size_t n);
emberrt_status_t emberrt_cuda_memcpy_dtod(void *dst, const void *src, size_t n);
/* A host-to-device copy queued on the stream without waiting for it (or for
 * the work before it): `src` must stay unchanged until the stream has done
 * the copy. For data that never changes, as compiled code's constants, and
 * for page-locked buffers, which are not reused before their copies end. */
emberrt_status_t emberrt_cuda_memcpy_htod_async(void *dst, const void *src, size_t n);
/* Sets `n` bytes to `value` (its low byte), queued on the stream. */
emberrt_status_t emberrt_cuda_memset(void *dst, int value, size_t n);
/* Waits for everything queued on the runtime's stream. Errors of kernels that
 * failed asynchronously surface here. */
emberrt_status_t emberrt_cuda_synchronize(void);

/*===----------------------------------------------------------------------===*
 * Faults that kernels report
 *
 * Kernels guard what can fault as compiled CPU code does (integer division by
 * zero, a gather index out of range: see emberrt_report_fault) and report the
 * first fault to one word in device memory, with the faulting op's site and
 * the tag of the code that loaded their module. Kernels run after their
 * launch returns, so the fault is taken later, once the stream is done.
 *===----------------------------------------------------------------------===*/

/* The tag that modules loaded by this thread from now on report their faults
 * with (0 at first): the loader's way to tell its compiled functions apart. */
void emberrt_cuda_set_fault_tag(uint32_t tag);
/* Waits for the stream; if a kernel has reported a fault since the last
 * take, clears it, sets `fault` (kind and site; site -1: unknown) and `tag`
 * and returns 1; else 0. Costs nothing until a module that can fault has
 * been loaded. The word is the process's: the thread that takes a fault
 * need not be the one that launched the kernel. */
int emberrt_cuda_take_kernel_fault(emberrt_fault_t *fault, uint32_t *tag);

/*===----------------------------------------------------------------------===*
 * Modules and kernels
 *===----------------------------------------------------------------------===*/

/* Loads a module from PTX (NUL-terminated text) or a cubin/fatbin at `image`.
 * Modules are cached by the image's address and counted: loading an image
 * that is loaded already returns the same module without the driver. Each
 * load must be paired with emberrt_cuda_module_unload before the image's
 * memory is freed or reused, since the address is the cache's key. */
emberrt_status_t emberrt_cuda_module_load(const void *image, void **module);
/* Drops one load of `module`; the last one unloads it. */
void emberrt_cuda_module_unload(void *module);
emberrt_status_t emberrt_cuda_function(void *module, const char *name, void **function);
/* Queues a launch on the runtime's stream. `params` holds one pointer per
 * kernel parameter, to its value (cuLaunchKernel's kernelParams). Dynamic
 * shared memory above 48 KiB is opted into per launch. */
emberrt_status_t emberrt_cuda_launch(void *function, unsigned grid_x, unsigned grid_y,
                                     unsigned grid_z, unsigned block_x, unsigned block_y,
                                     unsigned block_z, unsigned shared_bytes, void **params);

/* Timing GPU work: records an event on the runtime's stream (created here;
 * free it with emberrt_cuda_event_destroy), and the milliseconds between two
 * recorded events, waiting for the later one. */
emberrt_status_t emberrt_cuda_event_record(void **event);
emberrt_status_t emberrt_cuda_event_elapsed_ms(void *start, void *end, float *milliseconds);
void emberrt_cuda_event_destroy(void *event);

/*===----------------------------------------------------------------------===*
 * What MLIR 22's GPU lowering calls
 *
 * Signatures as `gpu-to-llvm` and the `#gpu.select_object` translation declare
 * them (void* for the CUDA handle types, intptr_t for index). Failures return
 * NULL / do nothing and record the error like the functions above.
 *  - mgpuStreamCreate returns the runtime's stream and mgpuStreamDestroy
 *    ignores it: creating a stream per launch would cost microseconds.
 *  - mgpuStreamSynchronize of the runtime's stream returns at once: compiled
 *    functions are asynchronous (their launches queue on the stream; copies
 *    to the host and emberrt_cuda_synchronize wait, and report kernel
 *    errors). EMBERRT_CUDA_LAUNCH_BLOCKING=1 makes it wait after every
 *    launch (debugging, like CUDA_LAUNCH_BLOCKING).
 *  - mgpuMemAlloc / mgpuMemFree go through the caching allocator (host-shared
 *    memory, cuMemAllocManaged, is not cached).
 *  - mgpuModuleLoad / mgpuModuleLoadJIT / mgpuModuleUnload go through the
 *    module cache; compiled code loads its modules from a global constructor
 *    and unloads them from a global destructor.
 *  - Only device 0 is supported; mgpuSetDefaultDevice of another is an error.
 *===----------------------------------------------------------------------===*/

EMBERRT_EXPORT void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
EMBERRT_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel);
EMBERRT_EXPORT void mgpuModuleUnload(void *module);
EMBERRT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
EMBERRT_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                     intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                                     intptr_t blockZ, int32_t smem, void *stream, void **params,
                                     void **extra, size_t paramsCount);
EMBERRT_EXPORT void *mgpuStreamCreate(void);
EMBERRT_EXPORT void mgpuStreamDestroy(void *stream);
EMBERRT_EXPORT void mgpuStreamSynchronize(void *stream);
EMBERRT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
EMBERRT_EXPORT void *mgpuEventCreate(void);
EMBERRT_EXPORT void mgpuEventDestroy(void *event);
EMBERRT_EXPORT void mgpuEventSynchronize(void *event);
EMBERRT_EXPORT void mgpuEventRecord(void *event, void *stream);
EMBERRT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
EMBERRT_EXPORT void mgpuMemFree(void *ptr, void *stream);
EMBERRT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
EMBERRT_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
EMBERRT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
EMBERRT_EXPORT void mgpuSetDefaultDevice(int32_t device);

/* What the host code of compiled GPU functions allocates its temporaries
 * with (ember-device-allocations renames the memref lowering's malloc,
 * aligned_alloc and free to these): device memory from the caching
 * allocator. Blocks are 256-byte aligned, enough for any `alignment` up to
 * 256; a larger one fails. Errors are recorded and NULL returned. */
EMBERRT_EXPORT void *emberrt_cuda_host_malloc(size_t size);
EMBERRT_EXPORT void *emberrt_cuda_aligned_alloc(size_t alignment, size_t size);
EMBERRT_EXPORT void emberrt_cuda_free_any(void *ptr);
/* Copies a constant tensor from the host (`source`, a global of the compiled
 * code) to device memory (`destination`), addresses as integers, as the
 * compiled code has them (memref.extract_aligned_pointer_as_index). Queued
 * without waiting (the constant never changes): a traced function with
 * constants does not wait for the GPU on every call. */
EMBERRT_EXPORT void emberrt_cuda_upload(int64_t destination, int64_t source, int64_t bytes);
/* The other way: a value that host code needs (a branch's condition) read
 * from device memory into host memory, after the work queued before it. */
EMBERRT_EXPORT void emberrt_cuda_download(int64_t destination, int64_t source, int64_t bytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EMBERRT_CUDA_H */
