//===- Tensor.h - ember's eager tensor ---------------------------*- C++ -*-===//
//
// A Tensor is a cheap handle (one pointer) to a reference-counted value with a
// dtype, a static shape and a host buffer; copies share the value, as in
// LibTorch and TensorFlow. Every op on tensors runs at once (Ops.h).
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_TENSOR_H
#define EMBER_TENSOR_H

#include "ember/Support/DType.h"
#include "ember/Frontend/Device.h"
#include "ember/Frontend/Error.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ember {

constexpr int kMaxRank = 8;

/// Python's None: an omitted slice bound (see slice), and a dim of unknown
/// size, known only when a function is called (TensorFlow's None in a
/// TensorSpec; see ember::TensorSpec).
constexpr int64_t kNone = INT64_MIN;

/// A shape of at most kMaxRank dims, stored inline. Tensors that hold
/// values have every dim known; a symbolic tensor inside a function traced
/// with an input signature may have dims of kNone (see with_unknown_dims).
class Shape {
public:
  /// The most elements a shape may hold, counting its non-empty dims (so
  /// that element counts, strides and byte offsets of any dtype fit int64).
  static constexpr int64_t kMaxElements = int64_t(1) << 60;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  explicit Shape(std::span<const int64_t> dims);

  int rank() const { return rank_; }
  int64_t operator[](int d) const { return dims_[d]; }
  int64_t &operator[](int d) { return dims_[d]; }
  const int64_t *begin() const { return dims_; }
  const int64_t *end() const { return dims_ + rank_; }
  const int64_t *data() const { return dims_; }
  /// The element count; -1 when a dim is unknown (kNone).
  int64_t numel() const;
  /// Whether every dim is known (TensorFlow's TensorShape.is_fully_defined).
  bool is_fully_defined() const;
  /// A shape whose dims may be kNone: a symbolic tensor's, inside a function
  /// traced with an input signature (`x.shape()[0] == ember::kNone` there,
  /// as TensorFlow's x.shape[0] is None). Shape's constructors refuse them.
  static Shape with_unknown_dims(std::span<const int64_t> dims);
  std::vector<int64_t> vec() const { return {begin(), end()}; }
  void push_back(int64_t dim);
  /// numpy's spelling: "(2, 3)", "(3,)", "()"; an unknown dim is "None".
  std::string str() const { return str(std::span<const int64_t>(dims_, rank_)); }
  /// The same of any dims (which need not make a valid Shape: a file's
  /// header, a reshape's -1).
  static std::string str(std::span<const int64_t> dims);

  friend bool operator==(const Shape &a, const Shape &b) {
    if (a.rank_ != b.rank_)
      return false;
    for (int d = 0; d < a.rank_; ++d)
      if (a.dims_[d] != b.dims_[d])
        return false;
    return true;
  }

private:
  int64_t dims_[kMaxRank] = {};
  int rank_ = 0;
};

/// A C++ number mixed with tensors (`x + 1`): it takes the tensor's dtype.
/// Alone (`Tensor(scalar)`), a floating-point one is float32, as TensorFlow
/// makes float literals, or float16 / bfloat16 for an ember::Half /
/// ember::BFloat16 (as LibTorch's scalar_tensor).
struct Scalar {
  template <typename T, std::enable_if_t<isHalfPrecisionType<T>, int> = 0>
  Scalar(T value) : Scalar(static_cast<float>(value)) {
    floatType = dtypeOf<T>();
  }
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Scalar(T value) {
    if constexpr (std::is_same_v<T, bool>) {
      kind = Bool;
      i = value;
      f = value;
    } else if constexpr (std::is_integral_v<T>) {
      kind = Int;
      i = static_cast<int64_t>(value);
      f = static_cast<double>(value);
      wide = sizeof(T) > 4;
    } else {
      kind = Float;
      f = static_cast<double>(value);
      // NaN or out of int64's range: the cast would be undefined behavior.
      i = value >= T(-0x1p63) && value < T(0x1p63) ? static_cast<int64_t>(value)
                                                   : std::numeric_limits<int64_t>::min();
    }
  }
  enum Kind { Bool, Int, Float } kind;
  double f;
  int64_t i;
  DType floatType = DType::Float32; ///< a Float scalar's own dtype
  bool wide = false;                ///< an Int from a 64-bit C++ type (int64)
};

namespace detail {
struct TensorImpl;
} // namespace detail

/// One level of a nested initializer list: a number or a list of levels.
class TensorInit {
public:
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  TensorInit(T value) : scalar_(value), isScalar_(true) {}
  TensorInit(std::initializer_list<TensorInit> children)
      : scalar_(0), children_(children), isScalar_(false) {}

  /// Shape of the nest; throws ember::Error on ragged lists.
  Shape shape() const;
  /// The dtype TensorFlow would pick for these literals.
  DType inferDType() const;
  /// Appends the leaves in row-major order.
  void flatten(std::vector<Scalar> &out) const;

private:
  Scalar scalar_;
  std::vector<TensorInit> children_;
  bool isScalar_;
};

class Tensor {
public:
  /// An empty handle (`defined()` is false).
  Tensor() = default;
  Tensor(const Tensor &other);
  Tensor(Tensor &&other) noexcept : impl_(other.impl_) { other.impl_ = nullptr; }
  Tensor &operator=(const Tensor &other);
  Tensor &operator=(Tensor &&other) noexcept;
  ~Tensor();

  /// 0-d tensors: `Tensor(3)` is int32, `Tensor(2.5)` float32 (as TensorFlow);
  /// a 64-bit C++ integer (`int64_t`, `long`) gives int64, as in lists.
  explicit Tensor(Scalar value);
  Tensor(Scalar value, DType dtype);

  /// Nested initializer lists: `Tensor({{1, 2}, {3, 4}})` is a 2x2 int32
  /// tensor. Integers give int32 (int64 if any value is an int64_t), any
  /// floating-point literal float32, all-bool bool (as TensorFlow). Pass a
  /// dtype to choose another. Ragged lists are an error.
  Tensor(std::initializer_list<TensorInit> values);
  Tensor(std::initializer_list<TensorInit> values, DType dtype);

  /// A tensor with uninitialized contents, on the DeviceScope's device.
  static Tensor empty(const Shape &shape, DType dtype);
  /// The same on `device` (PyTorch's torch::empty(shape, device)).
  static Tensor empty(const Shape &shape, DType dtype, const Device &device);
  /// Copies `values` (converted to `dtype`) into a new tensor of `shape`.
  template <typename T>
  static Tensor from_vector(const std::vector<T> &values, const Shape &shape,
                            DType dtype = defaultDType<T>()) {
    if constexpr (std::is_same_v<T, bool>) { // std::vector<bool> has no data()
      std::vector<Stored<int32_t>> bytes(values.begin(), values.end());
      return fromHost(bytes.data(), DType::Int32, bytes.size(), shape, dtype);
    } else {
      std::vector<Stored<T>> stored(values.begin(), values.end());
      return fromHost(stored.data(), dtypeOf<Stored<T>>(), stored.size(), shape, dtype);
    }
  }

  bool defined() const { return impl_ != nullptr; }
  DType dtype() const;
  const Shape &shape() const;
  int rank() const { return shape().rank(); }
  int64_t numel() const { return shape().numel(); }
  int64_t size(int dim) const;
  /// numel() times the dtype's size; throws Error for a shape with a None
  /// dim (a symbolic tensor of a function traced with one).
  size_t nbytes() const;

  /// Where the values live: cpu, or cuda:0 (see ember/Device.h).
  Device device() const;
  /// This tensor on `device`: itself if it is there already, else a copy
  /// (PyTorch's Tensor.to). Copies to the host wait for queued GPU work.
  Tensor to(const Device &device) const;
  Tensor cpu() const { return to(Device()); }
  Tensor cuda() const { return to(Device(DeviceType::CUDA, 0)); }
  /// This host tensor in page-locked ("pinned") host memory, PyTorch's
  /// Tensor.pin_memory: itself if it is there already, else a copy. Its
  /// copies to the GPU are queued and return at once (and run at the link's
  /// full speed); its memory is not reused until they are done. Needs a GPU.
  Tensor pin_memory() const;
  /// Whether the values are in page-locked host memory.
  bool is_pinned() const;
  /// Whether this is a symbolic tensor of a function being traced (inside an
  /// ember::function, or a cond or loop body traced in it): it has a dtype and
  /// a shape but no values until the compiled function runs, so data(),
  /// to_vector() and item() throw. Library code that needs values (a file
  /// writer, a data pipeline) asks this to say why it cannot run.
  bool is_symbolic() const;

  /// The buffer: host memory, or for a tensor on a GPU a device pointer
  /// (as LibTorch's data_ptr); to_vector and item copy to the host.
  void *data();
  const void *data() const;
  /// Typed access to the buffer; T must be the dtype's C++ type.
  template <typename T>
  T *data_ptr() {
    checkAccess(dtypeOf<T>());
    return static_cast<T *>(data());
  }
  template <typename T>
  const T *data_ptr() const {
    checkAccess(dtypeOf<T>());
    return static_cast<const T *>(data());
  }

  /// The values in row-major order, converted to T (numpy's astype rules).
  template <typename T>
  std::vector<T> to_vector() const {
    // (A None dim's numel is -1: copyTo throws for a symbolic tensor first.)
    std::vector<Stored<T>> out(static_cast<size_t>(std::max<int64_t>(numel(), 0)));
    copyTo(out.data(), dtypeOf<Stored<T>>());
    return std::vector<T>(out.begin(), out.end());
  }
  /// The single value of a one-element tensor, converted to T.
  template <typename T>
  T item() const {
    Stored<T> value;
    copyItemTo(&value, dtypeOf<Stored<T>>());
    return static_cast<T>(value);
  }
  explicit operator bool() const { return item<bool>(); }
  explicit operator int() const { return item<int32_t>(); }
  explicit operator int64_t() const { return item<int64_t>(); }
  explicit operator float() const { return item<float>(); }
  explicit operator double() const { return item<double>(); }

  /// numpy's text of the values: "[[1 2]\n [3 4]]".
  std::string values_string() const;
  /// TensorFlow-style: "ember.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)".
  std::string to_string() const;

  template <typename T>
  static constexpr DType defaultDType() {
    if constexpr (std::is_same_v<T, bool>)
      return DType::Bool;
    else if constexpr (isHalfPrecisionType<T>)
      return dtypeOf<T>();
    else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, long long>)
      return DType::Int64;
    else if constexpr (std::is_integral_v<T>)
      return DType::Int32;
    else
      return DType::Float32; // float and double literals, as TensorFlow
  }

  /// Internal: the value behind the handle, and adopting one (the tag keeps
  /// `Tensor(0)` from meaning a null pointer).
  detail::TensorImpl *impl() const { return impl_; }
  struct Adopt {};
  Tensor(detail::TensorImpl *impl, Adopt) : impl_(impl) {}

private:
  // The C++ type holding values of T on the host side of a copy.
  template <typename T>
  using Stored = std::conditional_t<
      std::is_same_v<T, bool> || isHalfPrecisionType<T>, T,
      std::conditional_t<std::is_floating_point_v<T>,
                         std::conditional_t<std::is_same_v<T, float>, float, double>,
                         std::conditional_t<(sizeof(T) > 4), int64_t, int32_t>>>;

  static Tensor fromHost(const void *values, DType valueType, size_t count, const Shape &shape,
                         DType dtype);
  void copyTo(void *out, DType outType) const;
  void copyItemTo(void *out, DType outType) const;
  void checkAccess(DType requested) const;

  detail::TensorImpl *impl_ = nullptr;
};

std::ostream &operator<<(std::ostream &os, const Tensor &tensor);
std::ostream &operator<<(std::ostream &os, const Shape &shape);

/// "float32 tensor of shape (2, 3)": how ember's error messages name a tensor.
std::string describe(const Tensor &t);

} // namespace ember

#endif // EMBER_TENSOR_H
