//===- TensorImpl.h - the value behind a Tensor handle ----------*- C++ -*-===//
#ifndef EMBER_LIB_FRONTEND_TENSORIMPL_H
#define EMBER_LIB_FRONTEND_TENSORIMPL_H

#include "ember/Frontend/Tensor.h"
#include "emberrt/runtime.h"

#include <atomic>

namespace ember::detail {

/// A dense row-major value. Allocated from a per-thread free list, with its
/// buffer from the runtime's caching allocator, so an eager op allocates no
/// memory from the system in steady state.
class Tracer;

struct TensorImpl {
  std::atomic<int32_t> refs{1};
  DType dtype;
  Shape shape;
  emberrt_buffer_t *buffer = nullptr; ///< null for symbolic tensors
  /// Symbolic tensors (values of a function being traced) have no buffer:
  /// they name value `traceId` of `tracer`.
  Tracer *tracer = nullptr;
  int traceId = -1;
  /// Where the user's code traced the op that made a symbolic tensor (null
  /// for arguments), named when its values are asked for (a C++ `if` on it).
  const char *traceFile = nullptr;
  uint32_t traceLine = 0, traceColumn = 0;

  static void *operator new(size_t size);
  static void operator delete(void *pointer);
  ~TensorImpl() { emberrt_buffer_release(buffer); }
};

/// Throws the Error for a use of an undefined (default-constructed or
/// moved-from) tensor.
[[noreturn]] void throwUndefinedTensor();
/// `t`'s value; throws for an undefined tensor. Inline: the eager hot path.
inline const TensorImpl &implOf(const Tensor &t) {
  if (!t.impl()) [[unlikely]]
    throwUndefinedTensor();
  return *t.impl();
}

/// A new tensor with uninitialized contents.
Tensor newTensor(const Shape &shape, DType dtype);
/// Throws the error for a tensor of values made with an unknown dim.
[[noreturn]] void throwUnknownDims(const Shape &shape);
/// The same with a buffer from `allocate` (the host's or a device's
/// allocator); `onFailure` throws when it fails. Inline: the eager hot path.
template <typename OnFailure>
Tensor newTensorWith(const Shape &shape, DType dtype,
                     emberrt_status_t (*allocate)(size_t, emberrt_buffer_t **),
                     OnFailure &&onFailure) {
  int64_t elements = shape.numel();
  if (elements < 0) [[unlikely]]
    throwUnknownDims(shape);
  auto *impl = new TensorImpl();
  impl->dtype = dtype;
  impl->shape = shape;
  size_t bytes = static_cast<size_t>(elements) * dtypeSize(dtype);
  if (allocate(bytes, &impl->buffer) != EMBERRT_OK) {
    delete impl;
    onFailure();
  }
  return Tensor(impl, Tensor::Adopt{});
}
/// A new handle on `x`'s buffer: the same values, a tensor of its own (a
/// GradientTape sees it as a different value than `x`).
Tensor aliasOf(const Tensor &x);
/// A symbolic tensor: value `id` of the function `tracer` is tracing.
Tensor newSymbolicTensor(const Shape &shape, DType dtype, Tracer *tracer, int id);
inline bool isSymbolic(const Tensor &t) { return t.impl() && t.impl()->tracer; }

/// Converts `count` values from `fromType` to `toType` with numpy's astype
/// rules (bool -> 0/1, number -> bool is x != 0, float -> int truncates).
void convertValues(const void *from, DType fromType, void *to, DType toType, size_t count);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_TENSORIMPL_H
