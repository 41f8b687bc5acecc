//===- collectives.cpp - ember.all_reduce's entry into the engine ---------===//
//
// Compiled code calls emberrt_all_reduce_<type>; the engine (Gloo, in
// ember's distributed library) is behind a hook, so the runtime links none.
//
//===----------------------------------------------------------------------===//

#include "emberrt/runtime.h"

#include <atomic>

namespace {
std::atomic<emberrt_all_reduce_hook_t> allReduceHook{nullptr};

/// Whether a descriptor {allocated, aligned, offset, sizes[rank],
/// strides[rank]} is row-major contiguous; `count` gets its elements.
bool contiguous(int64_t rank, const int64_t *words, int64_t &count) {
  const int64_t *sizes = words + 3, *strides = words + 3 + rank;
  bool dense = true;
  count = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    dense &= sizes[d] <= 1 || strides[d] == count;
    count *= sizes[d];
  }
  return dense;
}

char *elementsOf(const int64_t *words, size_t size) {
  return reinterpret_cast<char *>(words[1]) + words[2] * static_cast<int64_t>(size);
}

void allReduce(int64_t rank, void *operand, int64_t resultRank, void *result, int32_t dtype,
               size_t size, int32_t reduction, int32_t site) {
  auto *in = static_cast<int64_t *>(operand), *out = static_cast<int64_t *>(result);
  emberrt_all_reduce_hook_t hook = allReduceHook.load();
  if (!hook) {
    emberrt_report_fault_message(EMBERRT_FAULT_COLLECTIVE, site,
                                 "ran without a process group: call "
                                 "ember::distributed::init_process_group() first (a C "
                                 "program installs its engine with "
                                 "emberrt_set_all_reduce_hook)");
    return;
  }
  int64_t count, outCount;
  if (!contiguous(resultRank, out, outCount)) {
    emberrt_report_fault_message(EMBERRT_FAULT_COLLECTIVE, site,
                                 "was given a result buffer it cannot fill (an internal error)");
    return;
  }
  const void *input = elementsOf(in, size);
  if (!contiguous(rank, in, count)) {
    // A strided operand (a slice, a transpose's view): gathered into the
    // result first, then reduced there in place.
    emberrt_unranked_memref_t from{rank, operand}, to{resultRank, result};
    emberrt_memref_copy(static_cast<int64_t>(size), &from, &to);
    input = elementsOf(out, size);
  }
  if (count == 0)
    return;
  char error[1024] = {};
  if (hook(input, elementsOf(out, size), count, static_cast<emberrt_dtype_t>(dtype), reduction,
           error, sizeof error) != 0)
    emberrt_report_fault_message(EMBERRT_FAULT_COLLECTIVE, site, error);
}
} // namespace

extern "C" void emberrt_set_all_reduce_hook(emberrt_all_reduce_hook_t hook) {
  allReduceHook.store(hook);
}

extern "C" void emberrt_all_reduce_f32(int64_t rank, void *operand, int64_t resultRank,
                                       void *result, int32_t reduction, int32_t site) {
  allReduce(rank, operand, resultRank, result, EMBERRT_FLOAT32, 4, reduction, site);
}
extern "C" void emberrt_all_reduce_f64(int64_t rank, void *operand, int64_t resultRank,
                                       void *result, int32_t reduction, int32_t site) {
  allReduce(rank, operand, resultRank, result, EMBERRT_FLOAT64, 8, reduction, site);
}
extern "C" void emberrt_all_reduce_i32(int64_t rank, void *operand, int64_t resultRank,
                                       void *result, int32_t reduction, int32_t site) {
  allReduce(rank, operand, resultRank, result, EMBERRT_INT32, 4, reduction, site);
}
extern "C" void emberrt_all_reduce_i64(int64_t rank, void *operand, int64_t resultRank,
                                       void *result, int32_t reduction, int32_t site) {
  allReduce(rank, operand, resultRank, result, EMBERRT_INT64, 8, reduction, site);
}
