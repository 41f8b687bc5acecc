//===- Operators.cpp - ONNX ops as ember ops --------------------------------===//
//
// One function per ONNX op (or family), each written from the ONNX operator
// specification for opsets 7 to 17, on ember's front-end ops: what runs is
// what a user of ember would have written by hand, traced and compiled the
// same way. Attributes an op reads are checked against what ember
// implements; any other value is refused by name (NodeContext).
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "ember/Frontend/NN.h"
#include "ember/Frontend/Ops.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>

using namespace ember;
using namespace ember::onnx;
using namespace ember::onnx::detail;

namespace {

using Results = std::vector<Tensor>;

/// A scalar tensor of `dtype` (broadcast against tensors of that dtype).
Tensor scalar(double value, DType dtype) { return Tensor(Scalar(value), dtype); }

bool isFloat(DType dtype) { return isFloatingPoint(dtype); }

/// An int64 scalar (an index, a size).
Tensor int64Scalar(int64_t value) { return Tensor(Scalar(value), DType::Int64); }

/// A zero of x's dtype, to broadcast against it.
Tensor zeros_like_scalar(const Tensor &x) { return Tensor(Scalar(0), x.dtype()); }

void requireFloat(NodeContext &node, const Tensor &x) {
  if (!isFloat(x.dtype()))
    node.fail("takes floating-point tensors, not " + describe(x));
}

/// x's mean over `axes` (kept as dims of size 1), x less that mean, and the
/// variance (the mean of the squared deviations): what the normalizations
/// share.
struct Moments {
  Tensor mean, centered, variance;
};
Moments momentsOf(const Tensor &x, const std::vector<int64_t> &axes) {
  Tensor mean = reduce_mean(x, axes, true);
  Tensor centered = sub(x, mean);
  return {mean, centered, reduce_mean(mul(centered, centered), axes, true)};
}

/// A dim of a tensor that must be known while compiling.
int64_t knownDim(NodeContext &node, const Tensor &x, int d) {
  int64_t size = x.shape()[d];
  if (size == kNone)
    node.fail("needs dim " + std::to_string(d) + " of " + describe(x) +
              " while compiling (a symbolic dim is not supported here yet)");
  return size;
}

/// `axis` (negative counts from the end) checked against `rank`.
int64_t normalizeAxis(NodeContext &node, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    node.fail("axis " + std::to_string(axis) + " is out of range for rank " +
              std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

/// x reversed along dim d (of known size).
Tensor reversedAlong(NodeContext &node, const Tensor &x, int d) {
  std::vector<int64_t> start(x.rank(), 0), limit(x.rank(), kNone), stride(x.rank(), 1);
  start[d] = knownDim(node, x, d) - 1;
  stride[d] = -1;
  return slice(x, start, limit, stride);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <Tensor (*F)(const Tensor &, const Tensor &, SourceLoc)> Results binary(NodeContext &node) {
  return {F(node.input(0), node.input(1), SourceLoc::current())};
}

template <Tensor (*F)(const Tensor &, SourceLoc)> Results unary(NodeContext &node) {
  return {F(node.input(0), SourceLoc::current())};
}

template <Tensor (*F)(const Tensor &, SourceLoc)> Results floatUnary(NodeContext &node) {
  requireFloat(node, node.input(0));
  return {F(node.input(0), SourceLoc::current())};
}

/// Sum, Mean, Max, Min: any number of inputs, broadcast together.
template <Tensor (*F)(const Tensor &, const Tensor &, SourceLoc), bool mean = false>
Results variadic(NodeContext &node) {
  Tensor result = node.input(0);
  for (int i = 1; i < node.inputCount(); ++i)
    result = F(result, node.input(i), SourceLoc::current());
  if (mean) {
    requireFloat(node, result);
    result = div(result, scalar(node.inputCount(), result.dtype()));
  }
  return {result};
}

Results identity(NodeContext &node) { return {node.input(0)}; }

Results divide(NodeContext &node) { return {div(node.input(0), node.input(1))}; }

Results power(NodeContext &node) {
  Tensor x = node.input(0), y = node.input(1);
  if (!isFloat(x.dtype()) && isFloat(y.dtype())) // opset 12+: an integer base, a float exponent:
    return {cast(pow(cast(x, DType::Float64), cast(y, DType::Float64)), x.dtype())}; // truncated
  if (y.dtype() != x.dtype()) // opset 12+: the exponent may be of another type
    y = cast(y, x.dtype());
  // Integers: exact (wrapping as numpy's); a negative exponent gives 0 but for 1 and -1.
  return {pow(x, y)};
}

Results modulo(NodeContext &node) {
  Tensor a = node.input(0), b = node.input(1);
  if (node.attrInt("fmod", 0) == 0) { // Python's %: the sign of the divisor
    if (isFloat(a.dtype()))
      node.fail("with fmod = 0 takes integers, not " + describe(a));
    return {mod(a, b)};
  }
  // C's fmod: the sign of the dividend. Exact for integers as
  // a - b * (a / b). Floats: a / b rounds (fmod(1e10f, 3) would be 0, not
  // 1), but the floored remainder of magnitudes is the exact truncated one
  // (ember's float mod is frem, corrected only where the signs differ), its
  // sign then a's: fmod(-7, 3) = -(7 mod 3) = -1; a zero divisor gives NaN.
  if (isFloat(a.dtype())) {
    Tensor magnitude = mod(abs(a), abs(b));
    return {where(less(a, scalar(0, a.dtype())), neg(magnitude), magnitude)};
  }
  return {sub(a, mul(b, div(a, b)))};
}

Results reciprocal(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  return {div(scalar(1, x.dtype()), x)};
}

Results logicalNot(NodeContext &node) { return {logical_not(node.input(0))}; }
Results logicalXor(NodeContext &node) { return {not_equal(node.input(0), node.input(1))}; }

Results select(NodeContext &node) {
  return {where(node.input(0), node.input(1), node.input(2))};
}

Results leakyRelu(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  double alpha = node.attrFloat("alpha", 0.01f);
  return {where(less(x, scalar(0, x.dtype())), mul(x, scalar(alpha, x.dtype())), x)};
}

Results parametricRelu(NodeContext &node) {
  const Tensor &x = node.input(0), &slope = node.input(1);
  requireFloat(node, x);
  return {where(less(x, scalar(0, x.dtype())), mul(x, slope), x)};
}

Results elu(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  double alpha = node.attrFloat("alpha", 1.f);
  Tensor negative = mul(sub(exp(x), scalar(1, x.dtype())), scalar(alpha, x.dtype()));
  return {where(less(x, scalar(0, x.dtype())), negative, x)};
}

Results selu(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  double alpha = node.attrFloat("alpha", 1.67326319217681884765625f);
  double gamma = node.attrFloat("gamma", 1.05070102214813232421875f);
  Tensor negative = mul(sub(exp(x), scalar(1, x.dtype())), scalar(alpha, x.dtype()));
  Tensor inner = where(less_equal(x, scalar(0, x.dtype())), negative, x);
  return {mul(inner, scalar(gamma, x.dtype()))};
}

Results hardSigmoid(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  double alpha = node.attrFloat("alpha", 0.2f), beta = node.attrFloat("beta", 0.5f);
  Tensor linear = add(mul(x, scalar(alpha, x.dtype())), scalar(beta, x.dtype()));
  return {maximum(minimum(linear, scalar(1, x.dtype())), scalar(0, x.dtype()))};
}

Results hardSwish(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  Tensor gate = add(mul(x, scalar(1.0 / 6, x.dtype())), scalar(0.5, x.dtype()));
  return {mul(x, maximum(minimum(gate, scalar(1, x.dtype())), scalar(0, x.dtype())))};
}

Results softplus(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  // log(1 + e^x) = x + log(1 + e^-x): no overflow for large x.
  Tensor zero = scalar(0, x.dtype());
  return {where(greater(x, zero), add(x, log1p(exp(neg(x)))), log1p(exp(x)))};
}

Results softsign(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  return {div(x, add(abs(x), scalar(1, x.dtype())))};
}

Results clip(NodeContext &node) {
  Tensor x = node.input(0);
  if (node.opset() < 11) {
    float lowest = node.attrFloat("min", -std::numeric_limits<float>::max());
    float highest = node.attrFloat("max", std::numeric_limits<float>::max());
    requireFloat(node, x);
    return {minimum(maximum(x, scalar(lowest, x.dtype())), scalar(highest, x.dtype()))};
  }
  if (node.has(1))
    x = maximum(x, node.input(1));
  if (node.has(2))
    x = minimum(x, node.input(2));
  return {x};
}

Results castTo(NodeContext &node) {
  int64_t to = node.attrInt("to", 0);
  std::optional<DType> dtype = dtypeOfElementType(static_cast<int32_t>(to));
  if (!dtype)
    node.unsupported("to", elementTypeName(static_cast<int32_t>(to)));
  return {cast(node.input(0), *dtype)};
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// x reshaped to `shape`, whose sizes may be unknown while compiling
/// (kNone: a size computed from a `?` dim) or -1 (inferred): one of those
/// is inferred; several must each be x's own `?` dim at the same position
/// (`own[d]`: shape[d] is x's dim d, as a Reshape's 0 says).
Tensor reshapeWithUnknowns(NodeContext &node, const Tensor &x, std::vector<int64_t> shape,
                           const std::vector<bool> &own = {}) {
  int64_t unknown = std::count(shape.begin(), shape.end(), kNone) +
                    std::count(shape.begin(), shape.end(), int64_t(-1));
  if (unknown <= 1) {
    std::replace(shape.begin(), shape.end(), kNone, int64_t(-1));
    return reshape(x, shape);
  }
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == -1 || (shape[d] == kNone && !(d < own.size() && own[d])))
      node.fail("cannot reshape " + describe(x) + " to sizes of which " +
                std::to_string(unknown) + " are known only when the model runs");
  return reshape(x, shape, x); // each unknown size is x's at its position
}

Results reshapeTo(NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> shape = node.shapeInts(1);
  std::vector<bool> own(shape.size(), false);
  bool allowZero = node.attrInt("allowzero", 0) != 0;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == 0 && !allowZero) { // 0 copies the input's dim
      if (static_cast<int>(d) >= x.rank())
        node.fail("shape[" + std::to_string(d) + "] = 0 copies a dim the input has not");
      shape[d] = x.shape()[static_cast<int>(d)]; // kNone for a `?` dim
      own[d] = true;
    }
  return {reshapeWithUnknowns(node, x, shape, own)};
}

Results flatten(NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t axis = node.attrInt("axis", 1);
  if (axis < 0)
    axis += x.rank();
  if (axis < 0 || axis > x.rank())
    node.fail("axis " + std::to_string(axis) + " is out of range for " + describe(x));
  // The side whose dims are all known gives its size, the other is -1 (so
  // that a symbolic batch before the axis is inferred at run time).
  bool innerKnown = true;
  int64_t inner = 1;
  for (int d = static_cast<int>(axis); d < x.rank(); ++d) {
    innerKnown &= x.shape()[d] != kNone;
    inner *= innerKnown ? x.shape()[d] : 1;
  }
  if (innerKnown && axis > 0)
    return {reshape(x, {-1, inner})};
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d)
    outer *= knownDim(node, x, d);
  return {reshape(x, {outer, -1})};
}

/// x transposed by `permutation`. A tensor known while importing (an
/// initializer: a weight) is permuted here, on the host, so that a weight's
/// change of layout costs the compiled code nothing and the compiler never
/// folds it (slowly, element by element, for millions of elements).
Tensor permuted(const Tensor &x, const std::vector<int64_t> &permutation) {
  int rank = x.rank();
  std::vector<bool> seen(rank, false);
  bool valid = static_cast<int>(permutation.size()) == rank;
  for (int64_t p : permutation) {
    valid = valid && p >= 0 && p < rank && !seen[p];
    if (valid)
      seen[p] = true;
  }
  if (x.is_symbolic() || !x.device().is_cpu() || !valid)
    return transpose(x, permutation); // which names what is wrong
  std::vector<int64_t> inStrides(rank, 1), shape(rank);
  for (int d = rank - 1; d > 0; --d)
    inStrides[d - 1] = inStrides[d] * x.shape()[d];
  for (int d = 0; d < rank; ++d)
    shape[d] = x.shape()[static_cast<int>(permutation[d])];
  Tensor out = Tensor::empty(Shape(std::span<const int64_t>(shape)), x.dtype());
  size_t size = dtypeSize(x.dtype());
  const char *in = static_cast<const char *>(x.data());
  char *to = static_cast<char *>(out.data());
  std::vector<int64_t> at(rank, 0); // the output element's index
  for (int64_t k = 0, n = out.numel(); k < n; ++k) {
    int64_t from = 0;
    for (int d = 0; d < rank; ++d)
      from += at[d] * inStrides[permutation[d]];
    std::memcpy(to + k * size, in + from * size, size);
    for (int d = rank - 1; d >= 0 && ++at[d] == shape[d]; --d)
      at[d] = 0;
  }
  return out;
}

/// Transpose (the dims reversed without perm).
Results transposeBy(NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> reversed(x.rank());
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  return {permuted(x, node.attrInts("perm", reversed))};
}

/// Squeeze's and Unsqueeze's axes: an attribute before opset 13, an input from it.
std::vector<int64_t> axesOf(NodeContext &node, bool &given) {
  given = true;
  if (node.opset() >= 13) {
    if (node.has(1))
      return node.constantInts(1);
    given = false;
    return {};
  }
  given = node.hasAttribute("axes");
  return node.attrInts("axes");
}

Results squeeze(NodeContext &node) {
  const Tensor &x = node.input(0);
  bool given;
  std::vector<int64_t> axes = axesOf(node, given);
  std::vector<bool> drop(static_cast<size_t>(x.rank()), false);
  if (!given) {
    for (int d = 0; d < x.rank(); ++d)
      drop[d] = knownDim(node, x, d) == 1;
  }
  for (int64_t axis : axes) {
    int64_t d = normalizeAxis(node, axis, x.rank());
    if (knownDim(node, x, static_cast<int>(d)) != 1)
      node.fail("cannot squeeze dim " + std::to_string(d) + " of " + describe(x));
    drop[d] = true;
  }
  std::vector<int64_t> shape;
  for (int d = 0; d < x.rank(); ++d)
    if (!drop[d])
      shape.push_back(x.shape()[d]);
  return {reshapeWithUnknowns(node, x, shape)};
}

Results unsqueeze(NodeContext &node) {
  const Tensor &x = node.input(0);
  bool given;
  std::vector<int64_t> axes = axesOf(node, given);
  int64_t rank = x.rank() + static_cast<int64_t>(axes.size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) {
    int64_t d = normalizeAxis(node, axis, rank);
    if (inserted[d])
      node.fail("axis " + std::to_string(axis) + " is given twice");
    inserted[d] = true;
  }
  std::vector<int64_t> shape;
  for (int64_t d = 0, from = 0; d < rank; ++d)
    shape.push_back(inserted[d] ? 1 : x.shape()[static_cast<int>(from++)]);
  return {reshapeWithUnknowns(node, x, shape)};
}

Results concatenate(NodeContext &node) {
  std::vector<Tensor> inputs;
  for (int i = 0; i < node.inputCount(); ++i)
    inputs.push_back(node.input(i));
  if (!node.hasAttribute("axis"))
    node.fail("attribute axis is missing");
  return {concat(inputs, node.attrInt("axis", 0))};
}

Results sliceOf(NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (node.opset() < 10) {
    starts = node.attrInts("starts");
    ends = node.attrInts("ends");
    axes = node.attrInts("axes");
  } else {
    starts = node.constantInts(1);
    ends = node.constantInts(2);
    if (node.has(3))
      axes = node.constantInts(3);
    if (node.has(4))
      steps = node.constantInts(4);
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(static_cast<int64_t>(i));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    node.fail("starts, ends, axes and steps must have one value per sliced axis");
  int rank = x.rank();
  std::vector<int64_t> start(rank, 0), limit(rank, kNone), stride(rank, 1);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t d = normalizeAxis(node, axes[i], rank);
    if (seen[d])
      node.fail("axis " + std::to_string(axes[i]) + " is sliced twice");
    seen[d] = true;
    int64_t size = knownDim(node, x, static_cast<int>(d)), step = steps[i];
    if (step == 0)
      node.fail("a step of 0");
    // ONNX's clamping, then bounds that mean the same in Python's terms.
    int64_t s = starts[i], e = ends[i];
    if (s < 0)
      s = std::max<int64_t>(s, -size) + size;
    if (e < 0)
      e = std::max<int64_t>(e, -size - 1) + size; // may reach -1: before the first
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, size);
      e = std::clamp<int64_t>(e, 0, size);
    } else {
      s = std::clamp<int64_t>(s, -1, size - 1);
      e = std::clamp<int64_t>(e, -1, size - 1);
    }
    if (step < 0 && s < 0) { // nothing: an empty slice
      s = 0;
      e = 0;
      step = 1;
    }
    start[d] = s;
    limit[d] = e < 0 ? kNone : e;
    stride[d] = step;
  }
  for (int d = 0; d < rank; ++d)
    if (!seen[d])
      limit[d] = kNone;
  return {slice(x, start, limit, stride)};
}

Results gatherAlong(NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t axis = normalizeAxis(node, node.attrInt("axis", 0), x.rank());
  return {gather(x, node.input(1), axis)};
}

/// The row-major position, in a tensor of dims `sizes`, of the element
/// that positions[d] (along dim d; broadcast together; negative ones count
/// from the end) name; where any is out of its dim's range, the element
/// count: past the end, where a gather refuses it (it could otherwise land
/// on another element).
Tensor linearPositions(const std::vector<Tensor> &positions, const std::vector<int64_t> &sizes) {
  Tensor linear, outOfRange, zero = int64Scalar(0);
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    Tensor n = int64Scalar(sizes[d]);
    Tensor at = where(less(positions[d], zero), add(positions[d], n), positions[d]);
    Tensor bad = logical_or(less(at, zero), greater_equal(at, n));
    outOfRange = outOfRange.defined() ? logical_or(outOfRange, bad) : bad;
    Tensor term = mul(at, int64Scalar(stride));
    linear = linear.defined() ? add(linear, term) : term;
    stride *= sizes[d];
  }
  return where(outOfRange, int64Scalar(stride), linear);
}

/// out[i...] = x[i... with index[i...] along axis] (numpy's take_along_axis),
/// as a gather from x flattened at each element's linear position.
Tensor takeAlong(NodeContext &node, const Tensor &x, const Tensor &index, int64_t axis) {
  std::vector<Tensor> positions;
  std::vector<int64_t> sizes;
  for (int d = 0; d < x.rank(); ++d) {
    positions.push_back(d == axis ? index : iota_like(index, d));
    sizes.push_back(knownDim(node, x, d));
  }
  return gather(reshape(x, {-1}), linearPositions(positions, sizes));
}

/// GatherElements: takeAlong with ONNX's checks.
Results gatherElements(NodeContext &node) {
  const Tensor &x = node.input(0);
  Tensor index = cast(node.input(1), DType::Int64);
  int64_t axis = normalizeAxis(node, node.attrInt("axis", 0), x.rank());
  if (index.rank() != x.rank())
    node.fail("takes indices of x's rank, not " + describe(index));
  for (int d = 0; d < x.rank(); ++d) // beyond x's dims, a position would reach the next row
    if (d != axis && knownDim(node, index, d) > knownDim(node, x, d))
      node.fail("the indices " + describe(index) + " are larger than " + describe(x) +
                " along dim " + std::to_string(d));
  return {takeAlong(node, x, index, axis)};
}

/// Sequence lengths (int64, rank 1) as given, each checked against [0,
/// steps] when the model runs: a length outside is a position out of range
/// in a gather of the lengths themselves, which refuses it.
Tensor checkedLengths(const Tensor &lengths, int64_t steps) {
  Tensor bad = logical_or(less(lengths, int64Scalar(0)), greater(lengths, int64Scalar(steps)));
  Tensor at = where(bad, int64Scalar(std::numeric_limits<int64_t>::max()),
                    iota_like(lengths, 0, DType::Int64));
  return gather(lengths, at);
}

/// x with each sequence's first `lengths[b]` elements along `timeAxis`
/// reversed (the rest kept), as GatherElements of positions (lengths from
/// checkedLengths).
Tensor reversedSequences(NodeContext &node, const Tensor &x, const Tensor &lengths,
                         int64_t timeAxis, int64_t batchAxis) {
  std::vector<int64_t> alongBatch(static_cast<size_t>(x.rank()), 1);
  alongBatch[batchAxis] = -1;
  Tensor length = reshape(lengths, alongBatch);
  Tensor t = iota_like(x, static_cast<int>(timeAxis), DType::Int64);
  Tensor index = where(less(t, length), sub(sub(length, int64Scalar(1)), t), t);
  return takeAlong(node, x, index, timeAxis);
}

/// ReverseSequence: along the time axis, each sequence's first `length`
/// elements reversed (the rest kept).
Results reverseSequence(NodeContext &node) {
  const Tensor &x = node.input(0);
  Tensor lengths = cast(node.input(1), DType::Int64);
  int64_t timeAxis = node.attrInt("time_axis", 0), batchAxis = node.attrInt("batch_axis", 1);
  if (x.rank() < 2 || timeAxis + batchAxis != 1 || std::min(timeAxis, batchAxis) != 0)
    node.fail("takes a tensor of rank 2 or more, time_axis and batch_axis 0 and 1 (either "
              "way), not " +
              describe(x) + " with " + std::to_string(timeAxis) + " and " +
              std::to_string(batchAxis));
  if (lengths.rank() != 1 || (lengths.shape()[0] != kNone && x.shape()[batchAxis] != kNone &&
                              lengths.shape()[0] != x.shape()[batchAxis]))
    node.fail("takes sequence_lens of shape [batch], one length per sequence of " + describe(x) +
              ", not " + describe(lengths));
  int64_t steps = knownDim(node, x, static_cast<int>(timeAxis));
  return {reversedSequences(node, x, checkedLengths(lengths, steps), timeAxis, batchAxis)};
}

/// Component j of index tuples along the last dim of `indices`: [..., 1].
Tensor tupleComponent(const Tensor &indices, int64_t j) {
  std::vector<int64_t> start(indices.rank(), 0), limit(indices.rank(), kNone);
  start.back() = j;
  limit.back() = j + 1;
  return slice(indices, start, limit);
}

/// GatherND (batch_dims 0): each index tuple's slice of data, as a gather
/// from data with its first k dims merged, at each tuple's linear position.
Results gatherND(NodeContext &node) {
  const Tensor &data = node.input(0);
  Tensor indices = cast(node.input(1), DType::Int64);
  if (indices.rank() < 1)
    node.fail("takes indices of rank 1 or more, not " + describe(indices));
  // The first batch_dims dims of data and indices are a batch: each index
  // tuple picks from its own batch element's part of data.
  int64_t batchDims = node.attrInt("batch_dims", 0);
  if (batchDims < 0 || batchDims >= indices.rank() || batchDims >= data.rank())
    node.fail("batch_dims = " + std::to_string(batchDims) + " for " + describe(data) +
              " and indices " + describe(indices));
  int64_t k = knownDim(node, indices, indices.rank() - 1);
  if (k < 1 || batchDims + k > data.rank())
    node.fail("index tuples of " + std::to_string(k) + " after " + std::to_string(batchDims) +
              " batch dims for " + describe(data));
  auto component = [&](int64_t j) { return tupleComponent(indices, j); };
  // Positions along data's first batch_dims + k dims: a batch dim's is the
  // tuple's own position along it, then the tuple's components.
  std::vector<Tensor> positions;
  std::vector<int64_t> sizes;
  for (int64_t b = 0; b < batchDims; ++b) {
    int64_t size = knownDim(node, data, static_cast<int>(b));
    if (knownDim(node, indices, static_cast<int>(b)) != size)
      node.fail("batch dim " + std::to_string(b) + " differs between " + describe(data) +
                " and indices " + describe(indices));
    positions.push_back(iota_like(component(0), b));
    sizes.push_back(size);
  }
  for (int64_t j = 0; j < k; ++j) {
    positions.push_back(component(j));
    sizes.push_back(knownDim(node, data, static_cast<int>(batchDims + j)));
  }
  Tensor linear = linearPositions(positions, sizes);
  int64_t stride = std::accumulate(sizes.begin(), sizes.end(), int64_t(1), std::multiplies<>());
  std::vector<int64_t> tupleShape(indices.shape().begin(), indices.shape().end() - 1);
  for (int64_t d : tupleShape)
    if (d == kNone)
      node.fail("needs the indices' dims while compiling, not " + describe(indices));
  linear = reshape(linear, tupleShape);
  std::vector<int64_t> merged = {stride};
  for (int d = static_cast<int>(batchDims + k); d < data.rank(); ++d)
    merged.push_back(knownDim(node, data, d));
  return {gather(reshape(data, merged), linear, 0)};
}

/// ember's scatter for the `reduction` attribute of ScatterElements and
/// ScatterND (none, add, mul; max and min from opset 18).
using ScatterFn = Tensor (*)(const Tensor &, const Tensor &, const Tensor &, int64_t, SourceLoc);
ScatterFn scatterFor(NodeContext &node) {
  std::string reduction = node.attrString("reduction", "none");
  if (reduction == "none")
    return scatter_update;
  if (reduction == "add")
    return scatter_add;
  if (reduction == "mul")
    return scatter_mul;
  if (reduction == "max")
    return scatter_max;
  if (reduction == "min")
    return scatter_min;
  node.fail("attribute reduction = " + reduction + " is not supported");
}

/// ScatterElements (and opset 9's Scatter): each update written at its own
/// position with its index along axis, as a scatter into data flattened at
/// each update's linear position (one out of range lands past the end,
/// where the scatter refuses it).
Results scatterElements(NodeContext &node) {
  const Tensor &data = node.input(0), &updates = node.input(2);
  Tensor index = cast(node.input(1), DType::Int64);
  int64_t axis = normalizeAxis(node, node.attrInt("axis", 0), data.rank());
  ScatterFn scatter = scatterFor(node);
  if (index.rank() != data.rank() || updates.shape() != index.shape())
    node.fail("takes indices of data's rank and updates of their shape, not data " +
              describe(data) + ", indices " + describe(index) + " and updates " +
              describe(updates));
  std::vector<Tensor> positions;
  std::vector<int64_t> sizes;
  for (int d = 0; d < data.rank(); ++d) {
    if (d != axis && knownDim(node, index, d) > knownDim(node, data, d))
      node.fail("the indices " + describe(index) + " are larger than " + describe(data) +
                " along dim " + std::to_string(d));
    positions.push_back(d == axis ? index : iota_like(index, d));
    sizes.push_back(knownDim(node, data, d));
  }
  Tensor flat = scatter(reshape(data, {-1}), linearPositions(positions, sizes), updates, 0,
                        SourceLoc::current());
  return {reshape(flat, sizes)};
}

/// ScatterND: each index tuple's slice of data replaced by (or combined
/// with) its update, as a scatter into data with its first k dims merged,
/// at each tuple's linear position.
Results scatterND(NodeContext &node) {
  const Tensor &data = node.input(0), &updates = node.input(2);
  Tensor indices = cast(node.input(1), DType::Int64);
  ScatterFn scatter = scatterFor(node);
  if (indices.rank() < 1)
    node.fail("takes indices of rank 1 or more, not " + describe(indices));
  int64_t k = knownDim(node, indices, indices.rank() - 1);
  if (k < 1 || k > data.rank())
    node.fail("index tuples of " + std::to_string(k) + " for " + describe(data));
  std::vector<Tensor> positions;
  std::vector<int64_t> sizes, tupleShape, merged = {1}, dataShape;
  for (int64_t j = 0; j < k; ++j) {
    positions.push_back(tupleComponent(indices, j));
    sizes.push_back(knownDim(node, data, static_cast<int>(j)));
    merged[0] *= sizes.back();
  }
  for (int d = 0; d + 1 < indices.rank(); ++d)
    tupleShape.push_back(knownDim(node, indices, d));
  std::vector<int64_t> updateShape = tupleShape;
  for (int d = 0; d < data.rank(); ++d) {
    dataShape.push_back(knownDim(node, data, d));
    if (d >= k) {
      merged.push_back(dataShape.back());
      updateShape.push_back(dataShape.back());
    }
  }
  if (updates.shape() != Shape(std::span<const int64_t>(updateShape)))
    node.fail("takes updates of shape " + Shape::str(updateShape) + " for data " + describe(data) +
              " and indices " + describe(indices) + ", not " + describe(updates));
  Tensor linear = reshape(linearPositions(positions, sizes), tupleShape);
  Tensor result = scatter(reshape(data, merged), linear, updates, 0, SourceLoc::current());
  return {reshape(result, dataShape)};
}

Results shapeOf(NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t rank = x.rank();
  int64_t first = node.attrInt("start", 0), last = node.attrInt("end", rank);
  first = std::clamp<int64_t>(first < 0 ? first + rank : first, 0, rank);
  last = std::clamp<int64_t>(last < 0 ? last + rank : last, 0, rank);
  std::vector<int64_t> dims;
  bool known = true;
  for (int64_t d = first; d < last; ++d) {
    dims.push_back(x.shape()[static_cast<int>(d)]);
    known &= dims.back() != kNone;
  }
  if (known) // known while compiling: later Reshapes can use it
    return {Tensor::from_vector(dims, {static_cast<int64_t>(dims.size())})};
  Tensor all = shape(x);
  return {slice(all, {first}, {last})};
}

Results sizeOf(NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t count = 1;
  for (int d = 0; d < x.rank(); ++d)
    count *= knownDim(node, x, d);
  return {int64Scalar(count)};
}

Results constant(NodeContext &node) {
  if (node.hasAttribute("value"))
    return {node.attrTensor("value")};
  if (node.hasAttribute("value_float"))
    return {scalar(node.attrFloat("value_float", 0), DType::Float32)};
  if (node.hasAttribute("value_int"))
    return {int64Scalar(node.attrInt("value_int", 0))};
  if (node.hasAttribute("value_floats")) {
    std::vector<float> values = node.attrFloats("value_floats");
    return {Tensor::from_vector(values, {static_cast<int64_t>(values.size())})};
  }
  if (node.hasAttribute("value_ints")) {
    std::vector<int64_t> values = node.attrInts("value_ints");
    return {Tensor::from_vector(values, {static_cast<int64_t>(values.size())})};
  }
  node.fail("has no value ember supports (value, value_float(s), value_int(s))");
}

Results constantOfShape(NodeContext &node) {
  std::vector<int64_t> dims = node.constantInts(0);
  Tensor value = node.hasAttribute("value") ? node.attrTensor("value") : scalar(0, DType::Float32);
  if (value.numel() != 1)
    node.fail("attribute value must hold one element, not " + describe(value));
  return {broadcast_to(reshape(value, {}), Shape(std::span<const int64_t>(dims)))};
}

/// numpy's broadcast of two shapes (the Expand op's rule).
std::vector<int64_t> broadcastShapes(NodeContext &node, std::vector<int64_t> a,
                                     std::vector<int64_t> b) {
  if (a.size() < b.size())
    std::swap(a, b);
  b.insert(b.begin(), a.size() - b.size(), 1);
  for (size_t d = 0; d < a.size(); ++d) {
    if (a[d] == 1)
      a[d] = b[d];
    else if (b[d] != 1 && b[d] != a[d])
      node.fail("dims " + std::to_string(a[d]) + " and " + std::to_string(b[d]) +
                " do not broadcast");
  }
  return a;
}

Results expand(NodeContext &node) {
  const Tensor &x = node.input(0);
  std::vector<int64_t> own;
  for (int d = 0; d < x.rank(); ++d)
    own.push_back(knownDim(node, x, d));
  std::vector<int64_t> shape = broadcastShapes(node, own, node.constantInts(1));
  return {broadcast_to(x, Shape(std::span<const int64_t>(shape)))};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// A reduction's axes (an attribute, or from ReduceSum's opset 13 an
/// input) and whether "no axes" means every axis or none.
std::vector<int64_t> reductionAxes(NodeContext &node, bool axesAsInput, bool &identity) {
  identity = false;
  std::vector<int64_t> axes;
  if (axesAsInput) {
    if (node.has(1))
      axes = node.constantInts(1);
    identity = axes.empty() && node.attrInt("noop_with_empty_axes", 0) != 0;
  } else {
    axes = node.attrInts("axes");
  }
  return axes;
}

enum class Reduction { Sum, Mean, Max, Min, Prod, SumSquare, L1, L2, LogSum, LogSumExp };

template <Reduction kind> Results reduce(NodeContext &node) {
  Tensor x = node.input(0);
  bool identity;
  bool axesAsInput = kind == Reduction::Sum && node.opset() >= 13;
  std::vector<int64_t> axes = reductionAxes(node, axesAsInput, identity);
  bool keepdims = node.attrInt("keepdims", 1) != 0;
  if (identity)
    return {x};
  if (axes.empty()) // every axis
    for (int d = 0; d < x.rank(); ++d)
      axes.push_back(d);
  switch (kind) {
  case Reduction::Sum:
    return {reduce_sum(x, axes, keepdims)};
  case Reduction::Mean:
    requireFloat(node, x);
    return {reduce_mean(x, axes, keepdims)};
  case Reduction::Max:
    return {reduce_max(x, axes, keepdims)};
  case Reduction::Min:
    return {reduce_min(x, axes, keepdims)};
  case Reduction::Prod:
    return {reduce_prod(x, axes, keepdims)};
  case Reduction::SumSquare:
    return {reduce_sum(mul(x, x), axes, keepdims)};
  case Reduction::L1:
    return {reduce_sum(abs(x), axes, keepdims)};
  case Reduction::L2:
    requireFloat(node, x);
    return {sqrt(reduce_sum(mul(x, x), axes, keepdims))};
  case Reduction::LogSum:
    requireFloat(node, x);
    return {log(reduce_sum(x, axes, keepdims))};
  case Reduction::LogSumExp: {
    requireFloat(node, x);
    // Shifted by the largest element, as logsumexp is computed stably.
    Tensor top = reduce_max(x, axes, true);
    // An infinite largest element shifts nothing (inf - inf would be NaN).
    top = where(less(abs(top), scalar(std::numeric_limits<double>::infinity(), x.dtype())), top,
                scalar(0, x.dtype()));
    Tensor sum = reduce_sum(exp(sub(x, top)), axes, true);
    Tensor result = add(log(sum), top);
    if (!keepdims) {
      std::vector<int64_t> shape;
      for (int d = 0; d < x.rank(); ++d)
        if (std::find_if(axes.begin(), axes.end(), [&](int64_t a) {
              return normalizeAxis(node, a, x.rank()) == d;
            }) == axes.end())
          shape.push_back(knownDim(node, x, d));
      result = reshape(result, shape);
    }
    return {result};
  }
  }
  return {};
}

/// x with its order reversed, so that the largest of the result is the
/// smallest of x: -x, or ~x (-x - 1) for integers, which cannot overflow.
Tensor orderReversed(const Tensor &x) {
  return isFloat(x.dtype()) ? neg(x) : sub(scalar(-1, x.dtype()), x);
}

template <bool largest> Results argExtreme(NodeContext &node) {
  Tensor x = node.input(0);
  int64_t axis = normalizeAxis(node, node.attrInt("axis", 0), x.rank());
  bool keepdims = node.attrInt("keepdims", 1) != 0;
  bool last = node.attrInt("select_last_index", 0) != 0;
  if (!largest) {
    if (x.dtype() == DType::Bool)
      node.fail("takes numbers, not " + describe(x));
    x = orderReversed(x);
  }
  if (!last)
    return {argmax(x, axis, keepdims)};
  // The last of equal elements: the first along the reversed axis.
  int64_t size = knownDim(node, x, static_cast<int>(axis));
  Tensor reversed = argmax(reversedAlong(node, x, static_cast<int>(axis)), axis, keepdims);
  return {sub(scalar(static_cast<double>(size - 1), reversed.dtype()), reversed)};
}

/// TopK, sorted (of equal elements the one with the lower index first): k
/// rounds of argmax along the axis, each masking what it took with the
/// lowest value; a round whose choice is already taken (only the lowest
/// value is left) takes the first position not yet taken. O(k n): the k of a
/// classifier's top 5, not a sort.
Results topK(NodeContext &node) {
  Tensor x = node.input(0);
  std::vector<int64_t> given = node.constantInts(1);
  int64_t axis = normalizeAxis(node, node.attrInt("axis", -1), x.rank());
  bool largest = node.attrInt("largest", 1) != 0;
  node.attrInt("sorted", 1); // sorted satisfies either
  if (x.dtype() == DType::Bool)
    node.fail("takes numbers, not " + describe(x));
  int64_t size = knownDim(node, x, static_cast<int>(axis));
  if (given.size() != 1 || given[0] < 1 || given[0] > size)
    node.fail("takes k (one value) from 1 to the axis's size " + std::to_string(size) + ", not " +
              Shape::str(given));
  int64_t k = given[0];
  // Largest first; the smallest as the largest of x reversed.
  Tensor key = largest ? x : orderReversed(x);
  Tensor lowest =
      scalar(isFloat(x.dtype())          ? -std::numeric_limits<double>::infinity()
             : x.dtype() == DType::Int32 ? static_cast<double>(std::numeric_limits<int32_t>::min())
                                         : static_cast<double>(std::numeric_limits<int64_t>::min()),
             x.dtype());
  Tensor positions = iota_like(x, axis, DType::Int64);
  Tensor taken = less(positions, int64Scalar(0)); // none yet
  std::vector<Tensor> picked;
  for (int64_t round = 0; round < k; ++round) {
    Tensor at = argmax(where(taken, lowest, key), axis, /*keepdims=*/true);
    Tensor firstFree = argmax(cast(logical_not(taken), DType::Int32), axis, /*keepdims=*/true);
    Tensor already = reduce_max(cast(logical_and(taken, equal(positions, at)), DType::Int32),
                                {axis}, /*keepdims=*/true);
    at = where(greater(already, scalar(0, DType::Int32)), firstFree, at);
    picked.push_back(at);
    taken = logical_or(taken, equal(positions, at));
  }
  Tensor indices = picked.size() == 1 ? picked[0] : concat(picked, axis);
  return {takeAlong(node, x, indices, axis), indices};
}

//===----------------------------------------------------------------------===//
// Neural networks
//===----------------------------------------------------------------------===//

/// numpy's matmul: 1-D operands promoted and the added dim removed, batch
/// dims broadcast.
Results matrixProduct(NodeContext &node) {
  Tensor a = node.input(0), b = node.input(1);
  if (a.rank() == 0 || b.rank() == 0)
    node.fail("takes tensors of rank 1 or more, not " + describe(a) + " and " + describe(b));
  bool vectorA = a.rank() == 1, vectorB = b.rank() == 1;
  if (vectorA)
    a = reshape(a, {1, knownDim(node, a, 0)});
  if (vectorB)
    b = reshape(b, {knownDim(node, b, 0), 1});
  std::vector<int64_t> batchA(a.shape().begin(), a.shape().end() - 2),
      batchB(b.shape().begin(), b.shape().end() - 2);
  if (!vectorA && !vectorB && batchB.empty() && !batchA.empty()) {
    // [..., m, k] x [k, n] (a Linear layer on a sequence): one matmul of
    // the rows; the result takes a's leading sizes, symbolic ones too.
    int64_t k = knownDim(node, b, 0), n = knownDim(node, b, 1);
    Tensor rows = matmul(reshape(a, {-1, k}), b);
    std::vector<int64_t> shape(a.shape().begin(), a.shape().end() - 1);
    shape.push_back(n);
    return {reshape(rows, shape, a)};
  }
  if (batchA != batchB) {
    std::vector<int64_t> batch = broadcastShapes(node, batchA, batchB);
    auto widen = [&](const Tensor &t) {
      std::vector<int64_t> shape = batch;
      shape.push_back(knownDim(node, t, t.rank() - 2));
      shape.push_back(knownDim(node, t, t.rank() - 1));
      return broadcast_to(t, Shape(std::span<const int64_t>(shape)));
    };
    a = widen(a);
    b = widen(b);
  }
  Tensor y = matmul(a, b);
  if (vectorA || vectorB) {
    std::vector<int64_t> shape(y.shape().begin(), y.shape().end() - 2);
    if (!vectorA)
      shape.push_back(y.shape()[y.rank() - 2]);
    if (!vectorB)
      shape.push_back(y.shape()[y.rank() - 1]);
    y = reshape(y, shape);
  }
  return {y};
}

Results gemm(NodeContext &node) {
  Tensor a = node.input(0), b = node.input(1);
  requireFloat(node, a);
  if (node.attrInt("transA", 0))
    a = transpose(a);
  if (node.attrInt("transB", 0) && b.rank() == 2)
    b = permuted(b, {1, 0}); // a weight, most often
  else if (node.attrInt("transB", 0))
    b = transpose(b);
  double alpha = node.attrFloat("alpha", 1.f), beta = node.attrFloat("beta", 1.f);
  if (node.opset() < 7)
    node.ignoreAttribute("broadcast");
  Tensor y = matmul(a, b);
  if (alpha != 1)
    y = mul(y, scalar(alpha, y.dtype()));
  if (node.has(2)) {
    Tensor c = node.input(2);
    if (beta != 1)
      c = mul(c, scalar(beta, c.dtype()));
    y = add(y, c);
  }
  return {y};
}

/// Softmax, LogSoftmax and Hardmax (`apply(t, axis)`): from opset 13 along
/// `axis` (default -1); before, over the input flattened to 2-D at `axis`
/// (default 1).
template <typename Apply> Results alongAxisByOpset(NodeContext &node, Apply apply) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  if (node.opset() >= 13)
    return {apply(x, normalizeAxis(node, node.attrInt("axis", -1), x.rank()))};
  int64_t axis = node.attrInt("axis", 1);
  if (axis < 0)
    axis += x.rank();
  if (axis < 0 || axis > x.rank())
    node.fail("axis " + std::to_string(axis) + " is out of range for " + describe(x));
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d)
    outer *= knownDim(node, x, d);
  std::vector<int64_t> shape;
  for (int d = 0; d < x.rank(); ++d)
    shape.push_back(knownDim(node, x, d));
  return {reshape(apply(reshape(x, {outer, -1}), 1), shape)};
}

template <bool logarithm> Results softmaxOf(NodeContext &node) {
  return alongAxisByOpset(node, [](const Tensor &t, int64_t axis) {
    return logarithm ? nn::log_softmax(t, axis) : nn::softmax(t, axis);
  });
}

/// The kernel, strides, dilations and pads of a 2-D window op (Conv,
/// pooling), the pads in ember's order {top, bottom, left, right}; auto_pad
/// SAME_UPPER and SAME_LOWER become the pads they stand for.
struct Window {
  std::array<int64_t, 2> kernel{}, strides{1, 1}, dilations{1, 1};
  std::array<int64_t, 4> pads{0, 0, 0, 0};
  bool padded() const { return pads != std::array<int64_t, 4>{0, 0, 0, 0}; }
};

Window windowOf(NodeContext &node, const Tensor &x, std::array<int64_t, 2> kernel,
                bool takesDilations) {
  if (x.rank() != 4)
    node.fail("supports 2-D windows (NCHW inputs of rank 4), not " + describe(x));
  Window w;
  w.kernel = kernel;
  std::vector<int64_t> strides = node.attrInts("strides", {1, 1});
  std::vector<int64_t> dilations = node.attrInts("dilations", {1, 1});
  std::vector<int64_t> pads = node.attrInts("pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
    node.fail("strides, dilations and pads must be given for 2 dims");
  if (!takesDilations && (dilations[0] != 1 || dilations[1] != 1))
    node.unsupported("dilations", "other than 1");
  for (int d = 0; d < 2; ++d)
    if (strides[d] < 1 || dilations[d] < 1 || kernel[d] < 1)
      node.fail("takes kernel sizes, strides and dilations of 1 or more");
  w.strides = {strides[0], strides[1]};
  w.dilations = {dilations[0], dilations[1]};
  w.pads = {pads[0], pads[2], pads[1], pads[3]}; // ONNX: begins, then ends
  std::string autoPad = node.attrString("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.pads = {0, 0, 0, 0};
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int d = 0; d < 2; ++d) { // out = ceil(in / stride)
      int64_t in = knownDim(node, x, d + 2), stride = w.strides[d];
      int64_t out = (in + stride - 1) / stride;
      int64_t total = std::max<int64_t>((out - 1) * stride + (kernel[d] - 1) * w.dilations[d] + 1 - in, 0);
      int64_t begin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pads[2 * d] = begin;
      w.pads[2 * d + 1] = total - begin;
    }
  } else if (autoPad != "NOTSET") {
    node.unsupported("auto_pad", autoPad);
  }
  return w;
}

Tensor toChannelsLast(const Tensor &x) { return transpose(x, {0, 2, 3, 1}); }
Tensor toChannelsFirst(const Tensor &x) { return transpose(x, {0, 3, 1, 2}); }

/// A window op of one spatial dim (Conv, ConvTranspose, pooling on
/// [N, C, L]) as the 2-D one on [N, C, 1, L]: its first `lifted` inputs (the
/// data, the weights) gain a dim of size 1 after dim 1, its attributes read
/// as those of that 2-D window, and its results lose the dim again.
template <Results (*twoD)(NodeContext &), int lifted> Results oneOrTwoD(NodeContext &node) {
  if (node.input(0).rank() != 3)
    return twoD(node);
  auto reshapedAround = [&](const Tensor &x, bool insert) {
    std::vector<int64_t> shape(x.shape().begin(), x.shape().end());
    if (insert)
      shape.insert(shape.begin() + 2, 1);
    else
      shape.erase(shape.begin() + 2);
    return reshapeWithUnknowns(node, x, shape, {true, true});
  };
  for (int i = 0; i < lifted; ++i)
    if (node.has(i)) {
      if (node.input(i).rank() != 3)
        node.fail("input " + std::to_string(i) + " must be of rank 3 beside a 1-D input, not " +
                  describe(node.input(i)));
      node.replaceInput(i, reshapedAround(node.input(i), true));
    }
  node.liftWindowAttributesToTwoD();
  Results results = twoD(node);
  for (Tensor &result : results)
    result = reshapedAround(result, false);
  return results;
}

Results convolution(NodeContext &node) {
  const Tensor &x = node.input(0), &w = node.input(1);
  requireFloat(node, x);
  if (w.rank() != 4)
    node.fail("supports 2-D convolutions (weights of rank 4), not " + describe(w));
  std::array<int64_t, 2> kernel = {knownDim(node, w, 2), knownDim(node, w, 3)};
  std::vector<int64_t> given = node.attrInts("kernel_shape", {kernel[0], kernel[1]});
  if (given != std::vector<int64_t>{kernel[0], kernel[1]})
    node.fail("kernel_shape does not match the weights' " + describe(w));
  Window window = windowOf(node, x, kernel, /*takesDilations=*/true);
  // Groups: the input's channels and the filters split into `group` equal
  // parts, each part convolved with its own, the results side by side.
  int64_t groups = node.attrInt("group", 1);
  int64_t channels = knownDim(node, x, 1), filters = knownDim(node, w, 0);
  if (groups < 1 || channels % groups || filters % groups ||
      knownDim(node, w, 1) * groups != channels)
    node.fail("group = " + std::to_string(groups) + " does not divide the input " + describe(x) +
              " and the weights " + describe(w));
  Tensor in = toChannelsLast(x), hwio = permuted(w, {2, 3, 1, 0}); // [M, C/g, kH, kW] -> HWIO
  std::vector<Tensor> parts;
  int64_t inPart = channels / groups, outPart = filters / groups;
  for (int64_t g = 0; g < groups; ++g) {
    Tensor xg = groups == 1 ? in : slice(in, {0, 0, 0, g * inPart}, {kNone, kNone, kNone, (g + 1) * inPart});
    Tensor wg = groups == 1 ? hwio : slice(hwio, {0, 0, 0, g * outPart}, {kNone, kNone, kNone, (g + 1) * outPart});
    parts.push_back(nn::conv2d(xg, wg, window.strides, window.pads, window.dilations));
  }
  Tensor y = parts.size() == 1 ? parts[0] : concat(parts, 3);
  if (node.has(2))
    y = add(y, node.input(2)); // the bias, per output channel (last here)
  return {toChannelsFirst(y)};
}

Tensor padAlong(NodeContext &node, const Tensor &x, int d, int64_t before, int64_t after,
                Scalar fill);

/// x (NHWC) with stride - 1 zeros between its elements along dim d.
Tensor spreadAlong(NodeContext &node, const Tensor &x, int d, int64_t stride) {
  if (stride == 1)
    return x;
  int64_t size = knownDim(node, x, d);
  std::vector<int64_t> shape;
  for (int e = 0; e < x.rank(); ++e) {
    shape.push_back(e == 0 ? -1 : knownDim(node, x, e));
    if (e == d)
      shape.push_back(1);
  }
  Tensor column = reshape(x, shape); // a new dim after d, of size 1
  Tensor spread = padAlong(node, column, d + 1, 0, stride - 1, Scalar(0));
  shape.erase(shape.begin() + d + 1);
  shape[d] = size * stride;
  std::vector<int64_t> start(x.rank(), 0), limit(x.rank(), kNone);
  limit[d] = (size - 1) * stride + 1;
  return slice(reshape(spread, shape), start, limit);
}

/// ConvTranspose (2-D, groups): the gradient of a convolution with respect
/// to its input, as a convolution of the input spread apart by the strides
/// (zeros between), padded by what the kernel reaches past each end less
/// the pads (cropped where that is negative), with the kernel flipped.
Results transposedConvolution(NodeContext &node) {
  const Tensor &x = node.input(0), &w = node.input(1);
  requireFloat(node, x);
  if (w.rank() != 4 || x.rank() != 4)
    node.fail("supports 2-D transposed convolutions (NCHW inputs), not " + describe(x));
  std::array<int64_t, 2> kernel = {knownDim(node, w, 2), knownDim(node, w, 3)};
  std::vector<int64_t> given = node.attrInts("kernel_shape", {kernel[0], kernel[1]});
  if (given != std::vector<int64_t>{kernel[0], kernel[1]})
    node.fail("kernel_shape does not match the weights' " + describe(w));
  std::vector<int64_t> strides = node.attrInts("strides", {1, 1});
  std::vector<int64_t> dilations = node.attrInts("dilations", {1, 1});
  std::vector<int64_t> pads = node.attrInts("pads", {0, 0, 0, 0});
  std::vector<int64_t> extra = node.attrInts("output_padding", {0, 0});
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 || extra.size() != 2)
    node.fail("strides, dilations, pads and output_padding must be given for 2 dims");
  std::string autoPad = node.attrString("auto_pad", "NOTSET");
  std::vector<int64_t> outputShape = node.attrInts("output_shape");
  if (!outputShape.empty() && outputShape.size() != 2)
    node.fail("output_shape must give 2 dims (H, W)");
  int64_t groups = node.attrInt("group", 1);
  int64_t channels = knownDim(node, x, 1);
  if (groups < 1 || channels % groups || knownDim(node, w, 0) != channels)
    node.fail("group = " + std::to_string(groups) + " does not fit the input " + describe(x) +
              " and the weights " + describe(w));
  std::array<int64_t, 4> around{}; // {top, bottom, left, right} around the spread input
  for (int d = 0; d < 2; ++d) {
    int64_t reach = (kernel[d] - 1) * dilations[d]; // the kernel's extent less one
    int64_t begin = pads[d], end = pads[d + 2];
    if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
        autoPad != "SAME_LOWER")
      node.unsupported("auto_pad", autoPad);
    bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    if (!outputShape.empty() || same) {
      // The pads that give the output shape (SAME: input * stride), split
      // as the spec says: the odd one at the end for SAME_UPPER.
      int64_t in = knownDim(node, x, d + 2);
      int64_t out = outputShape.empty() ? in * strides[d] : outputShape[d];
      int64_t total = strides[d] * (in - 1) + extra[d] + reach + 1 - out;
      // Without SAME, the spec, ONNX's reference and onnxruntime place the
      // rows an output_shape trims (or adds) differently: only the shape
      // the input gives anyway is taken.
      if (total < 0 || (!same && (total != 0 || begin != 0 || end != 0)))
        node.fail("output_shape " + std::to_string(out) + " differs from what the input gives (" +
                  std::to_string(out + total) + ") without auto_pad SAME: give pads and "
                  "output_padding instead");
      begin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else if (autoPad == "VALID") {
      begin = end = 0;
    }
    around[2 * d] = reach - begin;
    around[2 * d + 1] = reach - end + extra[d];
  }
  Tensor in = toChannelsLast(x);
  in = spreadAlong(node, spreadAlong(node, in, 1, strides[0]), 2, strides[1]);
  // Pads where what the kernel reaches is positive, crops where negative.
  for (int d = 0; d < 2; ++d) {
    int64_t before = around[2 * d], after = around[2 * d + 1];
    in = padAlong(node, in, d + 1, std::max<int64_t>(before, 0), std::max<int64_t>(after, 0),
                  Scalar(0));
    if (before < 0 || after < 0) {
      std::vector<int64_t> start(4, 0), limit(4, kNone);
      start[d + 1] = std::max<int64_t>(-before, 0);
      limit[d + 1] = knownDim(node, in, d + 1) - std::max<int64_t>(-after, 0);
      in = slice(in, start, limit);
    }
  }
  // [C, M/g, kH, kW] flipped in space, as HWIO per group.
  Tensor flipped = reversedAlong(node, reversedAlong(node, w, 2), 3);
  Tensor hwio = permuted(flipped, {2, 3, 0, 1}); // [kH, kW, C, M/g]
  int64_t inPart = channels / groups;
  std::vector<Tensor> parts;
  for (int64_t g = 0; g < groups; ++g) {
    Tensor xg = groups == 1 ? in : slice(in, {0, 0, 0, g * inPart}, {kNone, kNone, kNone, (g + 1) * inPart});
    Tensor wg = groups == 1 ? hwio : slice(hwio, {0, 0, g * inPart, 0}, {kNone, kNone, (g + 1) * inPart, kNone});
    parts.push_back(nn::conv2d(xg, wg, {1, 1}, "VALID", {dilations[0], dilations[1]}));
  }
  Tensor y = parts.size() == 1 ? parts[0] : concat(parts, 3);
  if (node.has(2))
    y = add(y, node.input(2));
  return {toChannelsFirst(y)};
}

/// A tensor of `fill` shaped as x but `size` along dim d: x's first `size`
/// rows along d with every element replaced (so that its other dims may be
/// symbolic, a batch of any size), or a filled tensor of static dims.
Tensor slabLike(NodeContext &node, const Tensor &x, int d, int64_t size, Scalar fill) {
  if (size <= knownDim(node, x, d)) {
    std::vector<int64_t> start(x.rank(), 0), limit(x.rank(), kNone);
    limit[d] = size;
    Tensor rows = slice(x, start, limit);
    return where(less(rows, rows), rows, Tensor(fill, x.dtype())); // less: false, NaN too
  }
  std::vector<int64_t> shape;
  for (int e = 0; e < x.rank(); ++e)
    shape.push_back(e == d ? size : knownDim(node, x, e));
  return full(Shape(std::span<const int64_t>(shape)), fill, x.dtype());
}

/// x with `before` and `after` elements of `fill` around dim d.
Tensor padAlong(NodeContext &node, const Tensor &x, int d, int64_t before, int64_t after,
                Scalar fill) {
  if (!before && !after)
    return x;
  std::vector<Tensor> pieces;
  if (before)
    pieces.push_back(slabLike(node, x, d, before, fill));
  pieces.push_back(x);
  if (after)
    pieces.push_back(slabLike(node, x, d, after, fill));
  return concat(pieces, d);
}

/// MaxUnpool: each value of X written at its index (MaxPool's indices,
/// positions in the whole default-shaped output flattened) in an output of
/// zeros, as a scatter into the output flattened; a larger output_shape
/// adds zeros after each spatial dim.
Results maxUnpool(NodeContext &node) {
  const Tensor &x = node.input(0);
  Tensor index = cast(node.input(1), DType::Int64);
  int spatial = x.rank() - 2;
  std::vector<int64_t> kernel = node.attrInts("kernel_shape");
  std::vector<int64_t> strides = node.attrInts("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = node.attrInts("pads", std::vector<int64_t>(2 * spatial, 0));
  if (spatial < 1 || static_cast<int>(kernel.size()) != spatial ||
      static_cast<int>(strides.size()) != spatial || static_cast<int>(pads.size()) != 2 * spatial)
    node.fail("takes X of rank 3 or more with kernel_shape, strides and pads of its spatial "
              "dims, not " +
              describe(x));
  if (index.shape() != x.shape())
    node.fail("takes indices of X's shape " + describe(x) + ", not " + describe(index));
  std::vector<int64_t> shape;
  for (int d = 0; d < x.rank(); ++d) {
    int64_t size = knownDim(node, x, d);
    if (d >= 2) {
      int s = d - 2;
      size = (size - 1) * strides[s] + kernel[s] - pads[s] - pads[s + spatial];
    }
    shape.push_back(size);
  }
  int64_t count = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  Tensor flat = scatter_update(zeros({count}, x.dtype()), reshape(index, {-1}), reshape(x, {-1}));
  Tensor y = reshape(flat, shape);
  if (node.has(2)) { // output_shape: at least the default, zeros after it
    std::vector<int64_t> given = node.constantInts(2);
    if (given.size() != shape.size() || given[0] != shape[0] || given[1] != shape[1])
      node.fail("output_shape " + Shape::str(given) + " does not fit X " + describe(x));
    for (size_t d = 2; d < given.size(); ++d) {
      if (given[d] < shape[d])
        node.fail("output_shape " + Shape::str(given) + " is smaller than the default " +
                  Shape::str(shape));
      y = padAlong(node, y, static_cast<int>(d), 0, given[d] - shape[d], 0);
    }
  }
  return {y};
}

/// x (NHWC) with `pads` {top, bottom, left, right} of `value` around H and W.
Tensor padSpatially(NodeContext &node, Tensor x, const std::array<int64_t, 4> &pads, double value) {
  x = padAlong(node, x, 1, pads[0], pads[1], Scalar(value));
  return padAlong(node, x, 2, pads[2], pads[3], Scalar(value));
}

template <bool largest> Results pooling(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  std::vector<int64_t> kernel = node.attrInts("kernel_shape");
  if (kernel.size() != 2)
    node.fail("supports 2-D pooling (kernel_shape of 2 dims)");
  Window window = windowOf(node, x, {kernel[0], kernel[1]}, /*takesDilations=*/false);
  bool countPads = !largest && node.attrInt("count_include_pad", 0) != 0;
  if (node.attrInt("ceil_mode", 0) != 0) {
    // Output sizes rounded up (the spec's ceil((in + pads - kernel) / stride)
    // + 1): the last windows reach past the end, as if padded there; that
    // padding never counts (max: -inf; average: not in the divisor).
    for (int d = 0; d < 2; ++d) {
      int64_t in = knownDim(node, x, d + 2);
      int64_t span = in + window.pads[2 * d] + window.pads[2 * d + 1] - window.kernel[d];
      int64_t stride = window.strides[d];
      int64_t beyond = span < 0 ? 0 : (stride - span % stride) % stride;
      // A last window that starts past the input (in the end padding) holds
      // no element: implementations drop it, ONNX 1.12's shape inference not.
      int64_t windows = (span + beyond) / stride + 1;
      if (beyond && (windows - 1) * stride >= in + window.pads[2 * d])
        node.fail("ceil_mode = 1 makes a last window of only padding along spatial dim " +
                  std::to_string(d) + " (kernel " + std::to_string(window.kernel[d]) + ", stride " +
                  std::to_string(stride) + "): not supported");
      if (beyond && countPads)
        node.fail("ceil_mode = 1 with count_include_pad = 1 is not supported (which "
                  "elements the divisor counts past the end differs between implementations)");
      window.pads[2 * d + 1] += beyond;
    }
  }
  if (largest && node.attrInt("storage_order", 0) != 0)
    node.unsupported("storage_order", "1");
  if (largest && node.node().output_size() > 1 && !node.node().output(1).empty())
    node.fail("output 1 (the indices) is not supported");
  Tensor in = toChannelsLast(x);
  if (largest) { // padding never wins a window: -inf
    Tensor padded = window.padded() ? padSpatially(node, in, window.pads,
                                                   -std::numeric_limits<double>::infinity())
                                    : in;
    return {toChannelsFirst(nn::max_pool2d(padded, window.kernel, window.strides, "VALID"))};
  }
  Tensor average = nn::avg_pool2d(window.padded() ? padSpatially(node, in, window.pads, 0) : in,
                                  window.kernel, window.strides, "VALID");
  if (window.padded() && !countPads) {
    // Each window's mean over its real elements: the mean over the padded
    // window divided by the share of real elements in it.
    Tensor real = padSpatially(node, broadcast_to(scalar(1, x.dtype()), in.shape()), window.pads, 0);
    average = div(average, nn::avg_pool2d(real, window.kernel, window.strides, "VALID"));
  }
  return {toChannelsFirst(average)};
}

/// LRN: x / (bias + alpha / size * the sum of squares over `size` channels
/// around each)^beta, the window's odd element after the channel.
Results localResponseNormalization(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  int64_t size = node.attrInt("size", 0);
  double alpha = node.attrFloat("alpha", 1e-4f), beta = node.attrFloat("beta", 0.75f),
         bias = node.attrFloat("bias", 1.0f);
  if (x.rank() < 3 || size < 1)
    node.fail("takes [N, C, ...] inputs and a positive size, not " + describe(x) + " and " +
              std::to_string(size));
  int64_t channels = knownDim(node, x, 1);
  // Window positions past the channels add nothing: at most C - 1 each side.
  int64_t before = std::min((size - 1) / 2, channels - 1), after = std::min(size / 2, channels - 1);
  Tensor squares = padAlong(node, mul(x, x), 1, before, after, Scalar(0));
  Tensor sum;
  std::vector<int64_t> start(static_cast<size_t>(x.rank()), 0), limit(start.size(), kNone);
  for (int64_t i = 0; i < before + after + 1; ++i) {
    start[1] = i;
    limit[1] = i + channels;
    Tensor term = slice(squares, start, limit);
    sum = sum.defined() ? add(sum, term) : term;
  }
  Tensor denominator =
      add(scalar(bias, x.dtype()), mul(scalar(alpha / double(size), x.dtype()), sum));
  return {div(x, pow(denominator, scalar(beta, x.dtype())))};
}

template <bool largest> Results globalPooling(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  if (x.rank() < 2)
    node.fail("takes inputs [N, C, ...], not " + describe(x));
  if (x.rank() == 2)
    return {x}; // no spatial dims: each window is one element
  std::vector<int64_t> axes;
  for (int d = 2; d < x.rank(); ++d)
    axes.push_back(d);
  return {largest ? reduce_max(x, axes, true) : reduce_mean(x, axes, true)};
}

Results batchNormalization(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  // training_mode (opset 14+): normalized by the batch's own statistics,
  // the running ones updated (outputs 1 and 2).
  bool training = node.opset() >= 14 && node.attrInt("training_mode", 0) != 0;
  if (node.opset() < 9 && node.attrInt("spatial", 1) != 1)
    node.unsupported("spatial", "0");
  double momentum = node.attrFloat("momentum", 0.9f);
  for (int i = training ? 3 : 1; i < node.node().output_size(); ++i)
    if (!node.node().output(i).empty())
      node.fail("output " + std::to_string(i) + " (training statistics) is not supported");
  double epsilon = node.attrFloat("epsilon", 1e-5f);
  if (x.rank() < 2)
    node.fail("takes inputs of rank 2 or more, not " + describe(x));
  // Per channel (dim 1): shaped [C, 1, ..., 1] to broadcast against NC...
  int64_t channels = knownDim(node, x, 1);
  std::vector<int64_t> perChannel = {channels};
  perChannel.insert(perChannel.end(), static_cast<size_t>(x.rank() - 2), 1);
  auto channel = [&](int i) { return reshape(cast(node.input(i), x.dtype()), perChannel); };
  Tensor scale = channel(1), bias = channel(2), mean = channel(3), variance = channel(4);
  // In training, the batch's moments over every dim but the channels.
  std::optional<Moments> batch;
  if (training) {
    std::vector<int64_t> axes = {0};
    for (int d = 2; d < x.rank(); ++d)
      axes.push_back(d);
    batch = momentsOf(x, axes);
  }
  Tensor centered = batch ? batch->centered : sub(x, mean);
  Tensor inverse = rsqrt(add(batch ? batch->variance : variance, scalar(epsilon, x.dtype())));
  Tensor y = add(mul(mul(centered, inverse), scale), bias);
  if (!training)
    return {y};
  auto running = [&](const Tensor &old, const Tensor &current, int input) {
    Tensor updated = add(mul(reshape(old, {channels}), scalar(momentum, x.dtype())),
                         mul(reshape(current, {channels}), scalar(1 - momentum, x.dtype())));
    return cast(updated, node.input(input).dtype());
  };
  return {y, running(mean, batch->mean, 3), running(variance, batch->variance, 4)};
}

Results dropout(NodeContext &node) {
  const Tensor &x = node.input(0);
  node.ignoreAttribute("seed");
  if (node.opset() < 12)
    node.ignoreAttribute("ratio"); // applied in training only
  if (node.opset() < 7)
    node.ignoreAttribute("is_test");
  // Training mode drops a random part of x, unless its ratio (0.5 by
  // default) is 0: then, as in inference, it keeps everything.
  if (node.has(2) && node.constantInput(2).item<bool>()) {
    double ratio = node.has(1) ? node.constantInput(1).to_vector<double>().at(0) : 0.5;
    if (ratio != 0) {
      char text[32];
      std::snprintf(text, sizeof(text), "%g", ratio);
      node.fail("training_mode = true with ratio " + std::string(text) +
                " is not supported (a random mask; inference, or a ratio of 0, only)");
    }
  }
  Results results = {x};
  if (node.node().output_size() > 1 && !node.node().output(1).empty()) // all kept
    results.push_back(broadcast_to(Tensor(Scalar(1), node.opset() < 10 ? x.dtype() : DType::Bool),
                                   x.shape()));
  return results;
}

//===----------------------------------------------------------------------===//
// More elementwise ops, composed
//===----------------------------------------------------------------------===//

/// floor(x) (or ceil) exactly: x truncated through int64, corrected by one
/// where that moved the wrong way; values too large to have a fraction (and
/// inf, nan) are their own floor.
/// A whole number computed from x (floor, ceil, ...) with the special
/// values right: a zero keeps x's sign (ceil(-0.5) is -0: x * 0), and x
/// too large to have a fraction (and inf, nan) is its own.
Tensor wholeOf(const Tensor &x, const Tensor &whole) {
  DType dtype = x.dtype();
  Tensor signed_ = where(equal(whole, scalar(0, dtype)), mul(x, scalar(0, dtype)), whole);
  return where(less(abs(x), scalar(0x1p52, dtype)), signed_, x);
}

/// floor(x) (or ceil) exactly: x truncated through int64 (exact below
/// 2^52), corrected by one where that moved the wrong way.
Tensor roundedDown(const Tensor &x, bool up) {
  DType dtype = x.dtype();
  Tensor truncated = cast(cast(x, DType::Int64), dtype);
  Tensor step = cast(up ? less(truncated, x) : greater(truncated, x), dtype);
  return up ? add(truncated, step) : sub(truncated, step);
}

template <bool up> Results rounding(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  return {wholeOf(x, roundedDown(x, up))};
}

/// Round: to the nearest whole number, halves to the even one (numpy's).
Results roundHalfToEven(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  DType t = x.dtype();
  Tensor below = roundedDown(x, false), above = add(below, scalar(1, t));
  Tensor fraction = sub(x, below), half = scalar(0.5, t); // exact below 2^52
  Tensor even = equal(mod(below, scalar(2, t)), scalar(0, t));
  Tensor nearest = where(greater(fraction, half), above,
                         where(less(fraction, half), below, where(even, below, above)));
  return {wholeOf(x, nearest)};
}

Results thresholdedRelu(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  double alpha = node.attrFloat("alpha", 1.f);
  return {where(greater(x, scalar(alpha, x.dtype())), x, scalar(0, x.dtype()))};
}

Results celu(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  double alpha = node.attrFloat("alpha", 1.f);
  Tensor a = scalar(alpha, x.dtype()), zero = scalar(0, x.dtype());
  Tensor negative = mul(a, sub(exp(div(x, a)), scalar(1, x.dtype())));
  return {add(maximum(x, zero), minimum(negative, zero))};
}

Results shrink(NodeContext &node) {
  const Tensor &x = node.input(0);
  double lambd = node.attrFloat("lambd", 0.5f), bias = node.attrFloat("bias", 0.f);
  if (!isFloat(x.dtype()) && (lambd != std::trunc(lambd) || bias != std::trunc(bias)))
    node.fail("takes whole lambd and bias for " + describe(x) + " (ONNX computes a fractional "
              "one in floating point, which is not supported)");
  Tensor l = scalar(lambd, x.dtype()), b = scalar(bias, x.dtype());
  return {where(less(x, neg(l)), add(x, b),
                where(greater(x, l), sub(x, b), scalar(0, x.dtype())))};
}

Results isNan(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  return {not_equal(x, x)};
}

Results isInf(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  bool positive = node.attrInt("detect_positive", 1), negative = node.attrInt("detect_negative", 1);
  Tensor inf = scalar(std::numeric_limits<double>::infinity(), x.dtype());
  Tensor up = equal(x, inf), down = equal(x, neg(inf));
  if (positive && negative)
    return {logical_or(up, down)};
  if (positive)
    return {up};
  if (negative)
    return {down};
  return {less(x, x)}; // neither: all false (NaN too)
}

Results tangent(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  return {div(sin(x), cos(x))};
}

template <bool cosine> Results hyperbolic(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  DType t = x.dtype();
  Tensor up = exp(x), down = exp(neg(x));
  Tensor value = mul(cosine ? add(up, down) : sub(up, down), scalar(0.5, t));
  if (cosine)
    return {value};
  // Small |x|: e^x - e^-x cancels; its series x + x^3/6 + x^5/120 + x^7/5040.
  Tensor x2 = mul(x, x);
  Tensor series = mul(
      x, add(scalar(1, t),
             mul(x2, add(scalar(1.0 / 6, t),
                         mul(x2, add(scalar(1.0 / 120, t), mul(x2, scalar(1.0 / 5040, t))))))));
  return {where(less(abs(x), scalar(0.1, t)), series, value)};
}

/// asinh, acosh and atanh through their logarithms.
Results inverseHyperbolic(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  DType t = x.dtype();
  Tensor one = scalar(1, t), a = abs(x);
  // Beyond 2^26, x^2 + 1 is x^2 (and x^2 may overflow): log(2|x|).
  Tensor large = less(scalar(0x1p26, t), a);
  Tensor logTwice = add(log(a), scalar(std::log(2.0), t));
  const std::string &type = node.node().op_type();
  if (type == "Asinh") { // sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))): no cancellation
    Tensor inner = log1p(add(a, div(mul(a, a), add(one, sqrt(add(one, mul(a, a)))))));
    Tensor magnitude = where(large, logTwice, inner);
    return {where(less(x, scalar(0, t)), neg(magnitude), magnitude)};
  }
  if (type == "Acosh") // log(x + sqrt((x - 1)(x + 1)))
    return {where(large, logTwice, log(add(x, sqrt(mul(sub(x, one), add(x, one))))))};
  // Atanh: log1p(2x / (1 - x)) / 2, exact for small x.
  return {mul(log1p(div(add(x, x), sub(one, x))), scalar(0.5, t))};
}

Results castLike(NodeContext &node) { return {cast(node.input(0), node.input(1).dtype())}; }

//===----------------------------------------------------------------------===//
// More shapes
//===----------------------------------------------------------------------===//

Results range(NodeContext &node) {
  const Tensor &start = node.constantInput(0), &limit = node.constantInput(1),
               &delta = node.constantInput(2);
  DType dtype = start.dtype();
  auto value = [&](const Tensor &t) {
    if (t.numel() != 1)
      node.fail("takes scalars, not " + describe(t));
    return t.item<double>();
  };
  if (isFloat(dtype))
    return {arange(value(start), value(limit), value(delta), dtype)};
  value(start), value(limit), value(delta); // scalars; integers read exactly:
  return {arange(start.item<int64_t>(), limit.item<int64_t>(), delta.item<int64_t>(), dtype)};
}

Results split(NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t axis = normalizeAxis(node, node.attrInt("axis", 0), x.rank());
  int64_t size = knownDim(node, x, static_cast<int>(axis));
  std::vector<int64_t> sizes =
      node.opset() >= 13 ? (node.has(1) ? node.constantInts(1) : std::vector<int64_t>{})
                         : node.attrInts("split");
  int64_t outputs = node.node().output_size();
  if (sizes.empty()) {
    if (size % outputs != 0)
      node.fail("cannot split dim " + std::to_string(axis) + " of " + describe(x) + " into " +
                std::to_string(outputs) + " equal parts");
    sizes.assign(static_cast<size_t>(outputs), size / outputs);
  }
  if (static_cast<int64_t>(sizes.size()) != outputs ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != size)
    node.fail("the split sizes do not add up to dim " + std::to_string(axis) + " of " +
              describe(x));
  Results parts;
  int64_t at = 0;
  for (int64_t part : sizes) {
    std::vector<int64_t> start(x.rank(), 0), limit(x.rank(), kNone);
    start[axis] = at;
    limit[axis] = at + part;
    parts.push_back(slice(x, start, limit));
    at += part;
  }
  return parts;
}

Results tile(NodeContext &node) {
  Tensor x = node.input(0);
  std::vector<int64_t> repeats = node.constantInts(1);
  if (static_cast<int>(repeats.size()) != x.rank())
    node.fail("takes one repeat per dim of " + describe(x));
  for (int d = 0; d < x.rank(); ++d) {
    if (repeats[d] < 0)
      node.fail("a negative repeat");
    if (repeats[d] != 1)
      x = concat(std::vector<Tensor>(static_cast<size_t>(repeats[d]), x), d);
  }
  return {x};
}

/// x with `before` and `after` elements along dim d taken from its own
/// edge (mode "edge": the first and last repeated) or mirrored around it
/// (mode "reflect": numpy's, the edge itself not repeated, periodic where
/// the pads are longer than the dim): one gather of positions known now.
Tensor padFromItself(NodeContext &node, const Tensor &x, int d, int64_t before, int64_t after,
                     bool reflect) {
  if (!before && !after)
    return x;
  int64_t size = knownDim(node, x, d);
  if (size == 0)
    node.fail("cannot pad the empty dim " + std::to_string(d) + " of " + describe(x) +
              " from its own elements");
  std::vector<int64_t> positions;
  int64_t period = 2 * (size - 1);
  for (int64_t i = -before; i < size + after; ++i) {
    int64_t at = std::clamp<int64_t>(i, 0, size - 1);
    if (reflect && period > 0) {
      at = ((i % period) + period) % period;
      if (at >= size)
        at = period - at;
    }
    positions.push_back(at);
  }
  return gather(x, Tensor::from_vector(positions, Shape{static_cast<int64_t>(positions.size())}),
                d);
}

Results pad(NodeContext &node) {
  Tensor x = node.input(0);
  std::string mode = node.attrString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    node.unsupported("mode", mode);
  std::vector<int64_t> pads =
      node.opset() >= 11 ? node.constantInts(1) : node.attrInts("pads");
  double value = node.opset() >= 11 ? (node.has(2) ? node.constantInput(2).item<double>() : 0.0)
                                    : node.attrFloat("value", 0.f);
  // An integer pad value read exactly (int64 beyond 2^53 too).
  Scalar fill = !isFloat(x.dtype()) && node.opset() >= 11 && node.has(2)
                    ? Scalar(node.constantInput(2).item<int64_t>())
                    : Scalar(value);
  if (node.opset() >= 11 && node.has(3))
    node.fail("input 3 (axes) is not supported");
  int rank = x.rank();
  if (static_cast<int>(pads.size()) != 2 * rank)
    node.fail("takes 2 pads per dim of " + describe(x));
  for (int d = 0; d < rank; ++d) {
    if (pads[d] < 0 || pads[d + rank] < 0)
      node.fail("negative pads (cropping) are not supported");
    x = mode == "constant" ? padAlong(node, x, d, pads[d], pads[d + rank], fill)
                           : padFromItself(node, x, d, pads[d], pads[d + rank], mode == "reflect");
  }
  return {x};
}

/// DepthToSpace and SpaceToDepth (NCHW): reshapes and a transpose.
Results depthToSpace(NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t b = node.attrInt("blocksize", 0);
  std::string mode = node.attrString("mode", "DCR");
  if (x.rank() != 4 || b <= 0)
    node.fail("takes an NCHW tensor and a positive blocksize");
  int64_t n = knownDim(node, x, 0), c = knownDim(node, x, 1), h = knownDim(node, x, 2),
          w = knownDim(node, x, 3);
  if (c % (b * b))
    node.fail("the channels of " + describe(x) + " are not a multiple of blocksize^2");
  Tensor t = mode == "DCR" ? transpose(reshape(x, {n, b, b, c / (b * b), h, w}), {0, 3, 4, 1, 5, 2})
             : mode == "CRD"
                 ? transpose(reshape(x, {n, c / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3})
                 : (node.unsupported("mode", mode), x);
  return {reshape(t, {n, c / (b * b), h * b, w * b})};
}

Results spaceToDepth(NodeContext &node) {
  const Tensor &x = node.input(0);
  int64_t b = node.attrInt("blocksize", 0);
  if (x.rank() != 4 || b <= 0)
    node.fail("takes an NCHW tensor and a positive blocksize");
  int64_t n = knownDim(node, x, 0), c = knownDim(node, x, 1), h = knownDim(node, x, 2),
          w = knownDim(node, x, 3);
  if (h % b || w % b)
    node.fail("the height and width of " + describe(x) + " are not multiples of the blocksize");
  Tensor t = transpose(reshape(x, {n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
  return {reshape(t, {n, c * b * b, h / b, w / b})};
}

/// x with `axis` moved to the end, and back.
Tensor axisLast(const Tensor &x, int64_t axis) {
  std::vector<int64_t> perm;
  for (int d = 0; d < x.rank(); ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  return transpose(x, perm);
}

Tensor axisBack(const Tensor &x, int64_t axis) {
  std::vector<int64_t> perm;
  int last = x.rank() - 1;
  for (int d = 0, from = 0; d < x.rank(); ++d)
    perm.push_back(d == axis ? last : from++);
  return transpose(x, perm);
}

Results oneHot(NodeContext &node) {
  Tensor indices = node.input(0);
  const Tensor &depthInput = node.constantInput(1), &values = node.constantInput(2);
  if (depthInput.numel() != 1 || values.numel() != 2)
    node.fail("takes a scalar depth and two values (off, on)");
  int64_t depth = static_cast<int64_t>(depthInput.item<double>());
  std::vector<double> offOn = values.to_vector<double>();
  if (isFloat(indices.dtype()))
    indices = cast(indices, DType::Int64);
  // From opset 11, negative indices count from the end (before, they are
  // out of range: a row of `off`).
  if (node.opset() >= 11)
    indices = where(less(indices, scalar(0, indices.dtype())),
                    add(indices, scalar(static_cast<double>(depth), indices.dtype())), indices);
  Tensor y = nn::one_hot(indices, depth, values.dtype(), offOn[1], offOn[0]);
  int64_t axis = normalizeAxis(node, node.attrInt("axis", -1), y.rank());
  return {axis == y.rank() - 1 ? y : axisBack(y, axis)};
}

Results eyeLike(NodeContext &node) {
  const Tensor &x = node.input(0);
  if (x.rank() != 2)
    node.fail("takes a matrix, not " + describe(x));
  int64_t k = node.attrInt("k", 0);
  DType dtype = x.dtype();
  if (node.hasAttribute("dtype")) {
    std::optional<DType> given = dtypeOfElementType(static_cast<int32_t>(node.attrInt("dtype", 1)));
    if (!given)
      node.unsupported("dtype", elementTypeName(static_cast<int32_t>(node.attrInt("dtype", 1))));
    dtype = *given;
  }
  Tensor rows = iota_like(x, 0), cols = iota_like(x, 1);
  Tensor diagonal = equal(sub(cols, rows), int64Scalar(k));
  return {cast(diagonal, dtype)};
}

Results trilu(NodeContext &node) {
  const Tensor &x = node.input(0);
  if (x.rank() < 2)
    node.fail("takes tensors of rank 2 or more, not " + describe(x));
  int64_t k = node.has(1) ? node.constantInput(1).item<int64_t>() : 0;
  bool upper = node.attrInt("upper", 1) != 0;
  Tensor offset = sub(iota_like(x, x.rank() - 1), iota_like(x, x.rank() - 2));
  Tensor kept = upper ? greater_equal(offset, int64Scalar(k)) : less_equal(offset, int64Scalar(k));
  return {where(kept, x, zeros_like_scalar(x))};
}

Tensor resampled(NodeContext &node, Tensor x, const std::string &mode, const std::string &transform,
                 const std::string &rounding, bool excludeOutside, double a,
                 const std::vector<int64_t> &sizes, const std::vector<double> &scales);
Results upsample(NodeContext &node);

/// Resize (opsets 11 to 17; opset 10's is Upsample's), nearest, linear and
/// cubic: each axis whose size changes, one after the other (the modes are
/// separable), as a gather of each output position's neighbors along it
/// (for linear and cubic their weighted sum), the positions and
/// coefficients computed here as the ONNX reference computes them (edge
/// values past the ends).
Results resize(NodeContext &node) {
  if (node.opset() < 11)
    return upsample(node); // opset 10: Upsample's (scales as input 1)
  Tensor x = node.input(0);
  requireFloat(node, x);
  std::string mode = node.attrString("mode", "nearest");
  std::string transform = node.attrString("coordinate_transformation_mode", "half_pixel");
  std::string rounding = node.attrString("nearest_mode", "round_prefer_floor");
  bool excludeOutside = node.attrInt("exclude_outside", 0) != 0;
  double a = node.attrFloat("cubic_coeff_a", -0.75f);
  node.ignoreAttribute("extrapolation_value"); // tf_crop_and_resize only
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    node.unsupported("mode", mode);
  if (transform != "half_pixel" && transform != "pytorch_half_pixel" &&
      transform != "align_corners" && transform != "asymmetric" &&
      transform != "tf_half_pixel_for_nn")
    node.unsupported("coordinate_transformation_mode", transform);
  if (rounding != "round_prefer_floor" && rounding != "round_prefer_ceil" && rounding != "floor" &&
      rounding != "ceil")
    node.unsupported("nearest_mode", rounding);
  // tf_half_pixel_for_nn (opsets 11-12 only) puts a position of an
  // unchanged axis half-way: only nearest rounding down keeps it (others
  // differ between the spec and onnxruntime).
  if (transform == "tf_half_pixel_for_nn" &&
      (node.opset() >= 13 || mode != "nearest" ||
       (rounding != "round_prefer_floor" && rounding != "floor")))
    node.fail("coordinate_transformation_mode = tf_half_pixel_for_nn is supported before opset 13, "
              "with mode nearest rounding down (round_prefer_floor, floor) only");
  // Nearest outside the input excluded leaves no neighbor (NaN in the
  // reference): only linear and cubic take exclude_outside.
  if (excludeOutside && mode == "nearest")
    node.unsupported("exclude_outside", "1 with mode nearest");
  std::vector<int64_t> sizes;
  std::vector<double> scales;
  if (node.has(3))
    sizes = node.constantInts(3);
  if (sizes.empty() && node.has(2))
    scales = node.constantInput(2).to_vector<double>();
  return {resampled(node, x, mode, transform, rounding, excludeOutside, a, sizes, scales)};
}

/// Upsample (opsets 7 to 9) and Resize-10: nearest and linear, positions
/// j / scale (whole scales: nearest is then a repetition).
Results upsample(NodeContext &node) {
  Tensor x = node.input(0);
  requireFloat(node, x);
  std::string mode = node.attrString("mode", "nearest");
  if (mode != "nearest" && mode != "linear")
    node.unsupported("mode", mode);
  std::vector<double> scales;
  if (node.opset() < 9)
    for (float scale : node.attrFloats("scales"))
      scales.push_back(scale);
  else
    scales = node.constantInput(1).to_vector<double>();
  // Whole scales of 1 or more: Upsample's spec takes no less than 1, Resize-10
  // rounds a downsampling's positions up, and float and double sizes and
  // positions (ONNX's shape inference, onnxruntime, here) agree for these.
  for (double scale : scales)
    if (!(scale >= 1) || scale != std::floor(scale))
      node.fail("supports whole scales of 1 or more, not " + std::to_string(scale));
  return {resampled(node, x, mode, "asymmetric", "floor", false, -0.75, {}, scales)};
}

/// x resized to `sizes` or by `scales` (one of them empty), Resize's way.
Tensor resampled(NodeContext &node, Tensor x, const std::string &mode, const std::string &transform,
                 const std::string &rounding, bool excludeOutside, double a,
                 const std::vector<int64_t> &sizes, const std::vector<double> &scales) {
  int rank = x.rank();
  if (sizes.empty() == scales.empty())
    node.fail("takes either scales or sizes (one of them, not empty)");
  if (static_cast<int>(sizes.size() + scales.size()) != rank)
    node.fail("takes one scale or size per dim of " + describe(x));
  // The neighbors' offsets from the position's floor, and their coefficients
  // for a fraction r in (0, 1] (the reference's linear, nearest and cubic).
  std::vector<int64_t> offsets = mode == "cubic" ? std::vector<int64_t>{-1, 0, 1, 2}
                                                 : std::vector<int64_t>{0, 1};
  auto coefficients = [&](double r, bool whole) -> std::vector<double> {
    if (mode == "linear")
      return {1 - r, r};
    if (mode == "nearest") {
      bool up = whole || (rounding == "round_prefer_floor" ? r > 0.5
                          : rounding == "round_prefer_ceil" ? r >= 0.5
                                                            : rounding == "ceil");
      return {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
    }
    double p = r + 1, q = 1 - r, t = 2 - r;
    return {((a * p - 5 * a) * p + 8 * a) * p - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * q - (a + 3)) * q * q + 1, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a};
  };
  for (int d = 0; d < rank; ++d) {
    int64_t in = knownDim(node, x, d);
    int64_t out = sizes.empty() ? static_cast<int64_t>(std::floor(scales[d] * double(in))) : sizes[d];
    double scale = sizes.empty() ? scales[d] : double(out) / double(in);
    if (out < 0 || !(scale > 0) || in == 0)
      node.fail("cannot resize dim " + std::to_string(d) + " of " + describe(x));
    if (out == in && scale == 1)
      continue;
    double width = scale * double(in); // the reference's output width (not rounded)
    std::vector<std::vector<int64_t>> index(offsets.size());
    std::vector<std::vector<double>> weight(offsets.size());
    for (int64_t j = 0; j < out; ++j) {
      double at = transform == "align_corners"
                      ? (width == 1 ? 0 : double(j) * double(in - 1) / (width - 1))
                  : transform == "asymmetric"           ? double(j) / scale
                  : transform == "tf_half_pixel_for_nn" ? (double(j) + 0.5) / scale
                  : transform == "pytorch_half_pixel" && width == 1
                      ? -0.5
                      : (double(j) + 0.5) / scale - 0.5;
      // A whole position counts as the end of the interval before it (the
      // reference's ratio 1), whose nearest neighbors, ties to the smaller,
      // are the same.
      double floor = std::floor(at);
      bool whole = at == floor;
      int64_t base = static_cast<int64_t>(floor) - (whole ? 1 : 0);
      std::vector<double> c = coefficients(whole ? 1.0 : at - floor, whole);
      if (excludeOutside) {
        double sum = 0;
        for (size_t n = 0; n < offsets.size(); ++n) {
          int64_t i = base + offsets[n];
          if (i < 0 || i >= in)
            c[n] = 0;
          sum += c[n];
        }
        for (double &v : c)
          v = sum != 0 ? v / sum : v;
      }
      for (size_t n = 0; n < offsets.size(); ++n) {
        index[n].push_back(std::clamp<int64_t>(base + offsets[n], 0, in - 1)); // edge values
        weight[n].push_back(c[n]);
      }
    }
    if (mode == "nearest") { // the neighbor of coefficient 1, gathered exactly
      std::vector<int64_t> chosen;
      for (int64_t j = 0; j < out; ++j)
        chosen.push_back(weight[1][j] == 1 ? index[1][j] : index[0][j]);
      x = gather(x, Tensor::from_vector(chosen, {out}), d);
      continue;
    }
    std::vector<int64_t> along(static_cast<size_t>(rank), 1);
    along[d] = out;
    Shape weightShape{std::span<const int64_t>(along)};
    Tensor sum;
    for (size_t n = 0; n < offsets.size(); ++n) {
      Tensor term = mul(gather(x, Tensor::from_vector(index[n], {out}), d),
                        Tensor::from_vector(weight[n], weightShape, x.dtype()));
      sum = sum.defined() ? add(sum, term) : term;
    }
    x = sum;
  }
  return x;
}

/// CumSum: running sums along an axis by doubling steps (x plus x shifted
/// by 1, 2, 4, ... along it: log2(n) adds), exclusive (shifted by one
/// first) and reverse as the attributes say.
Results cumulativeSum(NodeContext &node) {
  Tensor x = node.input(0);
  if (x.dtype() == DType::Bool)
    node.fail("takes numbers, not " + describe(x));
  const Tensor &axisInput = node.constantInput(1);
  if (axisInput.numel() != 1)
    node.fail("takes a scalar axis, not " + describe(axisInput));
  int d = static_cast<int>(normalizeAxis(node, axisInput.item<int64_t>(), x.rank()));
  bool exclusive = node.attrInt("exclusive", 0) != 0, reverse = node.attrInt("reverse", 0) != 0;
  int64_t n = knownDim(node, x, d);
  if (n == 0)
    return {x};
  if (reverse)
    x = reversedAlong(node, x, d);
  auto shifted = [&](const Tensor &t, int64_t by) { // t moved `by` along d, zeros first
    std::vector<int64_t> start(t.rank(), 0), limit(t.rank(), kNone);
    limit[d] = n - by;
    return concat({slabLike(node, t, d, by, Scalar(0)), slice(t, start, limit)}, d);
  };
  if (exclusive)
    x = shifted(x, 1);
  for (int64_t by = 1; by < n; by *= 2)
    x = add(x, shifted(x, by));
  return {reverse ? reversedAlong(node, x, d) : x};
}

/// Einsum of one or two operands, each letter at most once a term (no
/// diagonals, no ellipsis): letters one operand alone has and the output
/// has not are summed first; then the two operands' letters sort into
/// batch (both and the output), contracted (both, not the output), left and
/// right (one and the output), and one batched matmul computes the rest,
/// transposed to the output's order.
Results einsum(NodeContext &node) {
  std::string equation;
  for (char c : node.attrString("equation", ""))
    if (c != ' ')
      equation += c;
  if (equation.find("...") != std::string::npos)
    node.unsupported("equation", "'" + equation + "' (an ellipsis)");
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t at = 0;;) {
    size_t comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  if (static_cast<int>(terms.size()) != node.inputCount() || terms.size() > 2)
    node.fail("equation '" + equation + "' takes " + std::to_string(terms.size()) +
              " operands (one or two are supported), the node has " +
              std::to_string(node.inputCount()));
  std::map<char, int64_t> sizes;
  std::map<char, int> uses;
  std::vector<Tensor> operands;
  for (size_t t = 0; t < terms.size(); ++t) {
    const Tensor &x = node.input(static_cast<int>(t));
    requireFloat(node, x);
    if (static_cast<int>(terms[t].size()) != x.rank())
      node.fail("term '" + terms[t] + "' does not name each dim of " + describe(x));
    for (size_t d = 0; d < terms[t].size(); ++d) {
      char c = terms[t][d];
      if (!std::isalpha(static_cast<unsigned char>(c)))
        node.fail("equation '" + equation + "' is not letters, commas and ->");
      if (terms[t].find(c) != d)
        node.unsupported("equation", "'" + equation + "' (a letter twice in a term: a diagonal)");
      int64_t size = knownDim(node, x, static_cast<int>(d));
      if (sizes.count(c) && sizes[c] != size)
        node.fail("letter " + std::string(1, c) + " has sizes " + std::to_string(sizes[c]) +
                  " and " + std::to_string(size));
      sizes[c] = size;
      ++uses[c];
    }
    operands.push_back(x);
  }
  std::string out;
  if (arrow == std::string::npos) { // implicit: the letters used once, in order
    for (const auto &[c, n] : uses)
      if (n == 1)
        out += c;
  } else {
    out = equation.substr(arrow + 2);
    for (size_t i = 0; i < out.size(); ++i)
      if (!sizes.count(out[i]) || out.find(out[i]) != i)
        node.fail("output '" + out + "' names a letter no operand has, or one twice");
  }
  auto has = [](const std::string &term, char c) { return term.find(c) != std::string::npos; };
  // Letters of one operand only, not in the output: summed there first.
  for (size_t t = 0; t < terms.size(); ++t) {
    std::vector<int64_t> axes;
    std::string kept;
    for (size_t d = 0; d < terms[t].size(); ++d) {
      char c = terms[t][d];
      bool elsewhere = terms.size() == 2 && has(terms[1 - t], c);
      if (!has(out, c) && !elsewhere)
        axes.push_back(static_cast<int64_t>(d));
      else
        kept += c;
    }
    if (!axes.empty()) {
      operands[t] = reduce_sum(operands[t], axes);
      terms[t] = kept;
    }
  }
  auto permutation = [](const std::string &from, const std::string &to) {
    std::vector<int64_t> perm;
    for (char c : to)
      perm.push_back(static_cast<int64_t>(from.find(c)));
    return perm;
  };
  auto product = [&](const std::string &letters) {
    int64_t n = 1;
    for (char c : letters)
      n *= sizes[c];
    return n;
  };
  if (terms.size() == 1)
    return {transpose(operands[0], permutation(terms[0], out))};
  std::string batch, contracted, left, right;
  for (char c : terms[0])
    (has(terms[1], c) ? (has(out, c) ? batch : contracted) : left) += c;
  for (char c : terms[1])
    if (!has(terms[0], c))
      right += c;
  Tensor a = reshape(transpose(operands[0], permutation(terms[0], batch + left + contracted)),
                     {product(batch), product(left), product(contracted)});
  Tensor b = reshape(transpose(operands[1], permutation(terms[1], batch + contracted + right)),
                     {product(batch), product(contracted), product(right)});
  std::string produced = batch + left + right;
  std::vector<int64_t> shape;
  for (char c : produced)
    shape.push_back(sizes[c]);
  Tensor y = reshape(matmul(a, b), shape);
  return {transpose(y, permutation(produced, out))};
}

//===----------------------------------------------------------------------===//
// More neural-network ops
//===----------------------------------------------------------------------===//

Results hardmax(NodeContext &node) {
  return alongAxisByOpset(node, [&](const Tensor &t, int64_t axis) {
    Tensor last = axisLast(t, axis);
    Tensor y = nn::one_hot(argmax(last, last.rank() - 1), knownDim(node, last, last.rank() - 1),
                           t.dtype());
    return axisBack(y, axis);
  });
}

Results layerNormalization(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  int64_t axis = normalizeAxis(node, node.attrInt("axis", -1), x.rank());
  double epsilon = node.attrFloat("epsilon", 1e-5f);
  // Mean and InvStdDev are computed in (and typed) stash_type, float32 by
  // default, whatever x's dtype; Y is x's.
  int64_t stash = node.attrInt("stash_type", 1);
  std::optional<DType> stashType = dtypeOfElementType(static_cast<int32_t>(stash));
  if (!stashType || !isFloat(*stashType))
    node.unsupported("stash_type", std::to_string(stash));
  DType u = *stashType;
  Tensor xu = cast(x, u);
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < x.rank(); ++d)
    axes.push_back(d);
  Moments m = momentsOf(xu, axes);
  Tensor inverse = rsqrt(add(m.variance, scalar(epsilon, u)));
  Tensor y = mul(mul(m.centered, inverse), cast(node.input(1), u));
  if (node.has(2))
    y = add(y, cast(node.input(2), u));
  return {cast(y, x.dtype()), m.mean, inverse};
}

/// InstanceNormalization: each (sample, channel) normalized over its
/// spatial dims, then scaled and shifted per channel.
Results instanceNormalization(NodeContext &node) {
  const Tensor &given = node.input(0);
  requireFloat(node, given);
  if (given.rank() < 3)
    node.fail("takes inputs [N, C, D1, ...], not " + describe(given));
  double epsilon = node.attrFloat("epsilon", 1e-5f);
  // 16-bit floats computed in float32, as LayerNormalization's stash_type.
  DType compute = given.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  Tensor x = cast(given, compute);
  std::vector<int64_t> spatial, perChannel = {-1};
  for (int d = 2; d < x.rank(); ++d) {
    spatial.push_back(d);
    perChannel.push_back(1);
  }
  Moments m = momentsOf(x, spatial);
  Tensor scale = reshape(cast(node.input(1), compute), perChannel),
         bias = reshape(cast(node.input(2), compute), perChannel);
  Tensor y =
      add(mul(mul(m.centered, rsqrt(add(m.variance, scalar(epsilon, compute)))), scale), bias);
  return {cast(y, given.dtype())};
}

//===----------------------------------------------------------------------===//
// Recurrent layers (RNN, GRU, LSTM), unrolled over their known time steps
//===----------------------------------------------------------------------===//

/// A recurrent layer's activation by its ONNX name, with the alpha and beta
/// of those that take them (consumed in order from activation_alpha and
/// activation_beta where given, else ONNX's defaults).
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

std::vector<Activation> activationsOf(NodeContext &node, std::vector<std::string> defaults,
                                      int directions) {
  std::vector<std::string> names = node.attrStrings("activations");
  size_t perDirection = defaults.size();
  if (names.empty())
    for (int d = 0; d < directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() != perDirection * static_cast<size_t>(directions))
    node.fail("takes " + std::to_string(perDirection * directions) + " activations, not " +
              std::to_string(names.size()));
  std::vector<float> alphas = node.attrFloats("activation_alpha"),
                     betas = node.attrFloats("activation_beta");
  bool alphasGiven = node.hasAttribute("activation_alpha"),
       betasGiven = node.hasAttribute("activation_beta");
  size_t nextAlpha = 0, nextBeta = 0;
  auto take = [&](bool given, const std::vector<float> &values, size_t &next, double otherwise,
                  const char *list) -> double {
    if (!given)
      return otherwise;
    if (next >= values.size())
      node.fail(std::string("has too few values in ") + list + " for its activations");
    return values[next++];
  };
  std::vector<Activation> activations;
  for (const std::string &name : names) {
    Activation f{name};
    if (name == "Affine" || name == "ScaledTanh") {
      f.alpha = take(alphasGiven, alphas, nextAlpha, 1.0, "activation_alpha");
      f.beta = take(betasGiven, betas, nextBeta, name == "Affine" ? 0.0 : 1.0, "activation_beta");
    } else if (name == "HardSigmoid") {
      f.alpha = take(alphasGiven, alphas, nextAlpha, 0.2, "activation_alpha");
      f.beta = take(betasGiven, betas, nextBeta, 0.5, "activation_beta");
    } else if (name == "LeakyRelu") {
      f.alpha = take(alphasGiven, alphas, nextAlpha, 0.01, "activation_alpha");
    } else if (name == "ThresholdedRelu" || name == "Elu") {
      f.alpha = take(alphasGiven, alphas, nextAlpha, 1.0, "activation_alpha");
    } else if (name != "Relu" && name != "Tanh" && name != "Sigmoid" && name != "Softsign" &&
               name != "Softplus") {
      node.unsupported("activations", name);
    }
    activations.push_back(f);
  }
  if (nextAlpha != alphas.size() || nextBeta != betas.size())
    node.fail("has more activation_alpha or activation_beta values than its activations take");
  return activations;
}

Tensor activate(const Activation &f, const Tensor &x) {
  Tensor zero = scalar(0, x.dtype()), one = scalar(1, x.dtype());
  auto times = [&](double factor, const Tensor &t) { return mul(t, scalar(factor, x.dtype())); };
  if (f.name == "Relu")
    return relu(x);
  if (f.name == "Tanh")
    return tanh(x);
  if (f.name == "Sigmoid")
    return sigmoid(x);
  if (f.name == "Affine")
    return add(times(f.alpha, x), scalar(f.beta, x.dtype()));
  if (f.name == "ScaledTanh")
    return times(f.alpha, tanh(times(f.beta, x)));
  if (f.name == "HardSigmoid")
    return maximum(minimum(add(times(f.alpha, x), scalar(f.beta, x.dtype())), one), zero);
  if (f.name == "LeakyRelu")
    return where(less(x, zero), times(f.alpha, x), x);
  if (f.name == "ThresholdedRelu")
    return where(greater(x, scalar(f.alpha, x.dtype())), x, zero);
  if (f.name == "Elu")
    return where(less(x, zero), times(f.alpha, sub(exp(x), one)), x);
  if (f.name == "Softsign")
    return div(x, add(one, abs(x)));
  // Softplus: max(x, 0) + log(1 + e^-|x|), without overflow.
  return add(maximum(x, zero), log1p(exp(neg(abs(x)))));
}

enum class Cell { RNN, GRU, LSTM };

/// RNN, GRU and LSTM (opsets 7 to 17): each direction's input projection
/// for all steps as one matmul, then one step per time step (the sequence
/// length must be known while compiling); sequence_lens masks each
/// sequence's steps past its length (outputs 0 there, the state kept; the
/// reverse direction starts at each sequence's own end).
template <Cell cell> Results recurrent(NodeContext &node) {
  const int gates = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
  std::string direction = node.attrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    node.unsupported("direction", direction);
  const int directions = direction == "bidirectional" ? 2 : 1;
  int64_t layout = node.opset() >= 14 ? node.attrInt("layout", 0) : 0;
  if (layout != 0 && layout != 1)
    node.unsupported("layout", std::to_string(layout));
  if (node.hasAttribute("clip"))
    node.unsupported("clip", std::to_string(node.attrFloat("clip", 0))); // where it applies differs
  bool linearBeforeReset = cell == Cell::GRU && node.attrInt("linear_before_reset", 0) != 0;
  if (cell == Cell::LSTM && node.attrInt("input_forget", 0) != 0)
    node.unsupported("input_forget", "1");
  std::vector<Activation> activations =
      activationsOf(node,
                    cell == Cell::RNN   ? std::vector<std::string>{"Tanh"}
                    : cell == Cell::GRU ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                        : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"},
                    directions);
  const size_t perDirection = activations.size() / static_cast<size_t>(directions);

  Tensor x = node.input(0); // [T, B, I] (layout 1: [B, T, I])
  requireFloat(node, x);
  if (x.rank() != 3)
    node.fail("takes X of rank 3, not " + describe(x));
  if (layout == 1)
    x = transpose(x, {1, 0, 2});
  const Tensor &w = node.input(1), &r = node.input(2);
  int64_t hidden = node.hasAttribute("hidden_size") ? node.attrInt("hidden_size", 0)
                   : r.rank() == 3                  ? knownDim(node, r, 2)
                                                    : 0;
  int64_t steps = knownDim(node, x, 0), features = knownDim(node, x, 2);
  auto requireShape = [&](const Tensor &t, std::vector<int64_t> shape, const char *what) {
    bool same = t.rank() == static_cast<int>(shape.size());
    for (int d = 0; same && d < t.rank(); ++d)
      same = t.shape()[d] == shape[d] || (shape[d] == kNone);
    if (!same)
      node.fail(std::string("takes ") + what + " of shape " + Shape::str(shape) + ", not " +
                describe(t));
  };
  requireShape(w, {directions, gates * hidden, features}, "W");
  requireShape(r, {directions, gates * hidden, hidden}, "R");
  if (node.has(3))
    requireShape(node.input(3), {directions, 2 * gates * hidden}, "B");
  std::optional<Tensor> lengths;
  if (node.has(4)) {
    if (node.input(4).rank() != 1)
      node.fail("takes sequence_lens of rank 1, not " + describe(node.input(4)));
    lengths = reshape(checkedLengths(cast(node.input(4), DType::Int64), steps), {-1, 1}); // [B, 1]
  }
  // Direction d's part of t (along `axis`), reshaped to `shape`.
  auto ofDirection = [&](const Tensor &t, int d, std::vector<int64_t> shape, int axis = 0) {
    std::vector<int64_t> start(static_cast<size_t>(t.rank()), 0), limit(start.size(), kNone);
    start[axis] = d;
    limit[axis] = d + 1;
    return reshape(slice(t, start, limit), shape);
  };
  // An initial state: given as [D, B, H] ([B, D, H] in layout 1), else 0.
  auto initial = [&](int i, int d, const Tensor &like) {
    if (!node.has(i))
      return slabLike(node, like, 1, hidden, Scalar(0)); // [B, H] zeros, any batch
    if (node.input(i).rank() != 3)
      node.fail("takes input " + std::to_string(i) + " of rank 3, not " + describe(node.input(i)));
    return ofDirection(node.input(i), d, {-1, hidden}, layout == 1 ? 1 : 0);
  };
  auto columns = [&](const Tensor &t, int64_t gate) { // gate `gate` of [B, G*H]
    return slice(t, {0, gate * hidden}, {kNone, (gate + 1) * hidden});
  };

  std::vector<Tensor> ys, lastH, lastC;
  for (int d = 0; d < directions; ++d) {
    bool backward = direction == "reverse" || d == 1;
    const Activation *f = &activations[d * perDirection];
    Tensor input = !backward ? x
                   : lengths ? reversedSequences(node, x, reshape(*lengths, {-1}), 0, 1)
                             : reversedAlong(node, x, 0);
    Tensor wT = transpose(ofDirection(w, d, {gates * hidden, features}), {1, 0});
    Tensor rT = transpose(ofDirection(r, d, {gates * hidden, hidden}), {1, 0}); // [H, G*H]
    // X W^T (+ Wb) for every step at once: [T, B, G*H].
    Tensor projected =
        reshape(matmul(reshape(input, {-1, features}), wT), {steps, -1, gates * hidden});
    std::optional<Tensor> recurrentBias; // Wb is added to the projection here
    if (node.has(3)) {
      Tensor b = ofDirection(node.input(3), d, {2 * gates * hidden});
      projected = add(projected, slice(b, {0}, {gates * hidden}));
      recurrentBias = slice(b, {gates * hidden}, {2 * gates * hidden});
    }
    Tensor first = reshape(slice(projected, {0, 0, 0}, {1, kNone, kNone}), {-1, gates * hidden});
    Tensor h = initial(5, d, first), c;
    if (cell == Cell::LSTM)
      c = initial(6, d, first);
    std::optional<Tensor> peepholes;
    if (cell == Cell::LSTM && node.has(7)) {
      requireShape(node.input(7), {directions, 3 * hidden}, "P");
      peepholes = ofDirection(node.input(7), d, {3 * hidden});
    }
    auto peephole = [&](int k) { return slice(*peepholes, {k * hidden}, {(k + 1) * hidden}); };
    std::vector<Tensor> outputs;
    for (int64_t t = 0; t < steps; ++t) {
      Tensor xt = reshape(slice(projected, {t, 0, 0}, {t + 1, kNone, kNone}), {-1, gates * hidden});
      Tensor hr = matmul(h, rT); // H R^T: [B, G*H]
      if (recurrentBias)
        hr = add(hr, *recurrentBias);
      Tensor next, nextC;
      if (cell == Cell::RNN) {
        next = activate(f[0], add(xt, hr));
      } else if (cell == Cell::GRU) { // gates z, r, h
        Tensor z = activate(f[0], add(columns(xt, 0), columns(hr, 0)));
        Tensor reset = activate(f[0], add(columns(xt, 1), columns(hr, 1)));
        Tensor candidate;
        if (linearBeforeReset) {
          candidate = add(columns(xt, 2), mul(reset, columns(hr, 2)));
        } else {
          Tensor rhT = slice(rT, {0, 2 * hidden}, {kNone, 3 * hidden});
          candidate = add(columns(xt, 2), matmul(mul(reset, h), rhT));
          if (recurrentBias)
            candidate = add(candidate, slice(*recurrentBias, {2 * hidden}, {3 * hidden}));
        }
        Tensor hh = activate(f[1], candidate);
        next = add(mul(sub(scalar(1, z.dtype()), z), hh), mul(z, h));
      } else { // gates i, o, f, c; peepholes i, o, f
        Tensor all = add(xt, hr);
        Tensor gi = columns(all, 0), go = columns(all, 1), gf = columns(all, 2);
        if (peepholes) {
          gi = add(gi, mul(peephole(0), c));
          gf = add(gf, mul(peephole(2), c));
        }
        Tensor i = activate(f[0], gi), forget = activate(f[0], gf);
        nextC = add(mul(forget, c), mul(i, activate(f[1], columns(all, 3))));
        if (peepholes)
          go = add(go, mul(peephole(1), nextC));
        next = mul(activate(f[0], go), activate(f[2], nextC));
      }
      if (lengths) { // past a sequence's length: output 0, the state kept
        Tensor running = less(int64Scalar(t), *lengths); // [B, 1]
        outputs.push_back(where(running, next, scalar(0, next.dtype())));
        h = where(running, next, h);
        if (cell == Cell::LSTM)
          c = where(running, nextC, c);
      } else {
        outputs.push_back(next);
        h = next;
        c = nextC;
      }
    }
    std::vector<Tensor> stacked;
    for (const Tensor &y : outputs)
      stacked.push_back(reshape(y, {1, 1, -1, hidden}));
    Tensor y = concat(stacked, 0); // [T, 1, B, H]
    if (backward)
      y = lengths ? reversedSequences(node, y, reshape(*lengths, {-1}), 0, 2)
                  : reversedAlong(node, y, 0);
    ys.push_back(y);
    lastH.push_back(reshape(h, {1, -1, hidden}));
    if (cell == Cell::LSTM)
      lastC.push_back(reshape(c, {1, -1, hidden}));
  }
  Tensor y = directions == 1 ? ys[0] : concat(ys, 1);        // [T, D, B, H]
  Tensor yh = directions == 1 ? lastH[0] : concat(lastH, 0); // [D, B, H]
  if (layout == 1) {
    y = transpose(y, {2, 0, 1, 3}); // [B, T, D, H]
    yh = transpose(yh, {1, 0, 2});  // [B, D, H]
  }
  Results results = {y, yh};
  if (cell == Cell::LSTM) {
    Tensor yc = directions == 1 ? lastC[0] : concat(lastC, 0);
    results.push_back(layout == 1 ? transpose(yc, {1, 0, 2}) : yc);
  }
  return results;
}

Results meanVarianceNormalization(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  Moments m = momentsOf(x, node.attrInts("axes", {0, 2, 3}));
  return {div(m.centered, add(sqrt(m.variance), scalar(1e-9, x.dtype())))};
}

Results lpNormalization(NodeContext &node) {
  const Tensor &x = node.input(0);
  requireFloat(node, x);
  int64_t axis = normalizeAxis(node, node.attrInt("axis", -1), x.rank());
  int64_t p = node.attrInt("p", 2);
  if (p != 1 && p != 2)
    node.unsupported("p", std::to_string(p));
  Tensor norm = p == 1 ? reduce_sum(abs(x), {axis}, true) : sqrt(reduce_sum(mul(x, x), {axis}, true));
  return {div(x, norm)};
}

/// NegativeLogLikelihoodLoss on log-probabilities [N, C, d...] and targets
/// [N, d...]: -logp[n, target, d...] times the target's weight; targets
/// equal to ignore_index count nothing. Reduced as ONNX says: none, sum, or
/// mean (divided by the weights of the counted targets).
Tensor negativeLogLikelihood(NodeContext &node, const Tensor &logp, const Tensor &target,
                             const Tensor *weight) {
  std::string reduction = node.attrString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    node.unsupported("reduction", reduction);
  bool ignoring = node.hasAttribute("ignore_index");
  int64_t ignore = node.attrInt("ignore_index", 0);
  if (logp.rank() < 2)
    node.fail("takes inputs [N, C, ...], not " + describe(logp));
  int64_t classes = knownDim(node, logp, 1);
  Tensor labels = cast(target, DType::Int64);
  Tensor counted = ignoring ? not_equal(labels, int64Scalar(ignore)) : equal(labels, labels);
  // An ignored target picks class 0 (its weight is then 0); any other
  // outside [0, C) is an error where the model runs (a checked gather of
  // the classes' numbers, negative ones sent past the end).
  Tensor zero = int64Scalar(0);
  Tensor safe = where(counted, labels, zero);
  safe = gather(arange(int64_t(0), classes, int64_t(1), DType::Int64),
                where(less(safe, zero), int64Scalar(classes), safe));
  // The target's log-probability selected, not multiplied out: the other
  // classes' may be -inf (masked logits), and 0 * -inf is NaN.
  Tensor chosen = cast(axisBack(nn::one_hot(safe, classes, DType::Int32), 1), DType::Bool);
  Tensor picked = reduce_sum(where(chosen, logp, scalar(0, logp.dtype())), {1});
  Tensor w = cast(counted, logp.dtype());
  if (weight)
    w = mul(w, gather(*weight, safe));
  Tensor loss = where(counted, neg(mul(picked, w)), scalar(0, logp.dtype()));
  if (reduction == "none")
    return loss;
  Tensor total = reduce_sum(loss);
  return reduction == "sum" ? total : div(total, reduce_sum(w));
}

Results nllLoss(NodeContext &node) {
  const Tensor &logp = node.input(0);
  requireFloat(node, logp);
  return {negativeLogLikelihood(node, logp, node.input(1), node.has(2) ? &node.input(2) : nullptr)};
}

Results softmaxCrossEntropyLoss(NodeContext &node) {
  const Tensor &scores = node.input(0);
  requireFloat(node, scores);
  Tensor logp = nn::log_softmax(scores, 1);
  return {negativeLogLikelihood(node, logp, node.input(1), node.has(2) ? &node.input(2) : nullptr),
          logp};
}

const std::map<std::string, Operator> &operators() {
  static const std::map<std::string, Operator> table = {
      {"Abs", unary<abs>},
      {"Acos", floatUnary<acos>},
      {"Acosh", inverseHyperbolic},
      {"Add", binary<add>},
      {"And", binary<logical_and>},
      {"ArgMax", argExtreme<true>},
      {"ArgMin", argExtreme<false>},
      {"Asin", floatUnary<asin>},
      {"Asinh", inverseHyperbolic},
      {"Atan", floatUnary<atan>},
      {"Atanh", inverseHyperbolic},
      {"AveragePool", oneOrTwoD<pooling<false>, 1>},
      {"BatchNormalization", batchNormalization},
      {"Cast", castTo},
      {"CastLike", castLike},
      {"Ceil", rounding<true>},
      {"Celu", celu},
      {"Clip", clip},
      {"Concat", concatenate},
      {"Constant", constant},
      {"ConstantOfShape", constantOfShape},
      {"Conv", oneOrTwoD<convolution, 2>},
      {"ConvTranspose", oneOrTwoD<transposedConvolution, 2>},
      {"Cos", floatUnary<cos>},
      {"Cosh", hyperbolic<true>},
      {"CumSum", cumulativeSum},
      {"DepthToSpace", depthToSpace},
      {"Div", divide},
      {"Dropout", dropout},
      {"Einsum", einsum},
      {"Elu", elu},
      {"Equal", binary<equal>},
      {"Erf", floatUnary<erf>},
      {"Exp", floatUnary<exp>},
      {"Expand", expand},
      {"EyeLike", eyeLike},
      {"Flatten", flatten},
      {"Floor", rounding<false>},
      {"GRU", recurrent<Cell::GRU>},
      {"Gather", gatherAlong},
      {"GatherElements", gatherElements},
      {"GatherND", gatherND},
      {"Scatter", scatterElements},
      {"ScatterElements", scatterElements},
      {"ScatterND", scatterND},
      {"TopK", topK},
      {"MaxUnpool", maxUnpool},
      {"Gemm", gemm},
      {"GlobalAveragePool", globalPooling<false>},
      {"GlobalMaxPool", globalPooling<true>},
      {"Greater", binary<greater>},
      {"GreaterOrEqual", binary<greater_equal>},
      {"HardSigmoid", hardSigmoid},
      {"HardSwish", hardSwish},
      {"Hardmax", hardmax},
      {"Identity", identity},
      {"InstanceNormalization", instanceNormalization},
      {"IsInf", isInf},
      {"IsNaN", isNan},
      {"LRN", localResponseNormalization},
      {"LSTM", recurrent<Cell::LSTM>},
      {"LayerNormalization", layerNormalization},
      {"LeakyRelu", leakyRelu},
      {"Less", binary<less>},
      {"LessOrEqual", binary<less_equal>},
      {"Log", floatUnary<log>},
      {"LogSoftmax", softmaxOf<true>},
      {"LpNormalization", lpNormalization},
      {"MatMul", matrixProduct},
      {"Max", variadic<maximum>},
      {"MaxPool", oneOrTwoD<pooling<true>, 1>},
      {"Mean", variadic<add, true>},
      {"MeanVarianceNormalization", meanVarianceNormalization},
      {"Min", variadic<minimum>},
      {"Mod", modulo},
      {"Mul", binary<mul>},
      {"Neg", unary<neg>},
      {"NegativeLogLikelihoodLoss", nllLoss},
      {"Not", logicalNot},
      {"OneHot", oneHot},
      {"Or", binary<logical_or>},
      {"PRelu", parametricRelu},
      {"Pad", pad},
      {"Pow", power},
      {"RNN", recurrent<Cell::RNN>},
      {"Range", range},
      {"Reciprocal", reciprocal},
      {"ReduceL1", reduce<Reduction::L1>},
      {"ReduceL2", reduce<Reduction::L2>},
      {"ReduceLogSum", reduce<Reduction::LogSum>},
      {"ReduceLogSumExp", reduce<Reduction::LogSumExp>},
      {"ReduceMax", reduce<Reduction::Max>},
      {"ReduceMean", reduce<Reduction::Mean>},
      {"ReduceMin", reduce<Reduction::Min>},
      {"ReduceProd", reduce<Reduction::Prod>},
      {"ReduceSum", reduce<Reduction::Sum>},
      {"ReduceSumSquare", reduce<Reduction::SumSquare>},
      {"Relu", floatUnary<relu>},
      {"Reshape", reshapeTo},
      {"Resize", resize},
      {"ReverseSequence", reverseSequence},
      {"Round", roundHalfToEven},
      {"Selu", selu},
      {"Shape", shapeOf},
      {"Shrink", shrink},
      {"Sigmoid", floatUnary<sigmoid>},
      {"Sign", unary<sign>},
      {"Sin", floatUnary<sin>},
      {"Sinh", hyperbolic<false>},
      {"Size", sizeOf},
      {"Slice", sliceOf},
      {"Softmax", softmaxOf<false>},
      {"SoftmaxCrossEntropyLoss", softmaxCrossEntropyLoss},
      {"Softplus", softplus},
      {"Softsign", softsign},
      {"SpaceToDepth", spaceToDepth},
      {"Split", split},
      {"Sqrt", floatUnary<sqrt>},
      {"Squeeze", squeeze},
      {"Sub", binary<sub>},
      {"Sum", variadic<add>},
      {"Tan", tangent},
      {"Tanh", floatUnary<tanh>},
      {"ThresholdedRelu", thresholdedRelu},
      {"Tile", tile},
      {"Transpose", transposeBy},
      {"Trilu", trilu},
      {"Unsqueeze", unsqueeze},
      {"Upsample", upsample},
      {"Where", select},
      {"Xor", logicalXor},
  };
  return table;
}

} // namespace

Operator ember::onnx::detail::operatorFor(const std::string &opType) {
  auto found = operators().find(opType);
  return found == operators().end() ? nullptr : found->second;
}
