//===- Ops.cpp - ember's eager operations ----------------------------------===//
//
// Each op checks what only the front end can know (dtype agreement before
// broadcasting, numpy broadcasting itself, index ranges of concrete indices),
// then dispatches the one ember op; everything else is checked by the op's own
// verifier, so eager and compiled code report the same messages.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"
#include "OpTable.h"
#include "TensorImpl.h"
#include "Tracer.h"

#include "ember/Frontend/Ops.h"

#include <algorithm>
#include <charconv>
#include <vector>

using namespace ember;
using namespace ember::detail;
using trace::AttrKind;
using trace::AttrSchema;

namespace {

/// numpy's broadcast of two shapes, or an error naming both.
Shape broadcastShapes(std::string_view opName, const Shape &a, const Shape &b,
                      const SourceLoc &loc) {
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out;
  for (int d = 0; d < rank; ++d) {
    int da = d - (rank - a.rank()), db = d - (rank - b.rank());
    int64_t x = da >= 0 ? a[da] : 1, y = db >= 0 ? b[db] : 1;
    // A None dim (traced with an input signature) meeting a size is that
    // size, which the call checks it is (a None dim is not broadcast).
    bool unknown = x == kNone || y == kNone;
    if (x != y && x != 1 && y != 1 && !unknown)
      throw_op_error(opName,
                     "cannot broadcast shapes " + a.str() + " and " + b.str() +
                         " (dims aligned at the right must be equal or 1)",
                     loc);
    out.push_back(x == 1 ? y : y == 1 ? x : x == kNone ? y : x);
  }
  return Shape::with_unknown_dims(out);
}

void checkSameDType(std::string_view opName, const Tensor &a, const Tensor &b,
                    const SourceLoc &loc) {
  if (a.dtype() != b.dtype())
    throw_op_error(opName,
                   "operand dtypes differ: " + describe(a) + " and " + describe(b) +
                       " (convert one with ember::cast)",
                   loc);
}

Tensor binary(const OpDef &op, const Tensor &a, const Tensor &b, const SourceLoc &loc,
              std::span<const int64_t> attrs = {}) {
  checkSameDType(op.name, a, b, loc);
  if (a.shape() == b.shape())
    return dispatch(op, attrs, {&a, &b}, nullptr, loc);
  return dispatchBroadcast(op, attrs, {&a, &b}, broadcastShapes(op.name, a.shape(), b.shape(), loc),
                           loc);
}

Tensor compare(ComparisonDirection direction, const Tensor &a, const Tensor &b, const SourceLoc &loc) {
  int64_t words[] = {direction};
  return binary(kCompare, a, b, loc, words);
}

Tensor unary(const OpDef &op, const Tensor &x, const SourceLoc &loc) {
  return dispatch(op, {}, {&x}, nullptr, loc);
}

/// Normalizes a possibly negative axis; errors name the op and the shape.
int64_t normalizeAxis(std::string_view opName, int64_t axis, int rank, const Tensor &x,
                      const SourceLoc &loc) {
  if (axis < -rank || axis >= rank)
    throw_op_error(opName, "axis " + std::to_string(axis) + " is out of range for " + describe(x),
                   loc);
  return axis < 0 ? axis + rank : axis;
}

/// Appends an Int64Array attribute: its count, then its values.
Tensor reduce(const OpDef &op, const Tensor &x, const std::vector<int64_t> &axes, bool keepdims,
              const SourceLoc &loc) {
  std::vector<int64_t> normalized;
  if (axes.empty())
    for (int d = 0; d < x.rank(); ++d)
      normalized.push_back(d);
  for (int64_t axis : axes)
    normalized.push_back(normalizeAxis(op.name, axis, x.rank(), x, loc));
  std::vector<int64_t> words;
  pushArray(words, normalized);
  words.push_back(keepdims);
  return dispatch(op, words, {&x}, nullptr, loc);
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

#define EMBER_DEFINE_BINARY(FN, DEF)                                                          \
  Tensor ember::FN(const Tensor &a, const Tensor &b, SourceLoc loc) {                         \
    return binary(DEF, a, b, loc);                                                            \
  }
EMBER_DEFINE_BINARY(add, kAdd)
EMBER_DEFINE_BINARY(sub, kSub)
EMBER_DEFINE_BINARY(mul, kMul)
EMBER_DEFINE_BINARY(div, kDiv)
EMBER_DEFINE_BINARY(floordiv, kFloorDiv)
EMBER_DEFINE_BINARY(mod, kMod)
EMBER_DEFINE_BINARY(pow, kPow)
EMBER_DEFINE_BINARY(maximum, kMaximum)
EMBER_DEFINE_BINARY(minimum, kMinimum)
EMBER_DEFINE_BINARY(logical_and, kAnd)
EMBER_DEFINE_BINARY(logical_or, kOr)
#undef EMBER_DEFINE_BINARY

Tensor ember::truediv(const Tensor &a, const Tensor &b, SourceLoc loc) {
  checkSameDType(kDiv.name, a, b, loc);
  // TensorFlow's truediv: integers divide as float64 (exact for int32).
  if (isInteger(a.dtype()))
    return div(cast(a, DType::Float64, loc), cast(b, DType::Float64, loc), loc);
  return div(a, b, loc);
}

#define EMBER_DEFINE_COMPARE(FN, DIRECTION)                                                   \
  Tensor ember::FN(const Tensor &a, const Tensor &b, SourceLoc loc) {                         \
    return compare(DIRECTION, a, b, loc);                                                     \
  }
EMBER_DEFINE_COMPARE(equal, kEq)
EMBER_DEFINE_COMPARE(not_equal, kNe)
EMBER_DEFINE_COMPARE(less, kLt)
EMBER_DEFINE_COMPARE(less_equal, kLe)
EMBER_DEFINE_COMPARE(greater, kGt)
EMBER_DEFINE_COMPARE(greater_equal, kGe)
#undef EMBER_DEFINE_COMPARE

#define EMBER_DEFINE_UNARY(FN, DEF)                                                           \
  Tensor ember::FN(const Tensor &x, SourceLoc loc) { return unary(DEF, x, loc); }
EMBER_DEFINE_UNARY(logical_not, kNot)
EMBER_DEFINE_UNARY(neg, kNeg)
EMBER_DEFINE_UNARY(abs, kAbs)
EMBER_DEFINE_UNARY(exp, kExp)
EMBER_DEFINE_UNARY(log, kLog)
EMBER_DEFINE_UNARY(log1p, kLog1p)
EMBER_DEFINE_UNARY(erf, kErf)
EMBER_DEFINE_UNARY(sqrt, kSqrt)
EMBER_DEFINE_UNARY(rsqrt, kRsqrt)
EMBER_DEFINE_UNARY(tanh, kTanh)
EMBER_DEFINE_UNARY(sigmoid, kSigmoid)
EMBER_DEFINE_UNARY(relu, kRelu)
EMBER_DEFINE_UNARY(square, kSquare)
EMBER_DEFINE_UNARY(sign, kSign)
EMBER_DEFINE_UNARY(sin, kSin)
EMBER_DEFINE_UNARY(cos, kCos)
EMBER_DEFINE_UNARY(asin, kAsin)
EMBER_DEFINE_UNARY(acos, kAcos)
EMBER_DEFINE_UNARY(atan, kAtan)
#undef EMBER_DEFINE_UNARY

Tensor ember::where(const Tensor &condition, const Tensor &a, const Tensor &b, SourceLoc loc) {
  if (condition.dtype() != DType::Bool)
    throw_op_error(kSelect.name, "condition must be a bool tensor, got " + describe(condition),
                   loc);
  checkSameDType(kSelect.name, a, b, loc);
  Shape shape = broadcastShapes(kSelect.name, condition.shape(),
                                broadcastShapes(kSelect.name, a.shape(), b.shape(), loc), loc);
  if (condition.shape() == shape && a.shape() == shape && b.shape() == shape)
    return dispatch(kSelect, {}, {&condition, &a, &b}, nullptr, loc);
  return dispatchBroadcast(kSelect, {}, {&condition, &a, &b}, shape, loc);
}

Tensor ember::cast(const Tensor &x, DType dtype, SourceLoc loc) {
  if (x.dtype() == dtype)
    return x; // tensors are immutable: sharing is a copy
  trace::TensorSpec result = specOf(dtype, x.shape());
  return dispatch(kCast, {}, {&x}, &result, loc);
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Tensor ember::broadcast_to(const Tensor &x, const Shape &shape, SourceLoc loc) {
  const Tensor *sources[] = {&x};
  if (!shape.is_fully_defined())
    if (Tracer *tracer = currentTracer()) // None dims: sized by x's own
      return tracer->addBroadcast(kBroadcastTo, x, shape, std::span<const Tensor *const>(sources),
                                  loc);
  trace::TensorSpec result = specOf(x.dtype(), shape);
  return dispatch(kBroadcastTo, {}, {&x}, &result, loc);
}

/// The tracer of the function whose None dims `x` has; OpError naming `op`
/// when there is none (a symbolic tensor kept after its trace ended).
static Tracer &tracerOfNoneDims(const OpDef &op, const Tensor &x, const SourceLoc &loc) {
  Tracer *tracer = currentTracer();
  if (!tracer)
    throw_op_error(op.name,
                   describe(x) + " has None dims but no function is being traced: a symbolic "
                                 "tensor is used after its trace ended",
                   loc);
  return *tracer;
}

/// reshape of a tensor with None dims (traced with an input signature):
/// the target's -1 becomes a None dim, their product over the target's
/// known dims (Flatten on a None batch, Dense on a None batch of None
/// steps).
static Tensor reshapeUnknown(const Tensor &x, std::vector<int64_t> dims, const SourceLoc &loc) {
  // The target's None dim: a -1, or kNone (x.shape()[0] of a None batch).
  auto isNone = [](int64_t d) { return d == -1 || d == kNone; };
  if (std::count_if(dims.begin(), dims.end(), isNone) != 1)
    throw_op_error(kReshape.name,
                   "cannot reshape " + describe(x) + " to " + Shape::str(dims) +
                       ": a tensor with None dims reshapes with one -1 (or None) in the target "
                       "for them; to give several None dims their sizes, pass the tensor whose "
                       "dims they are: reshape(x, dims, like)",
                   loc);
  std::replace_if(dims.begin(), dims.end(), isNone, kNone);
  trace::TensorSpec result = specOf(x.dtype(), Shape::with_unknown_dims(dims));
  return dispatch(kReshape, {}, {&x}, &result, loc);
}

Tensor ember::reshape(const Tensor &x, const std::vector<int64_t> &requested, SourceLoc loc) {
  if (!x.shape().is_fully_defined())
    return reshapeUnknown(x, requested, loc);
  std::vector<int64_t> dims = requested;
  int64_t known = 1;
  auto inferred = dims.end();
  for (auto it = dims.begin(); it != dims.end(); ++it) {
    if (*it == -1 && inferred == dims.end())
      inferred = it;
    else if (*it < 0)
      throw_op_error(
          kReshape.name,
          "invalid target shape: dim " + std::to_string(*it) + " (only one dim may be -1)", loc);
    else
      known *= *it;
  }
  if (inferred != dims.end()) {
    if (known == 0 || x.numel() % known != 0)
      throw_op_error(kReshape.name,
                     "cannot reshape " + describe(x) + " (" + std::to_string(x.numel()) +
                         " elements) so that the -1 dim is whole",
                     loc);
    *inferred = x.numel() / known;
  }
  trace::TensorSpec result = specOf(x.dtype(), Shape(std::span<const int64_t>(dims)));
  return dispatch(kReshape, {}, {&x}, &result, loc);
}

Tensor ember::reshape(const Tensor &x, const std::vector<int64_t> &requested, const Tensor &like,
                      SourceLoc loc) {
  std::vector<int64_t> dims = requested;
  bool runTime = false; // a dim sized when the traced function runs
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == kNone && static_cast<int>(d) >= like.rank())
      throw_op_error(kReshape.name,
                     "dim " + std::to_string(d) + " of the target " + Shape::str(requested) +
                         " is None, and " + describe(like) + " has no dim " + std::to_string(d) +
                         " to give its size",
                     loc);
    if (dims[d] == kNone) {
      dims[d] = like.shape()[static_cast<int>(d)];
      runTime = runTime || dims[d] == kNone;
    } else if (dims[d] < 0) {
      throw_op_error(kReshape.name,
                     "invalid target shape " + Shape::str(requested) +
                         ": with a tensor to size them, a target's dims are sizes or None",
                     loc);
    }
  }
  if (!runTime && x.shape().is_fully_defined())
    return reshape(x, dims, loc);
  Shape shape = Shape::with_unknown_dims(dims); // (x's None dims: counts checked at the call)
  const Tensor *inputs[] = {&x};
  return tracerOfNoneDims(kReshape, runTime ? like : x, loc)
      .addSizedLike(kReshape, {}, inputs, shape, x.dtype(), like, loc);
}

Tensor ember::transpose(const Tensor &x, const std::vector<int64_t> &perm, SourceLoc loc) {
  std::vector<int64_t> permutation;
  if (perm.empty())
    for (int d = x.rank() - 1; d >= 0; --d)
      permutation.push_back(d);
  for (int64_t p : perm)
    permutation.push_back(p < 0 ? p + x.rank() : p);
  std::vector<int64_t> words;
  pushArray(words, permutation);
  return dispatch(kTranspose, words, {&x}, nullptr, loc);
}

namespace {
/// Python's slice.indices(size): the first index and the element count of
/// x[start:stop:step] along a dim of `size` (kNone for an omitted bound).
std::pair<int64_t, int64_t> sliceIndices(int64_t start, int64_t stop, int64_t step,
                                         int64_t size) {
  int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? size : size - 1;
  auto bound = [&](int64_t value, int64_t omitted) {
    if (value == kNone)
      return omitted;
    if (value < 0)
      return std::max(value + size, lower);
    return std::min(value, upper);
  };
  int64_t first = bound(start, step > 0 ? lower : upper);
  int64_t last = bound(stop, step > 0 ? upper : lower);
  int64_t count = step > 0 ? (last - first + step - 1) / step : (first - last - step - 1) / -step;
  return {first, std::max<int64_t>(count, 0)};
}

/// The bounds of a slice of x's None dim `d` as ember.slice takes them: a
/// negative one counts from the end, kNone (ember.slice's `?`) is the end.
/// The size is known at the call only, so bounds are not clamped (the call
/// checks that the size holds them); a start from the end needs a limit
/// from the end, and a slice to a limit from the end step 1. Step -1 gives
/// the ascending bounds of the same elements (the caller reverses them);
/// other negative steps are refused.
std::pair<int64_t, int64_t> noneDimBounds(const Tensor &x, int d, int64_t start, int64_t limit,
                                          int64_t step, const SourceLoc &loc) {
  auto refuse = [&](const std::string &why) {
    throw_op_error(kSlice.name,
                   "dim " + std::to_string(d) + " of " + describe(x) +
                       " is None (its size is known at the call only): " + why,
                   loc);
  };
  if (step < -1)
    refuse("a negative step other than -1 takes elements that depend on the size (its "
           "parity, ...): not yet");
  if (step == -1) { // x[a:b:-1] takes x[b+1:a+1] (Python's bounds), reversed
    if (limit == -1)
      return {0, 0}; // stops at the last element: empty for any size
    int64_t first = limit == kNone ? 0 : limit + 1;
    int64_t last = start == kNone || start == -1 ? kNone : start + 1;
    if (first < 0 && last >= 0)
      refuse("a step of -1 from a start counted from the front (" + std::to_string(start) +
             ") needs a stop counted from the front too, not " + std::to_string(limit));
    return noneDimBounds(x, d, first, last, 1, loc);
  }
  if (start == kNone)
    start = 0;
  bool startFromEnd = start < 0, limitFromEnd = limit < 0; // kNone: the end
  if (startFromEnd && !limitFromEnd)
    refuse("a start counted from the end (" + std::to_string(start) +
           ") needs a limit counted from the end (negative or None)");
  if (!startFromEnd && limitFromEnd && step != 1)
    refuse("a slice from a start to a limit counted from the end (or None) takes step 1 only, "
           "not " +
           std::to_string(step));
  if (startFromEnd == limitFromEnd && limit != kNone && limit < start)
    return {0, 0}; // empty for any size, as in Python
  return {start, limit};
}
} // namespace

Tensor ember::slice(const Tensor &x, const std::vector<int64_t> &start,
                    const std::vector<int64_t> &limit, const std::vector<int64_t> &stride,
                    SourceLoc loc) {
  int rank = x.rank();
  if (start.size() != limit.size() || (!stride.empty() && stride.size() != start.size()) ||
      start.size() > static_cast<size_t>(rank))
    throw_op_error(kSlice.name,
                   "start, limit and stride need the same number of entries, at most the rank of " +
                       describe(x) + "; got " + std::to_string(start.size()) + ", " +
                       std::to_string(limit.size()) + " and " + std::to_string(stride.size()),
                   loc);
  // Python's semantics, resolved here from the static shape (so eager and
  // traced code agree): negative bounds count from the end, bounds out of
  // range clamp, kNone is an omitted bound. Positive strides are one
  // ember.slice; each dim with a negative stride is then a gather of its
  // indices in descending order.
  std::vector<int64_t> starts, limits, strides;
  std::vector<int> reversed; // dims taken with a negative step: gathered backwards after
  for (int d = 0; d < rank; ++d) {
    int64_t size = x.shape()[d];
    if (static_cast<size_t>(d) >= start.size()) {
      starts.push_back(0), limits.push_back(size), strides.push_back(1);
      continue;
    }
    int64_t step = stride.empty() ? 1 : stride[d];
    if (step == 0)
      throw_op_error(kSlice.name, "dim " + std::to_string(d) + ": slice step cannot be zero", loc);
    if (size == kNone) { // known at the call only: see noneDimBounds
      auto [first, last] = noneDimBounds(x, d, start[d], limit[d], step, loc);
      starts.push_back(first), limits.push_back(last), strides.push_back(step > 0 ? step : 1);
      if (step < 0 && !(first == 0 && last == 0)) // (unless empty for any size)
        reversed.push_back(d);
      continue;
    }
    auto [first, count] = sliceIndices(start[d], limit[d], step, size);
    if (step > 0 || count == 0) {
      int64_t begin = count == 0 ? 0 : first;
      starts.push_back(begin);
      limits.push_back(count == 0 ? 0 : begin + (count - 1) * step + 1);
      strides.push_back(step > 0 ? step : 1);
      continue;
    }
    // Only the elements used, in ascending order with a positive stride.
    int64_t lowest = first + (count - 1) * step;
    starts.push_back(lowest), limits.push_back(first + 1), strides.push_back(-step);
    reversed.push_back(d);
  }
  Tensor out = x;
  bool whole = true;
  for (int d = 0; d < rank; ++d)
    whole = whole && starts[d] == 0 && limits[d] == x.shape()[d] && strides[d] == 1;
  if (!whole) {
    std::vector<int64_t> words;
    pushArray(words, starts);
    pushArray(words, limits);
    pushArray(words, strides);
    out = dispatch(kSlice, words, {&x}, nullptr, loc);
  }
  for (int d : reversed) {                                // m - 1, ..., 0 for the m elements taken
    if (int64_t taken = out.shape()[d]; taken != kNone) { // known (x[2:0:-1] of a None dim too)
      std::vector<int64_t> order(static_cast<size_t>(taken));
      for (int64_t i = 0; i < taken; ++i)
        order[static_cast<size_t>(i)] = taken - 1 - i;
      out = gather(out, Tensor::from_vector(order, Shape{taken}, DType::Int64), d, loc);
      continue;
    }
    int likeDims[] = {d};
    int64_t along[] = {0};
    Tensor ascending =
        tracerOfNoneDims(kSlice, out, loc)
            .addSizedLike(kIota, along, {}, Shape::with_unknown_dims(std::vector<int64_t>{kNone}),
                          DType::Int64, out, loc, likeDims);
    Tensor last = gather(shape(out, loc), Tensor(int64_t{d}, DType::Int64), 0, loc) -
                  Tensor(int64_t{1}, DType::Int64);
    out = gather(out, sub(last, ascending, loc), d, loc);
  }
  return out;
}

Tensor ember::concat(const std::vector<Tensor> &tensors, int64_t axis, SourceLoc loc) {
  if (tensors.empty())
    throw_op_error(kConcat.name, "needs at least one tensor", loc);
  int64_t words[] = {normalizeAxis(kConcat.name, axis, tensors.front().rank(), tensors.front(),
                                   loc)};
  std::vector<const Tensor *> inputs;
  for (const Tensor &t : tensors) {
    checkSameDType(kConcat.name, tensors.front(), t, loc);
    inputs.push_back(&t);
  }
  return dispatch(kConcat, words, std::span<const Tensor *const>(inputs), nullptr, loc);
}

/// Eagerly, an index of `indices` out of range for `x`'s axis `a` throws,
/// naming it. While tracing, nothing runs yet (and an unused gather is
/// pruned, as TensorFlow's non-strict graphs do): the compiled code reports
/// the fault (never touching memory out of bounds) and the call raises it.
static void checkIndices(const OpDef &op, const Tensor &x, const Tensor &indices, int64_t a,
                         SourceLoc loc) {
  if (indices.dtype() != DType::Int32 && indices.dtype() != DType::Int64)
    throw_op_error(op.name, "indices must be int32 or int64, got " + describe(indices), loc);
  if (currentTracer())
    return;
  // An out-of-range index is the user's error (numpy and TensorFlow raise
  // too). Read where they are (on the host; no copy for a CPU tensor): the
  // range first, a loop that vectorizes; the culprit only when it fails.
  int64_t size = x.shape()[static_cast<int>(a)];
  Tensor host = indices.cpu();
  auto check = [&](const auto *data) {
    int64_t n = host.numel(), low = 0, high = 0;
    for (int64_t k = 0; k < n; ++k) {
      low = std::min<int64_t>(low, data[k]);
      high = std::max<int64_t>(high, data[k]);
    }
    if (n == 0 || (low >= -size && high < size))
      return;
    for (int64_t k = 0; k < n; ++k)
      if (data[k] < -size || data[k] >= size)
        throw_op_error(op.name,
                       "index " + std::to_string(data[k]) + " is out of range for axis " +
                           std::to_string(a) + " of size " + std::to_string(size) + " (" +
                           describe(x) + ")",
                       loc);
  };
  if (host.dtype() == DType::Int32)
    check(static_cast<const int32_t *>(host.data()));
  else
    check(static_cast<const int64_t *>(host.data()));
}

Tensor ember::gather(const Tensor &x, const Tensor &indices, int64_t axis, SourceLoc loc) {
  int64_t a = normalizeAxis(kGather.name, axis, x.rank(), x, loc);
  checkIndices(kGather, x, indices, a, loc);
  int64_t words[] = {a};
  return dispatch(kGather, words, {&x, &indices}, nullptr, loc);
}

/// ember.scatter in `mode`: the updates checked against gather's result
/// shape (`?` dims at the call), their dtype against x's.
static Tensor scatter(ScatterMode mode, const Tensor &x, const Tensor &indices,
                      const Tensor &updates, int64_t axis, SourceLoc loc) {
  int64_t a = normalizeAxis(kScatter.name, axis, x.rank(), x, loc);
  if (updates.dtype() != x.dtype())
    throw_op_error(kScatter.name,
                   "updates " + describe(updates) + " differ in dtype from " + describe(x), loc);
  std::vector<int64_t> expected; // kNone where x's or the indices' dim is
  for (int d = 0; d < static_cast<int>(a); ++d)
    expected.push_back(x.shape()[d]);
  for (int64_t size : indices.shape())
    expected.push_back(size);
  for (int d = static_cast<int>(a) + 1; d < x.rank(); ++d)
    expected.push_back(x.shape()[d]);
  bool fits = updates.rank() == static_cast<int>(expected.size());
  for (int d = 0; fits && d < updates.rank(); ++d)
    fits = expected[d] == kNone || updates.shape()[d] == kNone || expected[d] == updates.shape()[d];
  if (!fits)
    throw_op_error(kScatter.name,
                   "updates " + describe(updates) + " must have the shape " + Shape::str(expected) +
                       " (x " + describe(x) + " with the indices " + describe(indices) +
                       " in place of axis " + std::to_string(a) + ")",
                   loc);
  checkIndices(kScatter, x, indices, a, loc);
  int64_t words[] = {mode, a};
  return dispatch(kScatter, words, {&x, &indices, &updates}, nullptr, loc);
}

#define EMBER_DEFINE_SCATTER(NAME, MODE)                                                           \
  Tensor ember::NAME(const Tensor &x, const Tensor &indices, const Tensor &updates, int64_t axis,  \
                     SourceLoc loc) {                                                              \
    return scatter(MODE, x, indices, updates, axis, loc);                                          \
  }
EMBER_DEFINE_SCATTER(scatter_update, kScatterUpdate)
EMBER_DEFINE_SCATTER(scatter_add, kScatterAdd)
EMBER_DEFINE_SCATTER(scatter_mul, kScatterMul)
EMBER_DEFINE_SCATTER(scatter_max, kScatterMax)
EMBER_DEFINE_SCATTER(scatter_min, kScatterMin)
#undef EMBER_DEFINE_SCATTER

//===----------------------------------------------------------------------===//
// Reductions and matmul
//===----------------------------------------------------------------------===//

#define EMBER_DEFINE_REDUCE(FN, DEF)                                                          \
  Tensor ember::FN(const Tensor &x, const std::vector<int64_t> &axes, bool keepdims,          \
                   SourceLoc loc) {                                                           \
    return reduce(DEF, x, axes, keepdims, loc);                                               \
  }
EMBER_DEFINE_REDUCE(reduce_sum, kReduceSum)
EMBER_DEFINE_REDUCE(reduce_max, kReduceMax)
EMBER_DEFINE_REDUCE(reduce_min, kReduceMin)
EMBER_DEFINE_REDUCE(reduce_prod, kReduceProd)
#undef EMBER_DEFINE_REDUCE

Tensor ember::reduce_mean(const Tensor &x, const std::vector<int64_t> &axes, bool keepdims,
                          SourceLoc loc) {
  if (!isInteger(x.dtype()))
    return reduce(kReduceMean, x, axes, keepdims, loc);
  // TensorFlow's integer mean: the sum divided by the count, truncating
  // (ember.reduce_mean itself is for floats).
  Tensor sum = reduce(kReduceSum, x, axes, keepdims, loc);
  int64_t count = 1;
  std::vector<int64_t> reducedDims;
  for (int d = 0; d < x.rank(); ++d) {
    bool reduced = axes.empty();
    for (int64_t axis : axes)
      reduced = reduced || normalizeAxis(kReduceMean.name, axis, x.rank(), x, loc) == d;
    if (reduced)
      reducedDims.push_back(d);
    if (reduced && x.shape()[d] != kNone)
      count *= x.shape()[d];
  }
  // A None dim's count is read when the function runs (an empty one gives
  // what integer division by 0 gives: see ember.div).
  if (reducedDims.size() != 0 && !x.shape().is_fully_defined()) {
    Tensor indices = Tensor::from_vector(reducedDims, Shape{int64_t(reducedDims.size())});
    Tensor counts = reduce(kReduceProd, gather(shape(x, loc), indices, 0, loc), {}, false, loc);
    return div(sum, cast(counts, x.dtype(), loc), loc);
  }
  if (count == 0) // named here, not as the division it would be
    throw_op_error(kReduceMean.name,
                   "the integer mean of no elements (" + describe(x) +
                       ") divides by zero; cast to a floating-point type for NaN",
                   loc);
  return div(sum, Tensor(Scalar(count), x.dtype()), loc);
}

Tensor ember::argmax(const Tensor &x, int64_t axis, bool keepdims, SourceLoc loc) {
  int64_t a = normalizeAxis(kArgMax.name, axis, x.rank(), x, loc);
  if (x.shape()[static_cast<int>(a)] == 0)
    throw_op_error(kArgMax.name,
                   "axis " + std::to_string(a) + " of " + describe(x) +
                       " is empty: it has no maximum (TensorFlow raises too)",
                   loc);
  int64_t words[] = {a, keepdims};
  return dispatch(kArgMax, words, {&x}, nullptr, loc);
}

Tensor ember::shape(const Tensor &x, SourceLoc loc) {
  // Known sizes are values now; a None dim's is read when the function runs.
  if (x.shape().is_fully_defined() || !currentTracer())
    return Tensor::from_vector(x.shape().vec(), Shape{x.rank()});
  return dispatch(kShapeOf, {}, {&x}, nullptr, loc);
}

Tensor ember::iota_like(const Tensor &x, int64_t dimension, DType dtype, SourceLoc loc) {
  int64_t d = normalizeAxis(kIota.name, dimension, x.rank(), x, loc);
  if (dtype == DType::Bool)
    throw_op_error(kIota.name, "counts in numbers, not in bool", loc);
  if (currentTracer() || !x.shape().is_fully_defined()) {
    int64_t words[] = {d}; // one op, not a constant of x's size
    return tracerOfNoneDims(kIota, x, loc).addSizedLike(kIota, words, {}, x.shape(), dtype, x, loc);
  }
  // Eagerly: the index of flat element i along d is (i / inner) % size.
  int64_t inner = 1, size = x.shape()[static_cast<int>(d)];
  for (int k = static_cast<int>(d) + 1; k < x.rank(); ++k)
    inner *= x.shape()[k];
  std::vector<int64_t> values(static_cast<size_t>(x.numel()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<int64_t>(i) / inner % size;
  return Tensor::from_vector(values, x.shape(), dtype);
}

Tensor ember::matmul(const Tensor &a, const Tensor &b, SourceLoc loc) {
  checkSameDType(kMatmul.name, a, b, loc);
  return dispatch(kMatmul, {}, {&a, &b}, nullptr, loc);
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

namespace {
/// Python's repr of a double: "1.5", "2.0", "1e+20".
std::string floatText(double value) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, end);
  if (text.find_first_of(".en") == std::string::npos)
    text += ".0";
  return text;
}

/// The C++ number `value` as a 0-d tensor of `tensor`'s dtype. A floating-point
/// number never converts to an integer or bool tensor (not even 2.0):
/// TensorFlow refuses it too, where C++ would truncate silently.
Tensor scalarLike(std::string_view opName, Scalar value, const Tensor &tensor,
                  const SourceLoc &loc) {
  if (value.kind == Scalar::Float && !isFloatingPoint(tensor.dtype()))
    throw_op_error(opName,
                   "cannot convert the floating-point scalar " + floatText(value.f) + " to " +
                       std::string(dtypeName(tensor.dtype())) + " to combine it with an " +
                       describe(tensor) +
                       " (it would truncate; cast the tensor with "
                       "ember::cast or use an integer)",
                   loc);
  // Nor does an integer outside an int32 tensor's range (numpy and JAX raise
  // an OverflowError; C++ would wrap it).
  if (value.kind == Scalar::Int && tensor.dtype() == DType::Int32 &&
      (value.i < std::numeric_limits<int32_t>::min() || value.i > std::numeric_limits<int32_t>::max()))
    throw_op_error(opName,
                   "cannot convert the integer scalar " + std::to_string(value.i) +
                       " to int32 to combine it with an " + describe(tensor) +
                       " (it is out of int32's range; cast the tensor to int64 with ember::cast)",
                   loc);
  return Tensor(value, tensor.dtype());
}
} // namespace

#define EMBER_DEFINE_OPERATOR(OP, FN, NAME)                                                   \
  Tensor ember::operator OP(Located a, const Tensor &b) { return FN(a.tensor, b, a.loc); }    \
  Tensor ember::operator OP(Located a, Scalar b) {                                            \
    return FN(a.tensor, scalarLike(NAME, b, a.tensor, a.loc), a.loc);                         \
  }                                                                                           \
  Tensor ember::operator OP(Scalar a, Located b) {                                            \
    return FN(scalarLike(NAME, a, b.tensor, b.loc), b.tensor, b.loc);                         \
  }
EMBER_DEFINE_OPERATOR(+, add, kAdd.name)
EMBER_DEFINE_OPERATOR(-, sub, kSub.name)
EMBER_DEFINE_OPERATOR(*, mul, kMul.name)
EMBER_DEFINE_OPERATOR(/, truediv, kDiv.name)
EMBER_DEFINE_OPERATOR(%, mod, kMod.name)
EMBER_DEFINE_OPERATOR(==, equal, kCompare.name)
EMBER_DEFINE_OPERATOR(!=, not_equal, kCompare.name)
EMBER_DEFINE_OPERATOR(<, less, kCompare.name)
EMBER_DEFINE_OPERATOR(<=, less_equal, kCompare.name)
EMBER_DEFINE_OPERATOR(>, greater, kCompare.name)
EMBER_DEFINE_OPERATOR(>=, greater_equal, kCompare.name)
EMBER_DEFINE_OPERATOR(&, logical_and, kAnd.name)
EMBER_DEFINE_OPERATOR(|, logical_or, kOr.name)
#undef EMBER_DEFINE_OPERATOR

Tensor ember::where(const Tensor &condition, const Tensor &a, Scalar b, SourceLoc loc) {
  return where(condition, a, scalarLike(kSelect.name, b, a, loc), loc);
}

Tensor ember::where(const Tensor &condition, Scalar a, const Tensor &b, SourceLoc loc) {
  return where(condition, scalarLike(kSelect.name, a, b, loc), b, loc);
}

Tensor ember::operator-(Located x) { return neg(x.tensor, x.loc); }
Tensor ember::operator~(Located x) { return logical_not(x.tensor, x.loc); }
