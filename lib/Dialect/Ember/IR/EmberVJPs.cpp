//===- EmberVJPs.cpp - the vector-Jacobian product of every ember op -------===//
//
// One buildVJP per op: given the cotangents of the op's results, the
// cotangents of its operands, written with ember ops so that the backward
// function is optimized, fused and lowered like any other. Integer values,
// indices and conditions get no cotangent (null). Forward values are reused:
// exp, tanh, sigmoid, sqrt and rsqrt differentiate through their own result.
//
//===----------------------------------------------------------------------===//

#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::ember;

namespace {

bool isFloatTensor(Value v) {
  return isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType());
}

} // namespace

Value mlir::ember::broadcastLike(OpBuilder &b, Location loc, Value x, RankedTensorType type,
                                 Value like) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, like, d));
  return BroadcastToOp::create(b, loc, type, x, sizes);
}

Value mlir::ember::splatLike(OpBuilder &b, Location loc, Value like, double value) {
  auto type = cast<RankedTensorType>(like.getType());
  Attribute element = b.getFloatAttr(type.getElementType(), value);
  if (type.hasStaticShape())
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, element));
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  Value scalar = ConstantOp::create(b, loc, DenseElementsAttr::get(scalarType, element));
  return broadcastLike(b, loc, scalar, type, like);
}

namespace {

/// Builds ember ops at one location; small helpers keep each rule one line.
struct Grad {
  OpBuilder &b;
  Location loc;

  Value splat(Value like, double value) { return splatLike(b, loc, like, value); }
  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
  Value neg(Value x) { return NegOp::create(b, loc, x); }
  Value exp(Value x) { return ExpOp::create(b, loc, x); }
  Value scale(Value x, double factor) { return mul(x, splat(x, factor)); }
  Value compare(ComparisonDirection d, Value x, Value y) { return CompareOp::create(b, loc, d, x, y); }
  /// g where `condition`, else 0.
  Value where(Value condition, Value g) { return SelectOp::create(b, loc, condition, g, splat(g, 0)); }
  Value castTo(Value x, Type elementType) {
    auto type = cast<RankedTensorType>(x.getType());
    return CastOp::create(b, loc, RankedTensorType::get(type.getShape(), elementType), x);
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(x.getType());
    return ReshapeOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), x);
  }
  Value broadcast(Value x, RankedTensorType type) { return BroadcastToOp::create(b, loc, type, x); }
  Value i64Scalar(int64_t value) {
    auto type = RankedTensorType::get({}, b.getI64Type());
    return ConstantOp::create(b, loc, DenseElementsAttr::get(type, b.getI64IntegerAttr(value)));
  }
  /// x's size along dim `d` as an i64 scalar: read at run time for a `?`.
  Value sizeAlong(Value x, int64_t d) {
    auto type = cast<RankedTensorType>(x.getType());
    if (!type.isDynamicDim(d))
      return i64Scalar(type.getDimSize(d));
    Value sizes = ShapeOfOp::create(b, loc, x);
    return reshape(SliceOp::create(b, loc, sizes, ArrayRef<int64_t>{d}, ArrayRef<int64_t>{d + 1},
                                   ArrayRef<int64_t>{1}),
                   {});
  }
  Value transposeLast2(Value x) {
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    return TransposeOp::create(b, loc, x, perm);
  }
  /// Sums `g` (of a broadcast result) back to the shape of `input`.
  Value unbroadcast(Value g, RankedTensorType input) {
    auto type = cast<RankedTensorType>(g.getType());
    if (type == input)
      return g;
    int64_t lead = type.getRank() - input.getRank();
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d < lead || (input.getDimSize(d - lead) == 1 && type.getDimSize(d) != 1))
        axes.push_back(d);
    Value summed = ReduceSumOp::create(b, loc, g, axes, /*keepdims=*/false);
    return reshape(summed, input.getShape());
  }
  /// `g` of a reduction over `axes` broadcast back to the shape of `input`
  /// (whose run-time sizes its `?` dims take).
  Value unreduce(Value g, Value input, ArrayRef<int64_t> axes) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> kept(type.getShape());
    for (int64_t axis : axes)
      kept[axis] = 1;
    return broadcastLike(b, loc, reshape(g, kept), type, input);
  }
  /// The number of elements of `input` a reduction over `axes` takes, as a
  /// tensor of `like`'s type: a constant, or counted at run time.
  Value countLike(Value input, ArrayRef<int64_t> axes, Value like) {
    auto type = cast<RankedTensorType>(input.getType());
    int64_t count = 1;
    bool dynamic = false;
    for (int64_t axis : axes) {
      dynamic |= type.isDynamicDim(axis);
      count *= type.isDynamicDim(axis) ? 1 : type.getDimSize(axis);
    }
    if (!dynamic)
      return splat(like, static_cast<double>(count));
    Value n = arith::ConstantIndexOp::create(b, loc, count);
    for (int64_t axis : axes)
      if (type.isDynamicDim(axis))
        n = arith::MulIOp::create(b, loc, n, tensor::DimOp::create(b, loc, input, axis));
    auto element = cast<FloatType>(cast<RankedTensorType>(like.getType()).getElementType());
    Value asFloat = arith::UIToFPOp::create(
        b, loc, element, arith::IndexCastUIOp::create(b, loc, b.getI64Type(), n));
    Value scalar = tensor::FromElementsOp::create(b, loc, RankedTensorType::get({}, element),
                                                  ValueRange{asFloat});
    return broadcastLike(b, loc, scalar, cast<RankedTensorType>(like.getType()), like);
  }
};

LogicalResult noGradients(Operation *op, SmallVectorImpl<Value> &out) {
  out.append(op->getNumOperands(), Value());
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

#define EMBER_VJP(OP)                                                                        \
  LogicalResult OP::buildVJP(OpBuilder &builder, ValueRange cotangents,                      \
                             SmallVectorImpl<Value> &out)

// Over the processes: d(sum) = the sum of the cotangents, d(mean) their mean.
EMBER_VJP(AllReduceOp) {
  if (getReduction() != CollectiveReduction::sum && getReduction() != CollectiveReduction::mean)
    return emitOpError("has no gradient for ") << stringifyCollectiveReduction(getReduction());
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  out.push_back(AllReduceOp::create(builder, getLoc(), getReduction(), cotangents[0]));
  return success();
}

// d(a+b) = (g, g)
EMBER_VJP(AddOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  out.append({cotangents[0], cotangents[0]});
  return success();
}
// d(a-b) = (g, -g)
EMBER_VJP(SubOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  out.append({cotangents[0], g.neg(cotangents[0])});
  return success();
}
// d(a*b) = (g*b, g*a)
EMBER_VJP(MulOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  out.append({g.mul(cotangents[0], getRhs()), g.mul(cotangents[0], getLhs())});
  return success();
}
// d(a/b) = (g/b, -g*a/b^2) = (g/b, -(g/b)*result)
EMBER_VJP(DivOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  Value gOverB = g.div(cotangents[0], getRhs());
  out.append({gOverB, g.neg(g.mul(gOverB, getResult()))});
  return success();
}
// floor(a/b) is piecewise constant: no gradient.
EMBER_VJP(FloorDivOp) { return noGradients(*this, out); }
// a mod b = a - floor(a/b)*b: (g, -g*floor(a/b))
EMBER_VJP(ModOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  Value quotient = FloorDivOp::create(builder, getLoc(), getLhs(), getRhs());
  out.append({cotangents[0], g.neg(g.mul(cotangents[0], quotient))});
  return success();
}
// d(a^b) = (g*b*a^(b-1), g*log(a)*a^b)
EMBER_VJP(PowOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  Value a = getLhs(), b = getRhs();
  Value powMinusOne = PowOp::create(builder, getLoc(), a, g.sub(b, g.splat(b, 1)));
  Value logA = LogOp::create(builder, getLoc(), a);
  out.append({g.mul(cotangents[0], g.mul(b, powMinusOne)),
              g.mul(cotangents[0], g.mul(logA, getResult()))});
  return success();
}
// max: the gradient goes to the larger operand (to lhs on ties).
EMBER_VJP(MaximumOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  Value lhsWins = g.compare(ComparisonDirection::ge, getLhs(), getRhs());
  Value rhsWins = g.compare(ComparisonDirection::lt, getLhs(), getRhs());
  out.append({g.where(lhsWins, cotangents[0]), g.where(rhsWins, cotangents[0])});
  return success();
}
// min: the gradient goes to the smaller operand (to lhs on ties).
EMBER_VJP(MinimumOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  Value lhsWins = g.compare(ComparisonDirection::le, getLhs(), getRhs());
  Value rhsWins = g.compare(ComparisonDirection::gt, getLhs(), getRhs());
  out.append({g.where(lhsWins, cotangents[0]), g.where(rhsWins, cotangents[0])});
  return success();
}
EMBER_VJP(AndOp) { return noGradients(*this, out); }
EMBER_VJP(OrOp) { return noGradients(*this, out); }

// select(c, a, b): (none, g where c, g where !c)
EMBER_VJP(SelectOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  Value zeros = g.splat(cotangents[0], 0);
  out.append({Value(), SelectOp::create(builder, getLoc(), getCondition(), cotangents[0], zeros),
              SelectOp::create(builder, getLoc(), getCondition(), zeros, cotangents[0])});
  return success();
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

#define EMBER_UNARY_VJP(OP, EXPR)                                                            \
  EMBER_VJP(OP) {                                                                            \
    if (!isFloatTensor(getResult()))                                                         \
      return noGradients(*this, out);                                                        \
    Grad g{builder, getLoc()};                                                               \
    Value x = getOperand(), y = getResult(), dy = cotangents[0];                             \
    (void)x, (void)y;                                                                        \
    out.push_back(EXPR);                                                                     \
    return success();                                                                        \
  }

EMBER_UNARY_VJP(NegOp, g.neg(dy))
EMBER_UNARY_VJP(AbsOp, g.mul(dy, SignOp::create(builder, getLoc(), x)))
EMBER_UNARY_VJP(ExpOp, g.mul(dy, y))
EMBER_UNARY_VJP(LogOp, g.div(dy, x))
EMBER_UNARY_VJP(Log1pOp, g.div(dy, g.add(x, g.splat(x, 1))))
// d/dx erf(x) = 2/sqrt(pi) exp(-x^2).
EMBER_UNARY_VJP(ErfOp, g.mul(g.scale(dy, 1.1283791670955126), g.exp(g.neg(g.mul(x, x)))))
EMBER_UNARY_VJP(SqrtOp, g.div(g.scale(dy, 0.5), y))
EMBER_UNARY_VJP(RsqrtOp, g.mul(g.scale(dy, -0.5), g.mul(y, g.mul(y, y))))
EMBER_UNARY_VJP(TanhOp, g.mul(dy, g.sub(g.splat(y, 1), g.mul(y, y))))
EMBER_UNARY_VJP(SigmoidOp, g.mul(dy, g.mul(y, g.sub(g.splat(y, 1), y))))
EMBER_UNARY_VJP(ReluOp, g.where(g.compare(ComparisonDirection::gt, x, g.splat(x, 0)), dy))
EMBER_UNARY_VJP(SquareOp, g.mul(g.scale(dy, 2), x))
EMBER_UNARY_VJP(SignOp, g.splat(dy, 0))
EMBER_UNARY_VJP(SinOp, g.mul(dy, CosOp::create(builder, getLoc(), x)))
EMBER_UNARY_VJP(CosOp, g.neg(g.mul(dy, SinOp::create(builder, getLoc(), x))))
// asin' = 1 / sqrt(1 - x^2) = -acos'; atan' = 1 / (1 + x^2).
EMBER_UNARY_VJP(AsinOp,
                g.mul(dy, RsqrtOp::create(builder, getLoc(), g.sub(g.splat(x, 1), g.mul(x, x)))))
EMBER_UNARY_VJP(AcosOp, g.neg(g.mul(dy, RsqrtOp::create(builder, getLoc(),
                                                        g.sub(g.splat(x, 1), g.mul(x, x))))))
EMBER_UNARY_VJP(AtanOp, g.div(dy, g.add(g.splat(x, 1), g.mul(x, x))))
#undef EMBER_UNARY_VJP
EMBER_VJP(NotOp) { return noGradients(*this, out); }

// Between float types the cotangent converts back; to or from integers and
// bools there is none.
EMBER_VJP(CastOp) {
  if (!isFloatTensor(getResult()) || !isFloatTensor(getOperand()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  out.push_back(g.castTo(cotangents[0], getOperand().getType().getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// Broadcasting copies; its gradient sums over the broadcast dims.
EMBER_VJP(BroadcastToOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  out.push_back(g.unbroadcast(cotangents[0], getOperand().getType()));
  return success();
}

EMBER_VJP(ReshapeOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  RankedTensorType operand = getOperand().getType();
  if (operand.getNumDynamicDims() <= 1) { // its size is inferred
    Grad g{builder, getLoc()};
    out.push_back(g.reshape(cotangents[0], operand.getShape()));
    return success();
  }
  SmallVector<Value> sizes; // the operand's `?` dims, read at run time
  for (int64_t d = 0; d < operand.getRank(); ++d)
    if (operand.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(builder, getLoc(), getOperand(), d));
  out.push_back(ReshapeOp::create(builder, getLoc(), operand, cotangents[0], sizes));
  return success();
}

// The inverse permutation.
EMBER_VJP(TransposeOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[perm[i]] = static_cast<int64_t>(i);
  out.push_back(TransposeOp::create(builder, getLoc(), cotangents[0], inverse));
  return success();
}

// The slice's cotangent scattered back into zeros, a dim at a time. Along a
// known dim a zero slab is appended and a gather puts each row where it came
// from (rows that were not taken read the zero slab). Along a `?` dim the
// rows between the bounds (spread so by their stride) go between zeros
// before and after them, of known sizes or of the operand's rows there
// (x[:-3] before x[-3:], x[4:] after x[:4]).
EMBER_VJP(SliceOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Location loc = getLoc();
  Value operand = getOperand();
  RankedTensorType in = getOperand().getType();
  Type element = in.getElementType();
  Value grad = cotangents[0];
  // Zeros of grad's shape but along `d`: `rows` of them, or with `like` as
  // many as it has along `d`.
  auto zeros = [&](int64_t d, int64_t rows, Value like) -> Value {
    auto type = cast<RankedTensorType>(grad.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[d] = like ? ShapedType::kDynamic : rows;
    auto zerosType = RankedTensorType::get(shape, element);
    Attribute zero = builder.getFloatAttr(element, 0);
    if (zerosType.hasStaticShape())
      return ConstantOp::create(builder, loc, DenseElementsAttr::get(zerosType, zero));
    SmallVector<Value> sizes;
    for (int64_t k = 0; k < zerosType.getRank(); ++k)
      if (zerosType.isDynamicDim(k))
        sizes.push_back(tensor::DimOp::create(builder, loc, k == d ? like : grad, k));
    Value scalar = ConstantOp::create(
        builder, loc, DenseElementsAttr::get(RankedTensorType::get({}, element), zero));
    return BroadcastToOp::create(builder, loc, zerosType, scalar, sizes);
  };
  // grad's rows along `d` put at start + k * stride among `size` rows.
  auto spread = [&](int64_t d, int64_t start, int64_t stride, int64_t size) {
    int64_t taken = cast<RankedTensorType>(grad.getType()).getDimSize(d);
    Value padded = ConcatOp::create(builder, loc, ValueRange{grad, zeros(d, 1, nullptr)}, d);
    SmallVector<int64_t> rows(size, taken); // the zero slab
    for (int64_t k = 0; k < taken; ++k)
      rows[start + k * stride] = k;
    auto indexType = RankedTensorType::get({size}, builder.getI64Type());
    Value indices = ConstantOp::create(builder, loc,
                                       DenseElementsAttr::get(indexType, ArrayRef<int64_t>(rows)));
    grad = GatherOp::create(builder, loc, padded, indices, d);
  };
  // The operand's rows start:limit along `d` (whole along the others).
  auto operandRows = [&](int64_t d, int64_t start, int64_t limit) -> Value {
    SmallVector<int64_t> starts(in.getRank(), 0), limits(in.getShape()), strides(in.getRank(), 1);
    starts[d] = start;
    limits[d] = limit;
    return SliceOp::create(builder, loc, operand, starts, limits, strides);
  };
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t start = getStart()[d], limit = getLimit()[d], stride = getStride()[d];
    int64_t taken = cast<RankedTensorType>(grad.getType()).getDimSize(d);
    if (!in.isDynamicDim(d)) {
      if (taken != in.getDimSize(d))
        spread(d, start, stride, in.getDimSize(d));
      continue;
    }
    std::string error;
    std::optional<DynamicSliceBounds> bounds = dynamicSliceBounds(start, limit, stride, error);
    if (!bounds)
      return emitOpError(error);
    if (bounds->whole())
      continue;
    if (!bounds->sizeFromDim && taken != bounds->limit - bounds->start)
      spread(d, 0, stride, bounds->limit - bounds->start);
    SmallVector<Value> pieces;
    if (bounds->startFromEnd)
      pieces.push_back(zeros(d, 0, operandRows(d, 0, start)));
    else if (start > 0)
      pieces.push_back(zeros(d, start, nullptr));
    pieces.push_back(grad);
    if (!bounds->limitFromEnd)
      pieces.push_back(zeros(d, 0, operandRows(d, limit, ShapedType::kDynamic)));
    else if (bounds->limit < 0)
      pieces.push_back(zeros(d, -bounds->limit, nullptr));
    if (pieces.size() > 1)
      grad = ConcatOp::create(builder, loc, pieces, d);
  }
  out.push_back(grad);
  return success();
}

// Each input gets its piece of the cotangent.
EMBER_VJP(ConcatOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  int64_t axis = getAxis(), offset = 0;
  RankedTensorType type = getType();
  // The pieces are slices at static offsets; a `?` dim elsewhere is sliced
  // whole. Along a `?` axis one input may be `?` there: the pieces after it
  // are at offsets counted from the end, it from its offset to theirs.
  int64_t dynamicInputs = 0, after = 0; // the known sizes after the `?` input
  for (Value input : getInputs()) {
    int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(axis);
    if (ShapedType::isDynamic(size))
      ++dynamicInputs;
    else if (dynamicInputs)
      after += size;
  }
  for (Value input : getInputs()) // a piece's type must be its input's
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != axis && cast<RankedTensorType>(input.getType()).isDynamicDim(d) &&
          !type.isDynamicDim(d))
        return emitOpError("has no gradient rule yet where an input's `?` dim meets another's "
                           "known size: ")
               << input.getType() << " in " << type;
  if (dynamicInputs > 1) {
    // Several `?` inputs along the axis: their offsets are sums of run-time
    // sizes, so each piece is a gather of its rows, offset + iota(size).
    Location loc = getLoc();
    Grad g{builder, loc};
    Value offset = g.i64Scalar(0);
    for (Value input : getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      int64_t size = inputType.getDimSize(axis);
      SmallVector<Value> sizes;
      if (ShapedType::isDynamic(size))
        sizes.push_back(tensor::DimOp::create(builder, loc, input, axis));
      auto rowsType = RankedTensorType::get({size}, builder.getI64Type());
      Value rows = IotaOp::create(builder, loc, rowsType, 0, sizes);
      Value offsets = BroadcastToOp::create(builder, loc, rowsType, offset, sizes);
      out.push_back(GatherOp::create(builder, loc, cotangents[0], g.add(rows, offsets), axis));
      offset = g.add(offset, g.sizeAlong(input, axis));
    }
    return success();
  }
  bool pastDynamic = false;
  for (Value input : getInputs()) {
    int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(axis);
    SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()), stride(type.getRank(), 1);
    if (ShapedType::isDynamic(size)) { // from its offset to the pieces after it
      start[axis] = offset;
      limit[axis] = after ? -after : ShapedType::kDynamic;
      pastDynamic = true;
    } else if (pastDynamic && size == 0) { // empty (0 counted from the end is the start)
      start[axis] = limit[axis] = 0;
    } else if (pastDynamic) { // counted from the end
      start[axis] = -after;
      after -= size;
      limit[axis] = after ? -after : ShapedType::kDynamic;
    } else {
      start[axis] = offset;
      limit[axis] = offset + size;
      offset += size;
    }
    out.push_back(SliceOp::create(builder, getLoc(), cotangents[0], start, limit, stride));
  }
  return success();
}

// Scatter-add of the cotangent to the gathered rows, as a one-hot matmul:
// with the gathered axis moved to the middle, [P, N, Q] rows of the
// cotangent are summed into [P, D, Q] by onehot(indices)^T [D, N]. `?` dims
// (an embedding's lookups on a None batch, columns taken from a None batch,
// rows taken from a table of None rows) are read at run time: N from the
// indices, D from the operand's axis (the one-hot's positions an iota), P
// and Q as products of the operand's dims.
EMBER_VJP(GatherOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Location loc = getLoc();
  Grad g{builder, loc};
  RankedTensorType in = getOperand().getType();
  auto indicesType = cast<RankedTensorType>(getIndices().getType());
  Type element = in.getElementType();
  int64_t axis = getAxis(), size = in.getDimSize(axis);
  // A group of the operand's dims as one size: known, or (`?`) its
  // run-time product.
  auto group = [&](int64_t from, int64_t to, Value &runTime) {
    int64_t known = 1;
    bool dynamic = false;
    for (int64_t d = from; d < to; ++d)
      dynamic = dynamic || in.isDynamicDim(d);
    for (int64_t d = from; d < to; ++d) {
      if (!dynamic) {
        known *= in.getDimSize(d);
        continue;
      }
      Value dim = tensor::DimOp::create(builder, loc, getOperand(), d);
      runTime = runTime ? arith::MulIOp::create(builder, loc, runTime, dim).getResult() : dim;
    }
    return dynamic ? ShapedType::kDynamic : known;
  };
  Value outerSize, axisSize, innerSize, countSize;
  int64_t outer = group(0, axis, outerSize), inner = group(axis + 1, in.getRank(), innerSize);
  (void)group(axis, axis + 1, axisSize);
  int64_t count =
      indicesType.hasStaticShape() ? indicesType.getNumElements() : ShapedType::kDynamic;
  // Indices as i64 [N, 1], negative ones wrapped, against positions [1, D].
  Value indices = getIndices();
  if (!indicesType.getElementType().isInteger(64))
    indices = g.castTo(indices, builder.getI64Type());
  indices = g.reshape(indices, {count, 1});
  if (ShapedType::isDynamic(count))
    countSize = tensor::DimOp::create(builder, loc, indices, 0);
  // The run-time sizes of `shape`'s `?` dims, each named by `named` (the
  // sizes of P, D, N or Q) in order.
  auto sizesOf = [&](ArrayRef<int64_t> shape, ArrayRef<Value> named) {
    SmallVector<Value> sizes;
    for (auto [extent, value] : llvm::zip(shape, named))
      if (ShapedType::isDynamic(extent))
        sizes.push_back(value);
    return sizes;
  };
  auto spread = [&](Value x, ArrayRef<int64_t> shape, ArrayRef<Value> named) -> Value {
    auto type = RankedTensorType::get(shape, cast<RankedTensorType>(x.getType()).getElementType());
    return BroadcastToOp::create(builder, loc, type, x, sizesOf(shape, named));
  };
  Value axisLength = g.sizeAlong(getOperand(), axis); // D, to wrap negative indices
  Value negative =
      g.compare(ComparisonDirection::lt, indices, spread(g.i64Scalar(0), {count, 1}, {countSize}));
  indices = SelectOp::create(builder, loc, negative,
                             g.add(indices, spread(axisLength, {count, 1}, {countSize})), indices);
  Value positionRow;
  if (ShapedType::isDynamic(size)) {
    positionRow =
        IotaOp::create(builder, loc, RankedTensorType::get({1, size}, builder.getI64Type()), 1,
                       ValueRange{axisSize});
  } else {
    SmallVector<int64_t> positions = llvm::to_vector(llvm::seq<int64_t>(0, size));
    auto positionType = RankedTensorType::get({1, size}, builder.getI64Type());
    positionRow = ConstantOp::create(
        builder, loc, DenseElementsAttr::get(positionType, ArrayRef<int64_t>(positions)));
  }
  Value hot =
      g.compare(ComparisonDirection::eq, spread(indices, {count, size}, {countSize, axisSize}),
                spread(positionRow, {count, size}, {countSize, axisSize}));
  Value oneHot = g.castTo(hot, element);                                              // [N, D]
  Value oneHotT = TransposeOp::create(builder, loc, oneHot, ArrayRef<int64_t>{1, 0}); // [D, N]
  Value batched = spread(oneHotT, {outer, size, count}, {outerSize, axisSize, countSize});
  // The cotangent's rows [P, N, Q], the sum [P, D, Q] back in the operand's
  // shape: sizes given where more than one is `?`.
  auto reshapeTo = [&](Value x, ArrayRef<int64_t> shape, SmallVector<Value> sizes) -> Value {
    auto type = RankedTensorType::get(shape, element);
    if (sizes.size() <= 1)
      return ReshapeOp::create(builder, loc, type, x);
    return ReshapeOp::create(builder, loc, type, x, sizes);
  };
  Value rows = reshapeTo(cotangents[0], {outer, count, inner},
                         sizesOf({outer, count, inner}, {outerSize, countSize, innerSize}));
  Value summed = MatmulOp::create(builder, loc, batched, rows); // [P, D, Q]
  SmallVector<Value> operandSizes;
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (in.isDynamicDim(d))
      operandSizes.push_back(tensor::DimOp::create(builder, loc, getOperand(), d));
  out.append({reshapeTo(summed, in.getShape(), operandSizes), Value()});
  return success();
}

// add: the operand's cotangent passes through, each update gets the
// cotangent where it landed (a gather). update: the written elements'
// cotangent goes to their updates, and only to the one that won (the last,
// in row-major order, of those with the same index): the winners are found
// by scattering each update's position along the indices' dims with max and
// reading it back. mul, max and min have no rule.
EMBER_VJP(ScatterOp) {
  ScatterMode mode = getMode();
  if (mode != ScatterMode::add && mode != ScatterMode::update)
    return emitOpError("has no gradient for mode ") << stringifyScatterMode(mode);
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Location loc = getLoc();
  Grad g{builder, loc};
  Value cotangent = cotangents[0], indices = getIndices(), updates = getUpdates();
  int64_t axis = getAxis();
  Value landed = GatherOp::create(builder, loc, cotangent, indices, axis);
  if (mode == ScatterMode::add) {
    out.append({cotangent, Value(), landed});
    return success();
  }
  Value zeros = splatLike(builder, loc, updates, 0);
  Value written =
      ScatterOp::create(builder, loc, ScatterMode::update, cotangent, indices, zeros, axis);
  // One index (rank 0): each update lands on an element of its own, so
  // every one wins.
  int64_t indexRank = cast<RankedTensorType>(indices.getType()).getRank();
  if (indexRank == 0) {
    out.append({written, Value(), landed});
    return success();
  }
  auto updatesType = cast<RankedTensorType>(updates.getType());
  auto positionsType = RankedTensorType::get(updatesType.getShape(), builder.getI64Type());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < updatesType.getRank(); ++d)
    if (updatesType.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(builder, loc, updates, d));
  auto alongDim = [&](int64_t d) { return IotaOp::create(builder, loc, positionsType, d, sizes); };
  Value position = alongDim(axis);
  for (int64_t d = axis + 1; d < axis + indexRank; ++d) {
    Value size = broadcastLike(builder, loc, g.sizeAlong(updates, d), positionsType, updates);
    position = g.add(g.mul(position, size), alongDim(d));
  }
  Value none = g.castTo(splatLike(builder, loc, getOperand(), -1), builder.getI64Type());
  Value last = ScatterOp::create(builder, loc, ScatterMode::max, none, indices, position, axis);
  Value won = g.compare(ComparisonDirection::eq,
                        GatherOp::create(builder, loc, last, indices, axis), position);
  out.append({written, Value(), g.where(won, landed)});
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

EMBER_VJP(ReduceSumOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  out.push_back(g.unreduce(cotangents[0], getOperand(), getAxes()));
  return success();
}

EMBER_VJP(ReduceMeanOp) {
  Grad g{builder, getLoc()};
  RankedTensorType in = getOperand().getType();
  Value spread = g.unreduce(cotangents[0], getOperand(), getAxes());
  if (llvm::any_of(getAxes(), [&](int64_t axis) { return in.isDynamicDim(axis); })) {
    out.push_back(g.div(spread, g.countLike(getOperand(), getAxes(), spread)));
    return success();
  }
  int64_t count = 1;
  for (int64_t axis : getAxes())
    count *= in.getDimSize(axis);
  out.push_back(g.scale(spread, 1.0 / static_cast<double>(count)));
  return success();
}

// d(prod) = g * prod / x (undefined where x is 0, as in TensorFlow's fast path).
EMBER_VJP(ReduceProdOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  Value product = g.unreduce(getResult(), getOperand(), getAxes());
  out.push_back(
      g.div(g.mul(g.unreduce(cotangents[0], getOperand(), getAxes()), product), getOperand()));
  return success();
}

/// max/min: the cotangent is shared equally by the elements equal to the
/// result (TensorFlow's rule for ties).
static LogicalResult extremumVJP(OpBuilder &builder, Location loc, Value operand, Value result,
                                 ArrayRef<int64_t> axes, Value cotangent,
                                 SmallVectorImpl<Value> &out) {
  Grad g{builder, loc};
  auto in = cast<RankedTensorType>(operand.getType());
  Value extremum = g.unreduce(result, operand, axes);
  Value mask = g.castTo(g.compare(ComparisonDirection::eq, operand, extremum), in.getElementType());
  Value ties = ReduceSumOp::create(builder, loc, mask, axes, /*keepdims=*/false);
  ties = g.reshape(ties, cast<RankedTensorType>(cotangent.getType()).getShape()); // keepdims
  Value share = g.div(cotangent, ties);
  out.push_back(g.mul(mask, g.unreduce(share, operand, axes)));
  return success();
}

EMBER_VJP(ReduceMaxOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  return extremumVJP(builder, getLoc(), getOperand(), getResult(), getAxes(), cotangents[0], out);
}

EMBER_VJP(ReduceMinOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  return extremumVJP(builder, getLoc(), getOperand(), getResult(), getAxes(), cotangents[0], out);
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// d(A @ B) = (G @ B^T, A^T @ G), batched alike.
EMBER_VJP(MatmulOp) {
  if (!isFloatTensor(getResult()))
    return noGradients(*this, out);
  Grad g{builder, getLoc()};
  out.append({MatmulOp::create(builder, getLoc(), cotangents[0], g.transposeLast2(getRhs())),
              MatmulOp::create(builder, getLoc(), g.transposeLast2(getLhs()), cotangents[0])});
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

// The gradients of y = conv(x, w) (strides s, filter dilations d, padding p)
// are convolutions:
// - dx = conv(dy, w flipped along KH and KW, its I and O swapped) with input
//   dilations s, filter dilations d, strides 1 and padding d (K - 1) - p
//   before (after: what makes dx as tall as x), a negative padding as rows
//   cut from the result;
// - dw = conv(x as [C, H, W, N], dy as [OH, OW, N, F]) with strides d,
//   filter dilations s and padding p, giving [C, KH', KW', F] with KH' >= KH:
//   its first KH x KW, as [KH, KW, C, F].
// A convolution with input dilations (itself a gradient) is not
// differentiated again.
EMBER_VJP(Conv2DOp) {
  if (llvm::any_of(getInputDilations(), [](int64_t d) { return d != 1; }))
    return emitOpError("with input dilations (a convolution's gradient) has no gradient rule");
  Location loc = getLoc();
  auto xType = cast<RankedTensorType>(getInput().getType());
  auto wType = cast<RankedTensorType>(getFilter().getType());
  auto yType = getType();
  ArrayRef<int64_t> strides = getStrides(), dilations = getDilations(), padding = getPadding();
  Value dy = cotangents[0];

  // dx. Padding wider than the dilated filter makes dx's padding negative
  // (rows of dy that only saw padding): it is computed with none there and
  // those rows cut off after.
  SmallVector<int64_t> dxPadding, cropBefore;
  for (int d = 0; d < 2; ++d) {
    int64_t reach = dilations[d] * (wType.getDimSize(d) - 1);
    int64_t before = reach - padding[2 * d];
    int64_t after = xType.getDimSize(1 + d) - (yType.getDimSize(1 + d) - 1) * strides[d] - 1 +
                    padding[2 * d];
    dxPadding.append({std::max<int64_t>(before, 0), std::max<int64_t>(after, 0)});
    cropBefore.push_back(std::max<int64_t>(-before, 0));
  }
  Value flipped = getFilter();
  for (int64_t axis : {0, 1}) {
    int64_t size = wType.getDimSize(axis);
    SmallVector<int64_t> reversed;
    for (int64_t i = size - 1; i >= 0; --i)
      reversed.push_back(i);
    auto indexType = RankedTensorType::get({size}, builder.getI64Type());
    Value indices = ConstantOp::create(builder, loc,
                                       DenseElementsAttr::get(indexType, ArrayRef<int64_t>(reversed)));
    flipped = GatherOp::create(builder, loc, flipped, indices, axis);
  }
  flipped = TransposeOp::create(builder, loc, flipped, ArrayRef<int64_t>{0, 1, 3, 2});
  Value dx = Conv2DOp::create(builder, loc, dy, flipped, ArrayRef<int64_t>{1, 1}, dilations,
                              strides, dxPadding);
  if (cropBefore[0] || cropBefore[1] ||
      cast<RankedTensorType>(dx.getType()).getShape() != xType.getShape()) {
    SmallVector<int64_t> start = {0, cropBefore[0], cropBefore[1], 0};
    SmallVector<int64_t> limit = {xType.getDimSize(0), cropBefore[0] + xType.getDimSize(1),
                                  cropBefore[1] + xType.getDimSize(2), xType.getDimSize(3)};
    dx = SliceOp::create(builder, loc, dx, start, limit, ArrayRef<int64_t>{1, 1, 1, 1});
  }

  // dw.
  Value xT = TransposeOp::create(builder, loc, getInput(), ArrayRef<int64_t>{3, 1, 2, 0});
  Value dyT = TransposeOp::create(builder, loc, dy, ArrayRef<int64_t>{1, 2, 0, 3});
  Value wide = Conv2DOp::create(builder, loc, xT, dyT, dilations, strides,
                                ArrayRef<int64_t>{1, 1}, padding);
  auto wideType = cast<RankedTensorType>(wide.getType());
  SmallVector<int64_t> limit = {wideType.getDimSize(0), wType.getDimSize(0), wType.getDimSize(1),
                                wideType.getDimSize(3)};
  Value cut = SliceOp::create(builder, loc, wide, ArrayRef<int64_t>{0, 0, 0, 0}, limit,
                              ArrayRef<int64_t>{1, 1, 1, 1});
  Value dw = TransposeOp::create(builder, loc, cut, ArrayRef<int64_t>{1, 2, 0, 3});
  out.append({dx, dw});
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// Pooling gradients are ops of their own (as TensorFlow's MaxPoolGrad and
// AvgPoolGrad): each input element gathers the cotangents of the windows
// that hold it.
EMBER_VJP(MaxPool2DOp) {
  out.push_back(MaxPool2DGradOp::create(builder, getLoc(), getInput(), cotangents[0],
                                        getWindow(), getStrides(), getPadding()));
  return success();
}
EMBER_VJP(AvgPool2DOp) {
  out.push_back(AvgPool2DGradOp::create(builder, getLoc(), getInput(), cotangents[0],
                                        getWindow(), getStrides(), getPadding()));
  return success();
}
// max_pool2d_grad is S(x)^T dy for the selection S(x) of each window's
// first maximum: its adjoint in dy gathers g at those places; x gets none
// (the selection is piecewise constant in it). And the gather's adjoint in
// its values is max_pool2d_grad again.
EMBER_VJP(MaxPool2DGradOp) {
  out.push_back(Value());
  out.push_back(MaxPool2DGatherOp::create(builder, getLoc(), getInput(), cotangents[0],
                                          getWindow(), getStrides(), getPadding()));
  return success();
}
EMBER_VJP(MaxPool2DGatherOp) {
  out.push_back(Value());
  out.push_back(MaxPool2DGradOp::create(builder, getLoc(), getInput(), cotangents[0],
                                        getWindow(), getStrides(), getPadding()));
  return success();
}
// avg_pool2d_grad is A^T dy for the pooling's linear map A: its adjoint in
// dy is A itself, the pooling of g; the input is read for its shape alone.
EMBER_VJP(AvgPool2DGradOp) {
  out.push_back(Value());
  out.push_back(AvgPool2DOp::create(builder, getLoc(), cotangents[0], getWindow(), getStrides(),
                                    getPadding()));
  return success();
}
