/*===- emberrt/runtime.h - ember's runtime: buffers and the kernel ABI ---===*
 *
 * Plain C, no LLVM or MLIR: what compiled ember code needs to run.
 *  - Host buffers: 64-byte aligned, reference counted, recycled through a
 *    per-thread caching allocator so steady-state eager code does not malloc.
 *  - The kernel ABI: every compiled function is `void ember_entry_<f>(void **args)`
 *    where args[i] points to the memref descriptor of argument i (inputs, then
 *    outputs). emberrt_memref_t holds a descriptor of any rank up to
 *    EMBERRT_MAX_RANK with the layout MLIR's LLVM lowering expects.
 *
 *===----------------------------------------------------------------------===*/
#ifndef EMBERRT_RUNTIME_H
#define EMBERRT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum emberrt_status {
  EMBERRT_OK = 0,
  EMBERRT_OUT_OF_MEMORY = 1,
  EMBERRT_INVALID_ARGUMENT = 2,
  EMBERRT_DEVICE_ERROR = 3, /* the GPU driver failed; see emberrt_cuda_last_error() */
} emberrt_status_t;

/* Alignment of every buffer's data, in bytes (one cache line, one zmm). */
#define EMBERRT_BUFFER_ALIGNMENT 64

/* Where a buffer's data lives. */
typedef enum emberrt_device_kind {
  EMBERRT_DEVICE_CPU = 0,
  EMBERRT_DEVICE_CUDA = 1, /* device memory of the CUDA device (emberrt/cuda.h) */
  EMBERRT_DEVICE_CUDA_PINNED = 2, /* page-locked host memory (emberrt_cuda_pinned_malloc) */
} emberrt_device_kind_t;

/* A reference-counted buffer, in host memory or (device == EMBERRT_DEVICE_CUDA,
 * from emberrt_cuda_buffer_allocate) in GPU memory. The fields are public so
 * that retain and release can be inlined by C++ callers; change them only
 * through the API. */
typedef struct emberrt_buffer {
  int64_t refcount; /* atomic */
  size_t size;      /* bytes requested */
  size_t capacity;  /* bytes usable (size class) */
  void *data;       /* EMBERRT_BUFFER_ALIGNMENT-aligned */
  int32_t device;   /* an emberrt_device_kind_t */
} emberrt_buffer_t;

/* Allocates a buffer of `size` bytes with one reference. */
emberrt_status_t emberrt_buffer_allocate(size_t size, emberrt_buffer_t **out);
void emberrt_buffer_retain(emberrt_buffer_t *buffer);
/* Drops one reference; the last one returns the memory to its cache (the
 * host's, or the CUDA allocator's for device buffers). */
void emberrt_buffer_release(emberrt_buffer_t *buffer);

typedef struct emberrt_allocator_stats {
  uint64_t allocations;   /* emberrt_buffer_allocate calls */
  uint64_t cache_hits;    /* ... served from the cache without malloc */
  uint64_t bytes_cached;  /* bytes held in this thread's cache now */
} emberrt_allocator_stats_t;

/* Statistics of the calling thread's allocator. */
void emberrt_allocator_stats(emberrt_allocator_stats_t *stats);
/* Returns the calling thread's cached memory to the system. A thread keeps
 * at most an eighth of the memory the process may use (the machine's, or
 * its cgroup's limit) cached, between 256 MiB and 4 GiB, and 16 buffers of
 * a size class. */
void emberrt_allocator_trim(void);

/* Scratch memory for compiled code's temporaries, with aligned_alloc/free
 * semantics (no size on free). It comes from the same per-thread cache as
 * buffers, so a compiled function that allocates and frees the same
 * temporaries on every call does not go to the system (no page faults). The
 * JIT binds compiled code's aligned_alloc and free to these. Returns NULL
 * when out of memory or `alignment` is not a power of two. */
void *emberrt_scratch_allocate(size_t alignment, size_t size);
/* Frees what emberrt_scratch_allocate returned; NULL is ignored. */
void emberrt_scratch_free(void *data);

#define EMBERRT_MAX_RANK 8

/* A strided memref descriptor: {allocated, aligned, offset, sizes[r], strides[r]}
 * packed for rank r (sizes then strides, contiguously). */
typedef struct emberrt_memref {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes_and_strides[2 * EMBERRT_MAX_RANK];
} emberrt_memref_t;

/* Describes `rank` dims of contiguous row-major data at `data`. */
emberrt_status_t emberrt_memref_init(emberrt_memref_t *memref, void *data, int rank,
                                     const int64_t *sizes);

/* Sizes that ember-compile's headers compute from the arguments' (products
 * of `?` dims, a merged sequence batch): EMBERRT_SIZE_OVERFLOW where one does
 * not fit in int64, which no check passes. */
#define EMBERRT_SIZE_OVERFLOW INT64_MIN
static inline int64_t emberrt_size_mul(int64_t a, int64_t b) {
  int64_t product;
  if (a == EMBERRT_SIZE_OVERFLOW || b == EMBERRT_SIZE_OVERFLOW ||
      __builtin_mul_overflow(a, b, &product))
    return EMBERRT_SIZE_OVERFLOW;
  return product;
}
static inline int64_t emberrt_size_div(int64_t a, int64_t divisor) {
  return a == EMBERRT_SIZE_OVERFLOW ? a : a / divisor;
}
static inline int64_t emberrt_size_add(int64_t a, int64_t b) {
  int64_t sum;
  if (a == EMBERRT_SIZE_OVERFLOW || b == EMBERRT_SIZE_OVERFLOW ||
      __builtin_add_overflow(a, b, &sum))
    return EMBERRT_SIZE_OVERFLOW;
  return sum;
}

/* An unranked memref as MLIR's lowering passes it: a rank and a pointer to a
 * ranked descriptor. */
typedef struct emberrt_unranked_memref {
  int64_t rank;
  void *descriptor;
} emberrt_unranked_memref_t;

/* Copies between two strided memrefs of the same shape; compiled code calls
 * it (as `memrefCopy`) for copies between non-contiguous buffers. */
void emberrt_memref_copy(int64_t element_size, emberrt_unranked_memref_t *source,
                         emberrt_unranked_memref_t *target);

/* Element types, in the order of ember::DType. */
typedef enum emberrt_dtype {
  EMBERRT_BOOL = 0,
  EMBERRT_INT32 = 1,
  EMBERRT_INT64 = 2,
  EMBERRT_FLOAT32 = 3,
  EMBERRT_FLOAT64 = 4,
} emberrt_dtype_t;

/* Printing from compiled code (ember.print). The front end installs a hook
 * that formats like numpy; without one a plain flat listing is printed. */
typedef void (*emberrt_print_hook_t)(const char *message, size_t message_size,
                                     emberrt_dtype_t dtype, int rank, const int64_t *sizes,
                                     const int64_t *strides, const void *data);
void emberrt_set_print_hook(emberrt_print_hook_t hook);
/* What compiled code calls: a tensor and a message as unranked memrefs
 * (each a rank and a descriptor pointer). */
void emberrt_print_i1(int64_t rank, void *descriptor, int64_t message_rank, void *message);
void emberrt_print_i32(int64_t rank, void *descriptor, int64_t message_rank, void *message);
void emberrt_print_i64(int64_t rank, void *descriptor, int64_t message_rank, void *message);
void emberrt_print_f32(int64_t rank, void *descriptor, int64_t message_rank, void *message);
void emberrt_print_f64(int64_t rank, void *descriptor, int64_t message_rank, void *message);

/* AMX tiles (bfloat16 matmuls on Intel CPUs that have them): Linux grants
 * them to a process that asks. emberrt_request_amx asks once per process and
 * returns 1 if they are granted, else 0 (also on other systems); compiled code
 * that uses tiles calls emberrt_require_amx on entry, which exits with a
 * message (status 70) where they are refused, never SIGILL. */
int32_t emberrt_request_amx(void);
void emberrt_require_amx(void);

/* Faults of compiled code. Compiled code never traps: an integer division
 * (div, floordiv, mod) by zero, or of the most negative integer by -1,
 * divides by 1 instead, and a gather reads a clamped index for one out of
 * range; each reports the fault here, with `site`, the number the compiler
 * gave the faulting op (-1: unknown). The caller of compiled code takes the
 * fault afterwards and raises an error naming the op and its source line.
 * Per thread (compiled CPU code runs on its caller's thread); the first fault
 * reported since the last take is kept. */
typedef enum emberrt_fault_kind {
  EMBERRT_FAULT_NONE = 0,
  EMBERRT_FAULT_INTEGER_DIVISION_BY_ZERO = 1,
  EMBERRT_FAULT_INTEGER_DIVISION_OVERFLOW = 2, /* INT_MIN / -1 */
  EMBERRT_FAULT_INDEX_OUT_OF_RANGE = 3,        /* a gather index */
  EMBERRT_FAULT_EMPTY_AXIS = 4,                /* argmax over an empty `?` axis */
  EMBERRT_FAULT_COLLECTIVE = 5,                /* a collective failed; see emberrt_fault_message */
} emberrt_fault_kind_t;

typedef struct emberrt_fault {
  int32_t kind; /* an emberrt_fault_kind_t */
  int32_t site;
} emberrt_fault_t;

/* What compiled code calls (by this name) when an op faults. */
void emberrt_report_fault(int32_t kind, int32_t site);
/* The calling thread's pending fault, which is cleared; kind is
 * EMBERRT_FAULT_NONE when there is none. */
emberrt_fault_t emberrt_take_fault(void);
/* A fault with a message of its own (a collective's failure), kept with it. */
void emberrt_report_fault_message(int32_t kind, int32_t site, const char *message);
/* The message of the fault the calling thread took last ("" if none). */
const char *emberrt_fault_message(void);

/* Collectives of compiled code (ember.all_reduce). Compiled code calls
 * emberrt_all_reduce_start_<type>(operand, result, reduction, site) with two
 * unranked memrefs: the operand (any strides, only read: it is copied into
 * the result before the call returns) and the result (a new contiguous
 * buffer of the same shape), which receives the operand reduced over every
 * process, through the hook that the program's collective engine installed
 * (ember::distributed, on Gloo); the runtime itself links no collective
 * library. The start returns a ticket, which emberrt_all_reduce_wait(ticket,
 * site) takes before anything reads the result: by default the reduction
 * runs at once and the wait has nothing to do, and with
 * emberrt_set_collective_thread(1) it runs on the runtime's communication
 * thread (one at a time, in the order started) while the caller goes on,
 * and the wait blocks until it is done (one started while earlier ones are
 * still on the thread queues behind them, thread on or not). Every process
 * must start the same all-reduces in the same order: start them from one
 * thread at a time. emberrt_all_reduce_<type> is both in one call. The hook reads `count` contiguous elements at `input` (which
 * may be `output`: in place) and writes them reduced at `output`; it
 * returns 0, or non-zero after writing why into `error`; it must tolerate
 * being called from the communication thread, and is read when each
 * all-reduce runs (after emberrt_set_all_reduce_hook(NULL) a queued one
 * faults instead). A failure, or a call without
 * a hook, reports EMBERRT_FAULT_COLLECTIVE at `site` (on the thread that
 * waits) with the message. reduction: 0 sum, 1 mean, 2 max, 3 min. */
typedef int32_t (*emberrt_all_reduce_hook_t)(const void *input, void *output, int64_t count,
                                             emberrt_dtype_t dtype, int32_t reduction, char *error,
                                             size_t error_capacity);
void emberrt_set_all_reduce_hook(emberrt_all_reduce_hook_t hook);
void emberrt_set_collective_thread(int32_t enabled);
int64_t emberrt_all_reduce_start_f32(int64_t rank, void *operand, int64_t result_rank,
                                     void *result, int32_t reduction, int32_t site);
int64_t emberrt_all_reduce_start_f64(int64_t rank, void *operand, int64_t result_rank,
                                     void *result, int32_t reduction, int32_t site);
int64_t emberrt_all_reduce_start_i32(int64_t rank, void *operand, int64_t result_rank,
                                     void *result, int32_t reduction, int32_t site);
int64_t emberrt_all_reduce_start_i64(int64_t rank, void *operand, int64_t result_rank,
                                     void *result, int32_t reduction, int32_t site);
void emberrt_all_reduce_wait(int64_t ticket, int32_t site);
void emberrt_all_reduce_f32(int64_t rank, void *operand, int64_t result_rank, void *result,
                            int32_t reduction, int32_t site);
void emberrt_all_reduce_f64(int64_t rank, void *operand, int64_t result_rank, void *result,
                            int32_t reduction, int32_t site);
void emberrt_all_reduce_i32(int64_t rank, void *operand, int64_t result_rank, void *result,
                            int32_t reduction, int32_t site);
void emberrt_all_reduce_i64(int64_t rank, void *operand, int64_t result_rank, void *result,
                            int32_t reduction, int32_t site);

/* Threads of compiled code. Loops with enough work run on a team of
 * threads of LLVM's OpenMP runtime (libomp); compiled code asks
 * emberrt_num_threads() for the team's size on every parallel loop, so a
 * change applies to code already compiled. The default is the
 * EMBER_NUM_THREADS environment variable when set to a positive number, else
 * every CPU this process may run on (sched_getaffinity); any other value of
 * it is ignored with a warning on stderr, once. */
int32_t emberrt_num_threads(void);
/* Sets the team size for every thread of the process; n < 1 restores the
 * default. */
void emberrt_set_num_threads(int32_t n);
/* The default team size (see above). */
int32_t emberrt_default_num_threads(void);

/* The packed entry point of a compiled function. */
typedef void (*emberrt_entry_fn)(void **args);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EMBERRT_RUNTIME_H */
