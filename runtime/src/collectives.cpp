//===- collectives.cpp - ember.all_reduce's entry into the engine ---------===//
//
// Compiled code calls emberrt_all_reduce_<type>; the engine (Gloo, in ember's
// distributed library) is behind a hook, so the runtime links none.
//
//===----------------------------------------------------------------------===//

#include "emberrt/runtime.h"

#include <atomic>

namespace {
std::atomic<emberrt_all_reduce_hook_t> allReduceHook{nullptr};

size_t elementSize(int32_t dtype) {
  switch (dtype) {
  case EMBERRT_INT32:
  case EMBERRT_FLOAT32:
    return 4;
  case EMBERRT_INT64:
  case EMBERRT_FLOAT64:
    return 8;
  default:
    return 0;
  }
}
} // namespace

extern "C" void emberrt_set_all_reduce_hook(emberrt_all_reduce_hook_t hook) {
  allReduceHook.store(hook);
}

namespace {
void allReduce(int64_t rank, void *descriptor, int32_t dtype, int32_t reduction, int32_t site) {
  // {allocated, aligned, offset, sizes[rank], strides[rank]}, row-major.
  auto *words = static_cast<int64_t *>(descriptor);
  char *aligned = reinterpret_cast<char *>(words[1]);
  int64_t offset = words[2], count = 1, stride = 1;
  const int64_t *sizes = words + 3, *strides = words + 3 + rank;
  bool contiguous = true;
  for (int64_t d = rank - 1; d >= 0; --d) {
    contiguous &= sizes[d] <= 1 || strides[d] == stride;
    stride *= sizes[d];
    count *= sizes[d];
  }
  size_t size = elementSize(dtype);
  emberrt_all_reduce_hook_t hook = allReduceHook.load();
  if (!hook) {
    emberrt_report_fault_message(EMBERRT_FAULT_COLLECTIVE, site,
                                 "ran without a process group: call "
                                 "ember::distributed::init_process_group() first");
    return;
  }
  if (!contiguous || size == 0) {
    emberrt_report_fault_message(EMBERRT_FAULT_COLLECTIVE, site,
                                 "was given a buffer it cannot reduce (an internal error)");
    return;
  }
  if (count == 0)
    return;
  char error[1024] = {};
  if (hook(aligned + offset * static_cast<int64_t>(size), count,
           static_cast<emberrt_dtype_t>(dtype), reduction, error, sizeof error) != 0)
    emberrt_report_fault_message(EMBERRT_FAULT_COLLECTIVE, site, error);
}
} // namespace

extern "C" void emberrt_all_reduce_f32(int64_t rank, void *d, int32_t reduction, int32_t site) {
  allReduce(rank, d, EMBERRT_FLOAT32, reduction, site);
}
extern "C" void emberrt_all_reduce_f64(int64_t rank, void *d, int32_t reduction, int32_t site) {
  allReduce(rank, d, EMBERRT_FLOAT64, reduction, site);
}
extern "C" void emberrt_all_reduce_i32(int64_t rank, void *d, int32_t reduction, int32_t site) {
  allReduce(rank, d, EMBERRT_INT32, reduction, site);
}
extern "C" void emberrt_all_reduce_i64(int64_t rank, void *d, int32_t reduction, int32_t site) {
  allReduce(rank, d, EMBERRT_INT64, reduction, site);
}
