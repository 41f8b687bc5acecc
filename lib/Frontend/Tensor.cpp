//===- Tensor.cpp - the Tensor handle, shapes, creation and host copies ----===//

#include "DeviceCopy.h"
#include "TensorImpl.h"

#include "Format.h"
#include "ember/Frontend/Ops.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <vector>

using namespace ember;
using namespace ember::detail;

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

Shape::Shape(std::initializer_list<int64_t> dims) : Shape(std::span<const int64_t>(dims)) {}

Shape::Shape(std::span<const int64_t> dims) {
  if (dims.size() > static_cast<size_t>(kMaxRank))
    throw Error("ember supports tensors of rank at most " + std::to_string(kMaxRank) +
                ", got rank " + std::to_string(dims.size()));
  for (int64_t dim : dims)
    push_back(dim);
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int d = 0; d < rank_; ++d) {
    if (dims_[d] == kNone) [[unlikely]]
      return -1;
    n *= dims_[d];
  }
  return n;
}

bool Shape::is_fully_defined() const { return std::find(begin(), end(), kNone) == end(); }

Shape Shape::with_unknown_dims(std::span<const int64_t> dims) {
  Shape known; // the known dims, checked as a Shape checks them
  for (int64_t dim : dims)
    if (dim != kNone)
      known.push_back(dim);
  if (dims.size() > static_cast<size_t>(kMaxRank))
    throw Error("ember supports tensors of rank at most " + std::to_string(kMaxRank) +
                ", got rank " + std::to_string(dims.size()));
  Shape shape;
  std::copy(dims.begin(), dims.end(), shape.dims_);
  shape.rank_ = static_cast<int>(dims.size());
  return shape;
}

void Shape::push_back(int64_t dim) {
  if (rank_ == kMaxRank)
    throw Error("ember supports tensors of rank at most " + std::to_string(kMaxRank));
  if (dim == kNone) // x.shape()[d] of a None dim, inside a trace
    throw Error("a None dim cannot size a new tensor: it is known only when the traced "
                "function is called; compute the tensor from one that has it (x * 0.f for "
                "zeros shaped as x), or read the sizes with ember::shape(x)");
  if (dim < 0)
    throw Error("negative dimension " + std::to_string(dim) + " in a shape");
  // Element counts and byte offsets are int64: at most 2^60 elements (of 8
  // bytes: 2^63 bytes). Empty dims do not count, since the strides of the
  // others still do (numpy refuses np.zeros((0, 2**62, 2**62)) too).
  int64_t elements = 1;
  for (int d = 0; d < rank_; ++d)
    elements *= std::max<int64_t>(dims_[d], 1);
  if (dim > 1 && elements > kMaxElements / dim) {
    std::string dims;
    for (int d = 0; d < rank_; ++d)
      dims += std::to_string(dims_[d]) + ", ";
    throw Error("a shape of more than 2^60 elements: (" + dims + std::to_string(dim) +
                (rank_ + 1 < kMaxRank ? ", ...)" : ")"));
  }
  dims_[rank_++] = dim;
}

std::string Shape::str(std::span<const int64_t> dims) {
  std::string out = "(";
  for (size_t d = 0; d < dims.size(); ++d)
    out += (d ? ", " : "") + (dims[d] == kNone ? std::string("None") : std::to_string(dims[d]));
  return out + (dims.size() == 1 ? ",)" : ")");
}

std::ostream &ember::operator<<(std::ostream &os, const Shape &shape) { return os << shape.str(); }

//===----------------------------------------------------------------------===//
// TensorImpl allocation
//===----------------------------------------------------------------------===//

namespace {
/// Per-thread free list of TensorImpl blocks.
struct ImplFreeList {
  std::vector<void *> blocks;
  ~ImplFreeList() {
    for (void *block : blocks)
      ::operator delete(block);
  }
};
ImplFreeList &implFreeList() {
  thread_local ImplFreeList list;
  return list;
}
constexpr size_t kMaxFreeImpls = 4096;
} // namespace

void *TensorImpl::operator new(size_t size) {
  ImplFreeList &list = implFreeList();
  if (!list.blocks.empty()) {
    void *block = list.blocks.back();
    list.blocks.pop_back();
    return block;
  }
  return ::operator new(size);
}

void TensorImpl::operator delete(void *pointer) {
  ImplFreeList &list = implFreeList();
  if (list.blocks.size() < kMaxFreeImpls)
    list.blocks.push_back(pointer);
  else
    ::operator delete(pointer);
}

void ember::detail::throwUnknownDims(const Shape &shape) {
  throw Error("a tensor of values cannot have the shape " + shape.str() +
              ": a None dim is known only when the traced function is called; compute the "
              "tensor from one that has it (x * 0.f for zeros shaped as x), or read the sizes "
              "with ember::shape(x)");
}

Tensor ember::detail::newTensor(const Shape &shape, DType dtype) {
  return newTensorWith(shape, dtype, emberrt_buffer_allocate, [&] {
    throw Error("out of memory allocating a tensor of shape " + shape.str() + " and dtype " +
                std::string(dtypeName(dtype)));
  });
}

Tensor ember::detail::aliasOf(const Tensor &x) {
  auto *impl = new TensorImpl();
  impl->dtype = x.dtype();
  impl->shape = x.shape();
  impl->buffer = x.impl()->buffer;
  emberrt_buffer_retain(impl->buffer);
  return Tensor(impl, Tensor::Adopt{});
}

Tensor ember::detail::newSymbolicTensor(const Shape &shape, DType dtype, Tracer *tracer, int id) {
  auto *impl = new TensorImpl();
  impl->dtype = dtype;
  impl->shape = shape;
  impl->tracer = tracer;
  impl->traceId = id;
  return Tensor(impl, Tensor::Adopt{});
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

template <typename To, typename From>
static To convertOne(From x) {
  if constexpr (isHalfPrecisionType<From>) {
    return convertOne<To>(static_cast<float>(x)); // exact
  } else if constexpr (isHalfPrecisionType<To>) {
    // Rounded once: from float directly, from the others through double
    // (exact for all but int64 beyond 2^53), which the 16-bit types round
    // correctly.
    if constexpr (std::is_same_v<From, float>)
      return To(x);
    else
      return To(static_cast<double>(x));
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // NaN and values outside To's range (undefined behavior for the C++
    // cast) saturate, NaN giving 0, as the compiled ember.cast does (XLA's
    // rule). [min, -min) is exact in From.
    constexpr From lo = static_cast<From>(std::numeric_limits<To>::min());
    if (std::isnan(x))
      return To(0);
    if (x <= lo)
      return std::numeric_limits<To>::min();
    if (x >= -lo)
      return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

template <typename From>
static void convertFrom(const From *from, void *to, DType toType, size_t count) {
  switch (toType) {
#define EMBER_CONVERT_CASE(name, type, numpy, mlir, size)                                    \
  case DType::name: {                                                                         \
    auto *out = static_cast<type *>(to);                                                      \
    for (size_t i = 0; i < count; ++i)                                                        \
      out[i] = convertOne<type>(from[i]);                                                     \
    return;                                                                                   \
  }
    EMBER_FORALL_DTYPES(EMBER_CONVERT_CASE)
#undef EMBER_CONVERT_CASE
  }
}

void ember::detail::convertValues(const void *from, DType fromType, void *to, DType toType,
                                  size_t count) {
  if (count == 0)
    return; // an empty tensor's pointers may be null, which memcpy must not see
  if (fromType == toType) {
    std::memcpy(to, from, count * dtypeSize(toType));
    return;
  }
  switch (fromType) {
#define EMBER_CONVERT_FROM(name, type, numpy, mlir, size)                                    \
  case DType::name:                                                                           \
    return convertFrom(static_cast<const type *>(from), to, toType, count);
    EMBER_FORALL_DTYPES(EMBER_CONVERT_FROM)
#undef EMBER_CONVERT_FROM
  }
}

//===----------------------------------------------------------------------===//
// Tensor handle
//===----------------------------------------------------------------------===//

Tensor::Tensor(const Tensor &other) : impl_(other.impl_) {
  if (impl_)
    impl_->refs.fetch_add(1, std::memory_order_relaxed);
}

Tensor &Tensor::operator=(const Tensor &other) {
  Tensor copy(other);
  std::swap(impl_, copy.impl_);
  return *this;
}

Tensor &Tensor::operator=(Tensor &&other) noexcept {
  std::swap(impl_, other.impl_);
  return *this;
}

Tensor::~Tensor() {
  // The only handle left (the common case: an op's temporary) cannot be
  // copied by another thread meanwhile, so it skips the locked decrement.
  if (impl_ && (impl_->refs.load(std::memory_order_acquire) == 1 ||
                impl_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1))
    delete impl_;
}

void ember::detail::throwUndefinedTensor() {
  throw Error("use of an undefined (default-constructed or moved-from) ember::Tensor");
}

static TensorImpl &checked(TensorImpl *impl) {
  if (!impl)
    throwUndefinedTensor();
  return *impl;
}

DType Tensor::dtype() const { return checked(impl_).dtype; }
const Shape &Tensor::shape() const { return checked(impl_).shape; }
static void *bufferOf(TensorImpl &impl) {
  // The location is that of the op that computed the tensor: a C++ `if (x >
  // 0)` names its own line, since the comparison is traced right there. (An
  // explicit operator bool cannot take a std::source_location argument, and
  // the conversion's own location would be this file.)
  if (!impl.buffer)
    throw Error((impl.traceFile ? std::string(impl.traceFile) + ":" +
                                      std::to_string(impl.traceLine) + ":" +
                                      std::to_string(impl.traceColumn) +
                                      ": error: a C++ if, loop or conversion reads a tensor "
                                      "computed here: "
                                : std::string()) +
                "cannot read the values of a symbolic tensor (" +
                std::string(dtypeName(impl.dtype)) + ", shape " + impl.shape.str() +
                ") while tracing an ember::function: its values exist only when the "
                "compiled function runs. Branch and loop on tensor values with ember::cond, "
                "ember::while_loop or ember::fori_loop (or ember::where), or pass host values "
                "(ints, bools) as function arguments.");
  return impl.buffer->data;
}

size_t Tensor::nbytes() const {
  if (!shape().is_fully_defined())
    throw Error("the size in bytes of a tensor of shape " + shape().str() +
                " is known only when the traced function is called (a None dim)");
  return static_cast<size_t>(numel()) * dtypeSize(dtype());
}

void *Tensor::data() { return bufferOf(checked(impl_)); }
const void *Tensor::data() const { return bufferOf(checked(impl_)); }

int64_t Tensor::size(int dim) const {
  int rank = this->rank();
  if (dim < -rank || dim >= rank)
    throw Error("dimension " + std::to_string(dim) + " is out of range for a tensor of shape " +
                shape().str());
  return shape()[dim < 0 ? dim + rank : dim];
}

void Tensor::checkAccess(DType requested) const {
  if (requested != dtype())
    throw Error("data_ptr of type " + std::string(dtypeName(requested)) + " on a tensor of dtype " +
                std::string(dtypeName(dtype())));
}

Device Tensor::device() const { return deviceOf(checked(impl_)); }

Tensor Tensor::to(const Device &device) const {
  checked(impl_);
  return copyToDevice(*this, device);
}

void Tensor::copyTo(void *out, DType outType) const {
  Tensor host = cpu();
  convertValues(host.data(), dtype(), out, outType, static_cast<size_t>(numel()));
}

void Tensor::copyItemTo(void *out, DType outType) const {
  if (is_symbolic())
    (void)data(); // throws: a symbolic tensor has no values while tracing
  if (numel() != 1)
    throw Error("only a tensor with one element converts to a C++ value; this one has shape " +
                shape().str() + " (" + std::to_string(numel()) + " elements)");
  Tensor host = cpu();
  convertValues(host.data(), dtype(), out, outType, 1);
}

Tensor Tensor::empty(const Shape &shape, DType dtype) {
  return newTensorOn(shape, dtype, current_device());
}

Tensor Tensor::empty(const Shape &shape, DType dtype, const Device &device) {
  return newTensorOn(shape, dtype, device);
}

bool Tensor::is_symbolic() const { return isSymbolic(*this); }

std::string ember::describe(const Tensor &t) {
  return std::string(dtypeName(t.dtype())) + " tensor of shape " + t.shape().str();
}

Tensor Tensor::fromHost(const void *values, DType valueType, size_t count, const Shape &shape,
                        DType dtype) {
  if (static_cast<int64_t>(count) != shape.numel())
    throw Error("from_vector: " + std::to_string(count) + " values do not fill shape " +
                shape.str() + " (" + std::to_string(shape.numel()) + " elements)");
  Tensor out = newTensor(shape, dtype);
  convertValues(values, valueType, out.data(), dtype, count);
  return placeCreated(out);
}

/// Writes `scalars` into a new tensor of `dtype`, through double or int64 so
/// that integers keep every bit.
static Tensor fromScalars(const std::vector<Scalar> &scalars, const Shape &shape, DType dtype) {
  Tensor out = newTensor(shape, dtype);
  for (size_t i = 0; i < scalars.size(); ++i) {
    const Scalar &s = scalars[i];
    char *slot = static_cast<char *>(out.data()) + i * dtypeSize(dtype);
    if (s.kind == Scalar::Float)
      convertValues(&s.f, DType::Float64, slot, dtype, 1);
    else
      convertValues(&s.i, DType::Int64, slot, dtype, 1);
  }
  return out;
}

Tensor::Tensor(Scalar value)
    : Tensor(value, value.kind == Scalar::Float  ? value.floatType
                    : value.kind == Scalar::Bool ? DType::Bool
                    : value.wide                 ? DType::Int64
                                                 : DType::Int32) {}

Tensor::Tensor(Scalar value, DType dtype) {
  Tensor made = placeCreated(fromScalars({value}, Shape{}, dtype));
  std::swap(impl_, made.impl_);
}

Tensor::Tensor(std::initializer_list<TensorInit> values)
    : Tensor(values, TensorInit(values).inferDType()) {}

Tensor::Tensor(std::initializer_list<TensorInit> values, DType dtype) {
  TensorInit root(values);
  std::vector<Scalar> leaves;
  root.flatten(leaves);
  Tensor made = placeCreated(fromScalars(leaves, root.shape(), dtype));
  std::swap(impl_, made.impl_);
}

//===----------------------------------------------------------------------===//
// Nested initializer lists
//===----------------------------------------------------------------------===//

Shape TensorInit::shape() const {
  if (isScalar_)
    return Shape{};
  Shape shape{static_cast<int64_t>(children_.size())};
  if (children_.empty())
    return shape;
  Shape inner = children_.front().shape();
  for (const TensorInit &child : children_)
    if (!(child.shape() == inner))
      throw Error("ragged nested initializer list: an element of shape " + inner.str() +
                  " next to one of shape " + child.shape().str());
  for (int64_t dim : inner)
    shape.push_back(dim);
  return shape;
}

DType TensorInit::inferDType() const {
  if (isScalar_)
    return scalar_.kind == Scalar::Float ? DType::Float32
           : scalar_.kind == Scalar::Bool ? DType::Bool
           : scalar_.wide                 ? DType::Int64
                                          : DType::Int32;
  // The widest kind wins: bool < int32 < int64 < float32.
  DType result = DType::Bool;
  auto rank = [](DType d) {
    return d == DType::Bool ? 0 : d == DType::Int32 ? 1 : d == DType::Int64 ? 2 : 3;
  };
  for (const TensorInit &child : children_) {
    DType d = child.inferDType();
    if (rank(d) > rank(result))
      result = d;
  }
  return children_.empty() ? DType::Float32 : result;
}

void TensorInit::flatten(std::vector<Scalar> &out) const {
  if (isScalar_) {
    out.push_back(scalar_);
    return;
  }
  for (const TensorInit &child : children_)
    child.flatten(out);
}

//===----------------------------------------------------------------------===//
// Creation ops (host fills: no kernel needed)
//===----------------------------------------------------------------------===//

/// `count` copies of the `size`-byte element at `value` from `out` on, as
/// words of that size (the compiler vectorizes the fill: memory speed, where
/// a memcpy per element took 340 us for ones({1024, 64})).
template <typename Word>
static void fillWords(void *out, const void *value, int64_t count) {
  Word word;
  std::memcpy(&word, value, sizeof(Word));
  std::fill_n(static_cast<Word *>(out), count, word);
}

Tensor ember::full(const Shape &shape, Scalar value, DType dtype) {
  Tensor one = fromScalars({value}, Shape{}, dtype);
  Tensor out = newTensor(shape, dtype);
  switch (dtypeSize(dtype)) {
  case 1:
    fillWords<uint8_t>(out.data(), one.data(), shape.numel());
    break;
  case 2:
    fillWords<uint16_t>(out.data(), one.data(), shape.numel());
    break;
  case 4:
    fillWords<uint32_t>(out.data(), one.data(), shape.numel());
    break;
  default:
    fillWords<uint64_t>(out.data(), one.data(), shape.numel());
    break;
  }
  return placeCreated(out);
}

Tensor ember::zeros(const Shape &shape, DType dtype) { return full(shape, 0, dtype); }
Tensor ember::ones(const Shape &shape, DType dtype) { return full(shape, 1, dtype); }

Tensor ember::eye(int64_t n, DType dtype) {
  Shape shape{n, n}; // checked first: no negative or overflowing n * n below
  std::vector<int64_t> values(static_cast<size_t>(shape.numel()), 0);
  for (int64_t i = 0; i < n; ++i)
    values[static_cast<size_t>(i * n + i)] = 1;
  return Tensor::from_vector(values, shape, dtype);
}

Tensor ember::arange(Scalar start, Scalar stop, Scalar step, DType dtype) {
  if (step.f == 0)
    throw OpError("arange: step must not be zero");
  double count = std::ceil((stop.f - start.f) / step.f);
  // (The cast to int64 of a NaN or huge count would be undefined.)
  if (!(count < 0x1p60))
    throw OpError("arange: " + std::to_string(start.f) + " to " + std::to_string(stop.f) +
                  " in steps of " + std::to_string(step.f) +
                  (std::isnan(count) ? " has no element count" : " is more than 2^60 elements"));
  int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[i] = start.f + static_cast<double>(i) * step.f;
  return Tensor::from_vector(values, Shape{n}, dtype);
}

/// `value` as `dtype` holds it (the conversion from_vector makes), in double.
static double heldAs(double value, DType dtype) {
  alignas(8) unsigned char slot[8];
  detail::convertValues(&value, DType::Float64, slot, dtype, 1);
  double held;
  detail::convertValues(slot, dtype, &held, DType::Float64, 1);
  return held;
}

/// The largest value of the floating-point `dtype` below `bound`. A double
/// sample just under `bound` can round up to it in a narrower type (in
/// bfloat16, one sample of [0, 1) in 500 would be 1.0).
static double largestBelow(double bound, DType dtype) {
  double held = heldAs(bound, dtype);
  if (held < bound)
    return held;
  switch (dtype) { // one step of the dtype toward -infinity
  case DType::Float32:
    return std::nextafter(static_cast<float>(held), -INFINITY);
  case DType::Float16:
  case DType::BFloat16: {
    bool half = dtype == DType::Float16;
    uint16_t bits = half ? Half(held).bits : BFloat16(held).bits;
    // The sign bit is apart from the magnitude.
    bits = (bits & 0x7fff) == 0 ? 0x8001 : (bits & 0x8000) ? bits + 1 : bits - 1;
    return half ? detail::halfBitsToFloat(bits) : detail::bfloat16BitsToFloat(bits);
  }
  default:
    return std::nextafter(held, -INFINITY);
  }
}

Tensor ember::random_uniform(const Shape &shape, uint64_t seed, double minval, double maxval,
                             DType dtype) {
  auto refuse = [&](const char *why) {
    char bounds[96];
    std::snprintf(bounds, sizeof bounds, " (minval %g, maxval %g, dtype ", minval, maxval);
    throw OpError("random_uniform: " + std::string(why) + bounds + std::string(dtypeName(dtype)) +
                  ")");
  };
  if (!isFloatingPoint(dtype) && !isInteger(dtype))
    refuse("takes floating-point or integer dtypes, as tf.random.uniform");
  bool integer = isInteger(dtype);
  // A bound the dtype cannot hold would make samples infinite (or pile
  // them up at the largest finite value).
  if (!integer && (!std::isfinite(heldAs(minval, dtype)) || !std::isfinite(heldAs(maxval, dtype))))
    refuse("the bounds are not finite in the dtype");
  if (integer) {
    // As tf.random.uniform: integers in [minval, maxval), which must hold one.
    double lowest = dtype == DType::Int32 ? -0x1p31 : -0x1p63;
    if (minval != std::floor(minval) || maxval != std::floor(maxval))
      refuse("integer bounds must be whole numbers");
    if (!(minval < maxval))
      refuse("integers need minval < maxval");
    if (minval < lowest || maxval > -lowest)
      refuse("the bounds are outside the dtype's range");
  }
  double top = integer ? maxval - 1 : minval < maxval ? largestBelow(maxval, dtype) : maxval;
  std::mt19937_64 engine(seed);
  if (!shape.is_fully_defined())
    detail::throwUnknownDims(shape);
  std::vector<double> values(static_cast<size_t>(shape.numel()));
  // 53 random bits -> [0, 1): the same values on every platform.
  for (double &v : values) {
    v = minval + (maxval - minval) * static_cast<double>(engine() >> 11) * 0x1p-53;
    // Integers round down (not toward zero: -0.5 is -1), and no value
    // reaches maxval once rounded to the dtype.
    if (integer)
      v = std::floor(v);
    if (minval < maxval)
      v = std::min(v, top);
  }
  return Tensor::from_vector(values, shape, dtype);
}

Tensor ember::random_normal(const Shape &shape, uint64_t seed, double mean, double stddev,
                            DType dtype) {
  if (!isFloatingPoint(dtype))
    throw OpError("random_normal: dtype " + std::string(dtypeName(dtype)) +
                  " is not a floating-point type (tf.random.normal takes float16, bfloat16, "
                  "float32 and float64)");
  std::mt19937_64 engine(seed);
  auto uniform = [&] { return (static_cast<double>(engine() >> 11) + 0.5) * 0x1p-53; };
  if (!shape.is_fully_defined())
    detail::throwUnknownDims(shape);
  std::vector<double> values(static_cast<size_t>(shape.numel()));
  // Box-Muller, written out so results do not depend on the standard library.
  for (size_t i = 0; i < values.size(); i += 2) {
    double radius = std::sqrt(-2.0 * std::log(uniform()));
    double angle = 2.0 * M_PI * uniform();
    values[i] = mean + stddev * radius * std::cos(angle);
    if (i + 1 < values.size())
      values[i + 1] = mean + stddev * radius * std::sin(angle);
  }
  return Tensor::from_vector(values, shape, dtype);
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

std::string Tensor::values_string() const {
  Tensor host = cpu();
  return formatValues(host.data(), dtype(), shape().data(), rank());
}

std::string Tensor::to_string() const {
  if (!impl_)
    return "ember.Tensor(<undefined>)";
  if (impl_->tracer)
    return "ember.Tensor(<symbolic>, shape=" + shape().str() +
           ", dtype=" + std::string(dtypeName(dtype())) + ")";
  std::string values = values_string();
  bool multiline = values.find('\n') != std::string::npos;
  return "ember.Tensor(" + std::string(multiline ? "\n" : "") + values +
         ", shape=" + shape().str() + ", dtype=" + std::string(dtypeName(dtype())) + ")";
}

std::ostream &ember::operator<<(std::ostream &os, const Tensor &tensor) {
  return os << tensor.to_string();
}
