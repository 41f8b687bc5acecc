//===- TensorImpl.h - the value behind a Tensor handle ----------*- C++ -*-===//
#ifndef EMBER_LIB_FRONTEND_TENSORIMPL_H
#define EMBER_LIB_FRONTEND_TENSORIMPL_H

#include "ember/Tensor.h"
#include "emberrt/runtime.h"

#include <atomic>

namespace ember::detail {

/// A dense row-major value. Allocated from a per-thread free list, with its
/// buffer from the runtime's caching allocator, so an eager op allocates no
/// memory from the system in steady state.
struct TensorImpl {
  std::atomic<int32_t> refs{1};
  DType dtype;
  Shape shape;
  emberrt_buffer_t *buffer = nullptr;

  static void *operator new(size_t size);
  static void operator delete(void *pointer);
  ~TensorImpl() { emberrt_buffer_release(buffer); }
};

/// A new tensor with uninitialized contents.
Tensor newTensor(const Shape &shape, DType dtype);

/// Converts `count` values from `fromType` to `toType` with numpy's astype
/// rules (bool -> 0/1, number -> bool is x != 0, float -> int truncates).
void convertValues(const void *from, DType fromType, void *to, DType toType, size_t count);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_TENSORIMPL_H
