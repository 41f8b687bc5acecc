//===- EmberToLinalg.cpp - lower ember ops to linalg on tensors ------------===//
//
// Elementwise ops share one pattern: a linalg.generic whose body is the op's
// scalar semantics (emitScalar). Shape ops map to tensor ops, reductions to
// linalg.reduce, matmul to linalg named ops. Every rule is static-shape and
// the same for every target: what a CPU or a GPU does differently happens in
// lib/Codegen.
//
//===----------------------------------------------------------------------===//

#include "ember/Conversion/Passes.h"
#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>
#include <tuple>

namespace mlir::ember {
#define GEN_PASS_DEF_CONVERTEMBERTOLINALGPASS
#include "ember/Conversion/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;
using namespace mlir::ember;

//===----------------------------------------------------------------------===//
// Scalar semantics
//===----------------------------------------------------------------------===//

static Value constantLike(OpBuilder &b, Location loc, Type type, double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  // 2^63 is the double nearest INT64_MAX; converting it back would overflow.
  int64_t integer = value >= 0x1p63 ? std::numeric_limits<int64_t>::max()
                                    : static_cast<int64_t>(value);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, integer));
}

/// The remainder `r` of a truncating division adjusted to the sign of the
/// divisor: r != 0 && (r < 0) != (b < 0) ? r + b : r.
static Value floorRemainder(OpBuilder &b, Location loc, Value r, Value divisor) {
  Type type = r.getType();
  Value zero = constantLike(b, loc, type, 0);
  Value nonzero, rNeg, bNeg, sum;
  if (isa<FloatType>(type)) {
    nonzero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, r, zero);
    rNeg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero);
    bNeg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, divisor, zero);
    sum = arith::AddFOp::create(b, loc, r, divisor);
  } else {
    nonzero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
    rNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
    bNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, divisor, zero);
    sum = arith::AddIOp::create(b, loc, r, divisor);
  }
  Value signsDiffer = arith::XOrIOp::create(b, loc, rNeg, bNeg);
  Value adjust = arith::AndIOp::create(b, loc, nonzero, signsDiffer);
  return arith::SelectOp::create(b, loc, adjust, sum, r);
}

static Value emitCompare(OpBuilder &b, Location loc, ComparisonDirection direction, Value lhs,
                         Value rhs) {
  Type type = lhs.getType();
  if (isa<FloatType>(type)) {
    arith::CmpFPredicate predicate;
    switch (direction) {
    case ComparisonDirection::eq: predicate = arith::CmpFPredicate::OEQ; break;
    case ComparisonDirection::ne: predicate = arith::CmpFPredicate::UNE; break;
    case ComparisonDirection::lt: predicate = arith::CmpFPredicate::OLT; break;
    case ComparisonDirection::le: predicate = arith::CmpFPredicate::OLE; break;
    case ComparisonDirection::gt: predicate = arith::CmpFPredicate::OGT; break;
    case ComparisonDirection::ge: predicate = arith::CmpFPredicate::OGE; break;
    }
    return arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
  }
  // i1 compares as unsigned so that false < true.
  bool isBool = type.isInteger(1);
  arith::CmpIPredicate predicate;
  switch (direction) {
  case ComparisonDirection::eq: predicate = arith::CmpIPredicate::eq; break;
  case ComparisonDirection::ne: predicate = arith::CmpIPredicate::ne; break;
  case ComparisonDirection::lt: predicate = isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt; break;
  case ComparisonDirection::le: predicate = isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle; break;
  case ComparisonDirection::gt: predicate = isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt; break;
  case ComparisonDirection::ge: predicate = isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge; break;
  }
  return arith::CmpIOp::create(b, loc, predicate, lhs, rhs);
}

/// numpy's maximum (or minimum) of floats, as ember's folder computes it: a
/// NaN operand gives NaN, and of two equal operands (-0 and +0) the first.
/// A NaN `rhs` first replaces `lhs`; then `rhs > lhs ? rhs : lhs`, which is
/// one max instruction on x86 (returning its second operand on NaN or
/// equality). arith.maximumf would also order -0 below +0, which costs
/// twice as many instructions in every fused loop that uses it, and testing
/// for NaN after the max made LLVM merge the two choices into one that is
/// not a max instruction.
static Value emitFloatExtremum(OpBuilder &b, Location loc, Value lhs, Value rhs, bool maximum) {
  Value rhsIsNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, rhs, rhs);
  lhs = arith::SelectOp::create(b, loc, rhsIsNaN, rhs, lhs);
  Value rhsWins = arith::CmpFOp::create(b, loc,
                                        maximum ? arith::CmpFPredicate::OGT
                                                : arith::CmpFPredicate::OLT,
                                        rhs, lhs);
  return arith::SelectOp::create(b, loc, rhsWins, rhs, lhs);
}

/// Integer power; a negative exponent gives 0 unless the base is 1 or -1
/// (math.ipowi would divide by zero for base 0).
static Value emitIntegerPow(OpBuilder &b, Location loc, Value base, Value exponent) {
  Type type = base.getType();
  Value zero = constantLike(b, loc, type, 0), one = constantLike(b, loc, type, 1),
        minusOne = constantLike(b, loc, type, -1);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exponent, zero);
  Value clamped = arith::SelectOp::create(b, loc, negative, zero, exponent);
  Value power = math::IPowIOp::create(b, loc, base, clamped);
  // Negative exponents: 1 for base 1; +-1 for base -1 by parity; else 0.
  Value odd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                    arith::AndIOp::create(b, loc, exponent, one), zero);
  Value baseIsOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, one);
  Value baseIsMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, minusOne);
  Value minusOnePower = arith::SelectOp::create(b, loc, odd, minusOne, one);
  Value reciprocal = arith::SelectOp::create(
      b, loc, baseIsOne, one, arith::SelectOp::create(b, loc, baseIsMinusOne, minusOnePower, zero));
  return arith::SelectOp::create(b, loc, negative, reciprocal, power);
}

/// numpy conversion of a scalar to `to` (floats to integers saturating).
static Value emitCast(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  if (to.isInteger(1)) {
    Value zero = constantLike(b, loc, from, 0);
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (from.isInteger(1))
    return isa<FloatType>(to) ? (Value)arith::UIToFPOp::create(b, loc, to, x)
                              : (Value)arith::ExtUIOp::create(b, loc, to, x);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (fromFloat && toFloat && from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
    // f16 <-> bf16: through f32, which holds both exactly (one rounding).
    return arith::TruncFOp::create(b, loc, to, arith::ExtFOp::create(b, loc, b.getF32Type(), x));
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? (Value)arith::ExtFOp::create(b, loc, to, x)
               : (Value)arith::TruncFOp::create(b, loc, to, x);
  if (fromFloat) {
    // Saturating, NaN to 0 (as XLA and ARM's conversions): fptosi alone is
    // poison out of range, which LLVM folded to arbitrary values in traced
    // code while eager code gave x86's INT_MIN.
    unsigned bits = to.getIntOrFloatBitWidth();
    Value limit = constantLike(b, loc, from, std::ldexp(1.0, static_cast<int>(bits) - 1));
    Value lowest = constantLike(b, loc, from, -std::ldexp(1.0, static_cast<int>(bits) - 1));
    Value converted = arith::FPToSIOp::create(b, loc, to, x);
    auto integer = [&](APInt value) {
      return arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, value)).getResult();
    };
    Value tooLarge = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, limit);
    Value tooSmall = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x, lowest);
    Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    converted = arith::SelectOp::create(b, loc, tooLarge, integer(APInt::getSignedMaxValue(bits)),
                                        converted);
    converted = arith::SelectOp::create(b, loc, tooSmall, integer(APInt::getSignedMinValue(bits)),
                                        converted);
    return arith::SelectOp::create(b, loc, isNaN, integer(APInt::getZero(bits)), converted);
  }
  if (toFloat)
    return arith::SIToFPOp::create(b, loc, to, x);
  return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
             ? (Value)arith::ExtSIOp::create(b, loc, to, x)
             : (Value)arith::TruncIOp::create(b, loc, to, x);
}

//===----------------------------------------------------------------------===//
// Faults: guarded, never trapping, reported to the runtime
//===----------------------------------------------------------------------===//

namespace {
/// How the lowering of a faulting op reports its faults: whether it does,
/// and the op's site (its ember.fault_site, or -1).
struct FaultReporter {
  bool enabled = false;
  int32_t site = -1;

  /// `value`, reporting fault `kind` where `condition` holds (ember.fault_if).
  Value check(OpBuilder &b, Location loc, Value condition, Value value, FaultKind kind) const {
    if (!enabled)
      return value;
    return FaultIfOp::create(b, loc, condition, value, static_cast<int32_t>(kind), site);
  }
};
} // namespace

/// The reporter for `op`: enabled if `report`.
static FaultReporter faultReporter(Operation *op, bool report) {
  FaultReporter reporter;
  reporter.enabled = report;
  if (auto site = op->getAttrOfType<IntegerAttr>(kFaultSiteAttrName))
    reporter.site = static_cast<int32_t>(site.getInt());
  return reporter;
}

/// Integer div, floordiv or mod (`op`) that never traps: where the divisor
/// is 0, or the most negative integer is divided by -1, it divides by 1
/// instead and reports the fault. (The remainder of the most negative
/// integer by -1 is 0, which dividing by 1 gives: no fault for mod.)
static Value emitIntegerDivision(Operation *op, OpBuilder &b, Location loc, Value lhs, Value rhs,
                                 const FaultReporter &faults) {
  Type type = lhs.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Value zero = constantLike(b, loc, type, 0), one = constantLike(b, loc, type, 1);
  Value minusOne = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, -1));
  Value lowest = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, APInt::getSignedMinValue(width)));
  Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
  Value overflow = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, lowest),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, minusOne));
  Value guarded = arith::OrIOp::create(b, loc, byZero, overflow);
  Value divisor = arith::SelectOp::create(b, loc, guarded, one, rhs);
  Value result;
  if (isa<DivOp>(op))
    result = arith::DivSIOp::create(b, loc, lhs, divisor);
  else if (isa<FloorDivOp>(op))
    result = arith::FloorDivSIOp::create(b, loc, lhs, divisor);
  else
    result = floorRemainder(b, loc, arith::RemSIOp::create(b, loc, lhs, divisor), divisor);
  result = faults.check(b, loc, byZero, result, FaultKind::IntegerDivisionByZero);
  if (!isa<ModOp>(op))
    result = faults.check(b, loc, overflow, result, FaultKind::IntegerDivisionOverflow);
  return result;
}

/// Whether `op` is lowered to code that can fault: integer division, unless
/// its divisor is a constant that cannot fault (not 0; not -1 but for mod,
/// whose remainder of the lowest integer by -1 is 0). Code that cannot fault
/// reports nothing, so its loops may run on several threads.
static bool isIntegerDivision(Operation *op) {
  if (!isa<DivOp, FloorDivOp, ModOp>(op) ||
      !isa<IntegerType>(getElementTypeOrSelf(op->getResult(0).getType())))
    return false;
  DenseIntElementsAttr divisor;
  if (!matchPattern(op->getOperand(1), m_Constant(&divisor)))
    return true;
  return llvm::any_of(divisor.getValues<APInt>(), [&](const APInt &value) {
    return value.isZero() || (value.isAllOnes() && !isa<ModOp>(op));
  });
}

/// Emits the scalar computation of elementwise op `op` on `args` (one scalar
/// per operand); `resultType` is the result's element type. Integer
/// division reports its faults to `faults`.
static Value emitScalar(Operation *op, OpBuilder &b, Location loc, ValueRange args,
                        Type resultType, const FaultReporter &faults = {}) {
  Value x = args[0];
  Type type = x.getType();
  bool isFloat = isa<FloatType>(type);
  auto binary = [&](auto floatOp, auto intOp) -> Value {
    using FloatOp = decltype(floatOp);
    using IntOp = decltype(intOp);
    if (isFloat)
      return FloatOp::create(b, loc, args[0], args[1]);
    return IntOp::create(b, loc, args[0], args[1]);
  };
  auto unaryFloat = [&](auto mathOp) -> Value {
    return decltype(mathOp)::create(b, loc, x);
  };
  if (!isFloat && isa<DivOp, FloorDivOp, ModOp>(op))
    return emitIntegerDivision(op, b, loc, args[0], args[1], faults);
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) { return binary(arith::AddFOp(), arith::AddIOp()); })
      .Case([&](SubOp) { return binary(arith::SubFOp(), arith::SubIOp()); })
      .Case([&](MulOp) { return binary(arith::MulFOp(), arith::MulIOp()); })
      // Floats only from here on (IEEE: division by zero is inf or nan).
      .Case([&](DivOp) { return arith::DivFOp::create(b, loc, args[0], args[1]); })
      .Case([&](FloorDivOp) -> Value {
        return math::FloorOp::create(b, loc, arith::DivFOp::create(b, loc, args[0], args[1]));
      })
      .Case([&](ModOp) {
        return floorRemainder(b, loc, arith::RemFOp::create(b, loc, args[0], args[1]), args[1]);
      })
      .Case([&](PowOp) -> Value {
        if (isFloat)
          return math::PowFOp::create(b, loc, args[0], args[1]);
        return emitIntegerPow(b, loc, args[0], args[1]);
      })
      .Case([&](MaximumOp) {
        return isFloat ? emitFloatExtremum(b, loc, args[0], args[1], /*maximum=*/true)
                       : (Value)arith::MaxSIOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](MinimumOp) {
        return isFloat ? emitFloatExtremum(b, loc, args[0], args[1], /*maximum=*/false)
                       : (Value)arith::MinSIOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](AndOp) { return arith::AndIOp::create(b, loc, args[0], args[1]); })
      .Case([&](OrOp) { return arith::OrIOp::create(b, loc, args[0], args[1]); })
      .Case([&](CompareOp compare) {
        return emitCompare(b, loc, compare.getDirection(), args[0], args[1]);
      })
      .Case([&](SelectOp) { return arith::SelectOp::create(b, loc, args[0], args[1], args[2]); })
      .Case([&](NegOp) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, x);
        return arith::SubIOp::create(b, loc, constantLike(b, loc, type, 0), x);
      })
      .Case([&](AbsOp) -> Value {
        if (isFloat)
          return math::AbsFOp::create(b, loc, x);
        // x < 0 ? -x : x (math.absi has no lowering in every pipeline step).
        Value zero = constantLike(b, loc, type, 0);
        Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
        return arith::SelectOp::create(b, loc, negative, arith::SubIOp::create(b, loc, zero, x),
                                       x);
      })
      .Case([&](ExpOp) { return unaryFloat(math::ExpOp()); })
      .Case([&](LogOp) { return unaryFloat(math::LogOp()); })
      .Case([&](Log1pOp) { return unaryFloat(math::Log1pOp()); })
      .Case([&](ErfOp) { return unaryFloat(math::ErfOp()); })
      .Case([&](SqrtOp) { return unaryFloat(math::SqrtOp()); })
      // 1 / sqrt(x) rather than math.rsqrt, which libm does not provide.
      .Case([&](RsqrtOp) -> Value {
        return arith::DivFOp::create(b, loc, constantLike(b, loc, type, 1),
                                     math::SqrtOp::create(b, loc, x));
      })
      .Case([&](TanhOp) { return unaryFloat(math::TanhOp()); })
      .Case([&](SinOp) { return unaryFloat(math::SinOp()); })
      .Case([&](CosOp) { return unaryFloat(math::CosOp()); })
      .Case([&](AsinOp) { return unaryFloat(math::AsinOp()); })
      .Case([&](AcosOp) { return unaryFloat(math::AcosOp()); })
      .Case([&](AtanOp) { return unaryFloat(math::AtanOp()); })
      .Case([&](SigmoidOp) -> Value {
        Value one = constantLike(b, loc, type, 1);
        Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
        return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
      })
      .Case([&](ReluOp) -> Value {
        Value zero = constantLike(b, loc, type, 0);
        if (isFloat)
          return arith::MaximumFOp::create(b, loc, x, zero);
        return arith::MaxSIOp::create(b, loc, x, zero);
      })
      .Case([&](SquareOp) -> Value {
        if (isFloat)
          return arith::MulFOp::create(b, loc, x, x);
        return arith::MulIOp::create(b, loc, x, x);
      })
      .Case([&](SignOp) -> Value {
        // x > 0 ? 1 : (x < 0 ? -1 : x); keeps NaN and signed zeros.
        Value zero = constantLike(b, loc, type, 0);
        Value positive = emitCompare(b, loc, ComparisonDirection::gt, x, zero);
        Value negative = emitCompare(b, loc, ComparisonDirection::lt, x, zero);
        Value inner = arith::SelectOp::create(b, loc, negative, constantLike(b, loc, type, -1), x);
        return arith::SelectOp::create(b, loc, positive, constantLike(b, loc, type, 1), inner);
      })
      .Case([&](NotOp) -> Value {
        // xor with all ones: true for i1, -1 for integers.
        Value ones = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, -1));
        return arith::XOrIOp::create(b, loc, x, ones);
      })
      .Case([&](CastOp) { return emitCast(b, loc, x, resultType); })
      .Default([](Operation *) { return Value(); });
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

/// A new tensor of `type`; `sizes` holds one index per dynamic dim of it.
static Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                         ValueRange sizes = {}) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(), sizes);
}

/// The run-time sizes of `value`'s dynamic dims, in order (none if static).
static SmallVector<Value> dynamicSizesOf(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, value, d));
  return sizes;
}

static Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, double value,
                          ValueRange sizes = {}) {
  Value fill = constantLike(b, loc, type.getElementType(), value);
  return linalg::FillOp::create(b, loc, fill, emptyTensor(b, loc, type, sizes)).getResult(0);
}

/// `value`'s elements cast to `element` (numpy's astype), elementwise.
static Value castElements(OpBuilder &b, Location loc, Value value, Type element) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == element)
    return value;
  auto resultType = type.clone(element);
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  return linalg::GenericOp::create(b, loc, resultType, value,
                                   emptyTensor(b, loc, resultType, dynamicSizesOf(b, loc, value)),
                                   maps, parallelIterators(rank),
                                   [&](OpBuilder &nb, Location nloc, ValueRange args) {
                                     linalg::YieldOp::create(
                                         nb, nloc, emitCast(nb, nloc, args[0], element));
                                   })
      .getResult(0);
}

/// The type sums and products of `element` accumulate in: float32 for the
/// 16-bit floats (as LibTorch's CPU kernels and JAX's reductions do; a
/// bfloat16 running sum stops growing once it reaches 256 times an addend),
/// else the type itself.
static Type accumulatorType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  return element;
}

/// The 1-D type holding `type`'s elements (tensor<?xT> if any dim is dynamic).
static RankedTensorType flatTypeOf(RankedTensorType type) {
  return RankedTensorType::get(
      {type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic},
      type.getElementType());
}

/// Expands `value` to `type` along `reassociation`; `sizes` holds the
/// run-time sizes of `type`'s dynamic dims.
static Value expandTo(OpBuilder &b, Location loc, Value value, RankedTensorType type,
                      ArrayRef<ReassociationIndices> reassociation, ValueRange sizes) {
  if (type.hasStaticShape())
    return tensor::ExpandShapeOp::create(b, loc, type, value, reassociation);
  SmallVector<OpFoldResult> outputShape;
  for (int64_t d = 0, next = 0; d < type.getRank(); ++d)
    outputShape.push_back(type.isDynamicDim(d) ? OpFoldResult(sizes[next++])
                                               : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return tensor::ExpandShapeOp::create(b, loc, type, value, reassociation, outputShape);
}

/// Reshapes `value` to `type` through a 1-D tensor, cast where one side is
/// static and the other not; `sizes` holds the run-time sizes of `type`'s
/// dynamic dims.
static Value reshapeThroughFlat(OpBuilder &b, Location loc, Value value, RankedTensorType type,
                                ValueRange sizes) {
  auto source = cast<RankedTensorType>(value.getType());
  auto flat = flatTypeOf(source);
  Value flatValue = value;
  if (source.getRank() == 0)
    flatValue =
        tensor::ExpandShapeOp::create(b, loc, flat, value, ArrayRef<ReassociationIndices>{});
  else if (source.getRank() > 1)
    flatValue = tensor::CollapseShapeOp::create(
        b, loc, flat, value,
        ArrayRef<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, source.getRank()))});
  if (RankedTensorType target = flatTypeOf(type); target != flat)
    flatValue = tensor::CastOp::create(b, loc, target, flatValue);
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flatValue,
                                           ArrayRef<ReassociationIndices>{});
  if (type.getRank() == 1)
    return flatValue;
  return expandTo(
      b, loc, flatValue, type,
      ArrayRef<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))},
      sizes);
}

/// Reshapes `value` to `type` (same element count) through collapse/expand;
/// `sizes` holds the run-time sizes of `type`'s dynamic dims.
static Value reshapeTo(OpBuilder &b, Location loc, Value value, RankedTensorType type,
                       ValueRange sizes = {}) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source == type)
    return value;
  // One size turns `?` or known, every other dim known and the same: a cast
  // ([5, 3] -> [?, 3]: a gradient summed back to a `?` operand broadcast
  // against a known size). (Not [?, 4] -> [4, ?]: that regroups.)
  if (source.getRank() == type.getRank()) {
    int64_t differing = 0;
    bool known = true, oneDynamic = false;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t from = source.getDimSize(d), to = type.getDimSize(d);
      if (from != to) {
        ++differing;
        oneDynamic = ShapedType::isDynamic(from) != ShapedType::isDynamic(to);
      } else {
        known = known && !ShapedType::isDynamic(from) && from != 0; // a 0 leaves `?` free
      }
    }
    if (differing == 1 && oneDynamic && known)
      return tensor::CastOp::create(b, loc, type, value);
  }
  // collapse_shape and expand_shape need each group dynamic on both sides
  // or on neither ([2, 4] -> [1, ?, 4] goes through a cast below).
  auto sameDynamism = [](RankedTensorType large, RankedTensorType small,
                         ArrayRef<ReassociationIndices> groups) {
    for (auto [d, group] : llvm::enumerate(groups))
      if (llvm::any_of(group, [&](int64_t i) { return large.isDynamicDim(i); }) !=
          small.isDynamicDim(d))
        return false;
    return true;
  };
  if (source.getRank() > type.getRank()) {
    if (auto reassociation = getReassociationIndicesForReshape(source, type);
        reassociation && sameDynamism(source, type, *reassociation))
      return tensor::CollapseShapeOp::create(b, loc, type, value, *reassociation);
  } else if (source.getRank() < type.getRank()) {
    if (auto reassociation = getReassociationIndicesForReshape(source, type);
        reassociation && sameDynamism(type, source, *reassociation))
      return expandTo(b, loc, value, type, *reassociation, sizes);
  }
  return reshapeThroughFlat(b, loc, value, type, sizes);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// Any elementwise ember op (Ember_Elementwise) -> linalg.generic with
/// identity maps, over the operands flattened to 1-D when their shape is
/// static: one loop that LLVM vectorizes whole, instead of a nest whose short
/// inner loops it unrolls and vectorizes piecemeal (slower to compile and to
/// run). A dynamic shape keeps its nest, whose inner loop has run-time length.
struct ElementwiseToGeneric : ConversionPattern {
  ElementwiseToGeneric(MLIRContext *context, bool reportFaults)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        reportFaults(reportFaults) {}
  bool reportFaults;
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> adaptorOperands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<ember::Elementwise>())
      return failure();
    Location loc = op->getLoc();
    FaultReporter faults;
    if (isIntegerDivision(op))
      faults = faultReporter(op, reportFaults);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    // Dynamic shapes stay N-D: reshapes of `?` dims block the fusion of a
    // broadcast into its consumer, and fusion would expand the loop again.
    bool flatten = resultType.getRank() > 1 && resultType.hasStaticShape();
    auto flatType = [&](Type type) {
      auto tensor = cast<RankedTensorType>(type);
      return flatten ? flatTypeOf(tensor) : tensor;
    };
    // Every operand has the result's shape: dynamic sizes come from the first.
    SmallVector<Value> resultSizes = dynamicSizesOf(rewriter, loc, adaptorOperands.front());
    SmallVector<Value> operands;
    for (Value operand : adaptorOperands)
      operands.push_back(reshapeTo(rewriter, loc, operand, flatType(operand.getType())));
    RankedTensorType loopType = flatType(resultType);
    int64_t rank = loopType.getRank();
    SmallVector<AffineMap> maps(operands.size() + 1, rewriter.getMultiDimIdentityMap(rank));
    bool lowered = true;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, loopType, operands,
        emptyTensor(rewriter, loc, loopType,
                    flatten ? dynamicSizesOf(rewriter, loc, operands.front()) : resultSizes),
        maps,
        parallelIterators(rank), [&](OpBuilder &b, Location loc, ValueRange args) {
          Value result =
              emitScalar(op, b, loc, args.drop_back(), resultType.getElementType(), faults);
          lowered = static_cast<bool>(result);
          linalg::YieldOp::create(b, loc, result ? result : args.back());
        });
    if (!lowered) // an op marked elementwise that emitScalar does not know
      return rewriter.notifyMatchFailure(op, "no scalar semantics in emitScalar");
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, generic.getResult(0), resultType, resultSizes));
    return success();
  }
};

/// The runtime function `prefix`<element type> (emberrt_print_f32), declared
/// in `module` as `type` if it is not yet; its name.
static std::string declareRuntimeFunction(ConversionPatternRewriter &rewriter, ModuleOp module,
                                          Location loc, llvm::StringRef prefix, Type element,
                                          FunctionType type,
                                          llvm::function_ref<void(func::FuncOp)> annotate = {}) {
  std::string name = prefix.str();
  llvm::raw_string_ostream(name) << element;
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    auto declaration = func::FuncOp::create(rewriter, loc, name, type);
    declaration.setPrivate();
    if (annotate)
      annotate(declaration);
  }
  return name;
}

/// print -> a call to the runtime's emberrt_print_<type>(value, message),
/// both passed as unranked tensors (the message as i8 bytes).
struct PrintLowering : OpConversionPattern<PrintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a module");
    Type element = op.getOperand().getType().getElementType();
    auto valueType = UnrankedTensorType::get(element);
    auto messageType = UnrankedTensorType::get(rewriter.getI8Type());
    std::string callee = declareRuntimeFunction(
        rewriter, module, loc, "emberrt_print_", element,
        rewriter.getFunctionType({valueType, messageType}, {}), [&](func::FuncOp declaration) {
          // The runtime only reads its arguments: bufferization then passes
          // the tensors' buffers without copies or conflicts.
          for (unsigned i = 0; i < 2; ++i)
            declaration.setArgAttr(i, "bufferization.access", rewriter.getStringAttr("read"));
        });
    StringRef text = op.getMessage();
    SmallVector<int8_t> bytes(text.begin(), text.end());
    auto bytesType = RankedTensorType::get({static_cast<int64_t>(bytes.size())}, rewriter.getI8Type());
    Value message = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(bytesType, ArrayRef<int8_t>(bytes)));
    Value value = tensor::CastOp::create(rewriter, loc, valueType, adaptor.getOperand());
    message = tensor::CastOp::create(rewriter, loc, messageType, message);
    rewriter.replaceOpWithNewOp<func::CallOp>(op, callee, TypeRange{}, ValueRange{value, message});
    return success();
  }
};

/// The op of `block` that holds the first user of `value` in block order
/// (the block's terminator if none does).
static Operation *firstUseIn(Value value, Block *block) {
  Operation *first = block->getTerminator();
  for (Operation *user : value.getUsers())
    if (Operation *ancestor = block->findAncestorOpInBlock(*user))
      if (ancestor->isBeforeInBlock(first))
        first = ancestor;
  return first;
}

/// A lowering of an op that can fault at run time (an index out of range, a
/// lost process), which reports its faults when asked to.
template <typename Op> struct FaultReportingPattern : OpConversionPattern<Op> {
  FaultReportingPattern(MLIRContext *context, bool reportFaults)
      : OpConversionPattern<Op>(context), reportFaults(reportFaults) {}
  bool reportFaults;
};

/// all_reduce -> a call of the runtime's emberrt_all_reduce_start_<type>(
/// operand, result, reduction, site) where the op is, which copies the
/// operand's buffer (read only: other ops may still read it) into a new
/// contiguous buffer, the result, and starts reducing it there over the
/// processes; then emberrt_all_reduce_wait(ticket, site) just before the
/// result's first use. The work in between runs while the collective
/// travels (ember-schedule-collectives makes it as much as it can).
struct AllReduceLowering : FaultReportingPattern<AllReduceOp> {
  using FaultReportingPattern::FaultReportingPattern;
  LogicalResult matchAndRewrite(AllReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a module");
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    auto unranked = UnrankedMemRefType::get(element, 0);
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    std::string start =
        declareRuntimeFunction(rewriter, module, loc, "emberrt_all_reduce_start_", element,
                               rewriter.getFunctionType({unranked, unranked, i32, i32}, {i64}));
    std::string wait = "emberrt_all_reduce_wait";
    if (!module.lookupSymbol(wait)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      func::FuncOp::create(rewriter, loc, wait, rewriter.getFunctionType({i64, i32}, {}))
          .setPrivate();
    }
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(rewriter, loc, adaptor.getOperand(), d));
    // The operand's buffer as it is (any layout), read by the start alone.
    auto operandType = MemRefType::get(
        type.getShape(), element,
        StridedLayoutAttr::get(rewriter.getContext(), ShapedType::kDynamic,
                               SmallVector<int64_t>(type.getRank(), ShapedType::kDynamic)));
    Value operand = bufferization::ToBufferOp::create(rewriter, loc, operandType,
                                                      adaptor.getOperand(), /*readOnly=*/true);
    auto bufferType = MemRefType::get(type.getShape(), element);
    Value buffer = memref::AllocOp::create(rewriter, loc, bufferType, sizes);
    int32_t site = faultReporter(op, reportFaults).site;
    Value reduction =
        arith::ConstantIntOp::create(rewriter, loc, static_cast<int64_t>(op.getReduction()), 32);
    Value siteValue = arith::ConstantIntOp::create(rewriter, loc, site, 32);
    Value ticket = func::CallOp::create(
                       rewriter, loc, start, TypeRange{i64},
                       ValueRange{memref::CastOp::create(rewriter, loc, unranked, operand),
                                  memref::CastOp::create(rewriter, loc, unranked, buffer),
                                  reduction, siteValue})
                       .getResult(0);
    rewriter.setInsertionPoint(firstUseIn(op.getResult(), op->getBlock()));
    func::CallOp::create(rewriter, loc, wait, TypeRange{}, ValueRange{ticket, siteValue});
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(op, type, buffer, /*restrict=*/true,
                                                           /*writable=*/true);
    return success();
  }
};

/// A custom gradient only matters to ember-autodiff; its value is the operand.
struct CustomGradientLowering : OpConversionPattern<CustomGradientOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CustomGradientOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getValue());
    return success();
  }
};

struct ConstantLowering : OpConversionPattern<ember::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ember::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "value is not a typed attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// numpy broadcast -> linalg.generic whose input map drops leading dims and
/// pins size-1 dims to 0.
struct BroadcastToLowering : OpConversionPattern<BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BroadcastToOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType in = op.getOperand().getType(), out = op.getType();
    int64_t lead = out.getRank() - in.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < in.getRank(); ++d)
      exprs.push_back(in.getDimSize(d) == 1 && out.getDimSize(d + lead) != 1
                          ? rewriter.getAffineConstantExpr(0)
                          : rewriter.getAffineDimExpr(d + lead));
    SmallVector<AffineMap> maps = {
        AffineMap::get(out.getRank(), 0, exprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(out.getRank())};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, out, adaptor.getOperand(), emptyTensor(rewriter, loc, out, adaptor.getSizes()),
        maps,
        parallelIterators(out.getRank()), [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    SmallVector<Value> sizes(adaptor.getSizes());
    if (!sizes.empty()) { // regrouped by the sizes given: through the flat tensor
      rewriter.replaceOp(op, reshapeThroughFlat(rewriter, loc, adaptor.getOperand(), type, sizes));
      return success();
    }
    if (!type.hasStaticShape()) {
      // One `?` result dim: the operand's elements over the known dims.
      if (type.getNumDynamicDims() != 1)
        return rewriter.notifyMatchFailure(op, "more than one dynamic result dim");
      Value operand = adaptor.getOperand(),
            elements = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto operandType = cast<RankedTensorType>(operand.getType());
      for (int64_t d = 0; d < operandType.getRank(); ++d)
        elements = arith::MulIOp::create(
            rewriter, loc, elements,
            operandType.isDynamicDim(d)
                ? Value(tensor::DimOp::create(rewriter, loc, operand, d))
                : Value(arith::ConstantIndexOp::create(rewriter, loc, operandType.getDimSize(d))));
      sizes.push_back(arith::DivUIOp::create(
          rewriter, loc, elements,
          arith::ConstantIndexOp::create(rewriter, loc, knownElements(type))));
    }
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, adaptor.getOperand(), type, sizes));
    return success();
  }
};

/// shape_of -> the operand's run-time sizes (tensor.dim) as int64 elements.
struct ShapeOfLowering : OpConversionPattern<ShapeOfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ShapeOfOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getOperand().getType());
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value size = type.isDynamicDim(d)
                       ? Value(tensor::DimOp::create(rewriter, loc, adaptor.getOperand(), d))
                       : Value(arith::ConstantIndexOp::create(rewriter, loc, type.getDimSize(d)));
      sizes.push_back(arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), size));
    }
    if (sizes.empty()) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseElementsAttr::get(op.getType(), ArrayRef<APInt>{}));
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(), sizes);
    return success();
  }
};

/// Each element's index along `dimension`: a linalg.generic with no
/// inputs whose body reads linalg.index.
struct IotaLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    int64_t dimension = op.getDimension();
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), type, ValueRange{},
        emptyTensor(rewriter, op.getLoc(), type, adaptor.getSizes()),
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(type.getRank())},
        parallelIterators(type.getRank()), [&](OpBuilder &b, Location loc, ValueRange) {
          Value index = linalg::IndexOp::create(b, loc, dimension);
          Type element = type.getElementType();
          Value value;
          if (isa<IntegerType>(element)) {
            value = arith::IndexCastOp::create(b, loc, element, index);
          } else {
            value = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
            value = arith::SIToFPOp::create(b, loc, element, value);
          }
          linalg::YieldOp::create(b, loc, value);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // A `?` result dim is the operand's dim it comes from.
    SmallVector<Value> sizes;
    for (auto [d, from] : llvm::enumerate(op.getPermutation()))
      if (op.getType().isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(rewriter, loc, adaptor.getOperand(), from));
    auto transpose = linalg::TransposeOp::create(rewriter, loc, adaptor.getOperand(),
                                                 emptyTensor(rewriter, loc, op.getType(), sizes),
                                                 op.getPermutation());
    rewriter.replaceOp(op, transpose.getResults());
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // An empty slice reads nothing; extract_slice would reject its offsets
    // (even 0 in an empty dim is out of bounds there).
    // Along a `?` dim of size n, bounds counted from the end are n plus
    // them (the caller has checked that n holds the bounds: see
    // dynamicSliceBounds).
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    RankedTensorType in = op.getOperand().getType();
    auto plusDim = [&](int64_t d, int64_t value) -> OpFoldResult {
      Value n = tensor::DimOp::create(rewriter, loc, operand, d);
      if (value == 0)
        return n;
      return arith::AddIOp::create(rewriter, loc, n,
                                   arith::ConstantIndexOp::create(rewriter, loc, value))
          .getResult();
    };
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<Value> dynamicSizes; // the result's `?` sizes
    for (auto [d, start, size, stride] :
         llvm::enumerate(op.getStart(), op.getType().getShape(), op.getStride())) {
      std::string error;
      std::optional<DynamicSliceBounds> bounds;
      if (in.isDynamicDim(d))
        bounds = dynamicSliceBounds(start, op.getLimit()[d], stride, error);
      offsets.push_back(bounds && bounds->startFromEnd ? plusDim(d, start)
                                                       : rewriter.getIndexAttr(start));
      sizes.push_back(bounds && bounds->sizeFromDim ? plusDim(d, bounds->size)
                                                    : rewriter.getIndexAttr(size));
      strides.push_back(rewriter.getIndexAttr(stride));
      if (ShapedType::isDynamic(size))
        dynamicSizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, sizes.back()));
    }
    if (llvm::is_contained(op.getType().getShape(), 0)) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, op.getType(), dynamicSizes));
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, op.getType(), operand, offsets, sizes,
                                                        strides);
    return success();
  }
};

/// concat -> tensor.insert_slice of each input into the result at its
/// offset along the axis. `?` sizes are read at run time: along the axis,
/// the offsets add up the inputs' sizes; elsewhere a `?` dim of the result
/// is the first input's (its callers check that the inputs agree).
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType out = op.getType();
    int64_t axis = op.getAxis();
    auto sizeOf = [&](Value input, int64_t d) -> OpFoldResult {
      auto type = cast<RankedTensorType>(input.getType());
      if (!type.isDynamicDim(d))
        return rewriter.getIndexAttr(type.getDimSize(d));
      return tensor::DimOp::create(rewriter, loc, input, d).getResult();
    };
    auto add = [&](OpFoldResult a, OpFoldResult b) -> OpFoldResult {
      std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
      if (x && y)
        return rewriter.getIndexAttr(*x + *y);
      if (x == 0)
        return b;
      return arith::AddIOp::create(rewriter, loc, getValueOrCreateConstantIndexOp(rewriter, loc, a),
                                   getValueOrCreateConstantIndexOp(rewriter, loc, b))
          .getResult();
    };
    SmallVector<OpFoldResult> offsetsAlongAxis;
    OpFoldResult total = rewriter.getIndexAttr(0);
    for (Value input : adaptor.getInputs()) {
      offsetsAlongAxis.push_back(total);
      total = add(total, sizeOf(input, axis));
    }
    SmallVector<Value> resultSizes;
    for (int64_t d = 0; d < out.getRank(); ++d)
      if (out.isDynamicDim(d))
        resultSizes.push_back(getValueOrCreateConstantIndexOp(
            rewriter, loc, d == axis ? total : sizeOf(adaptor.getInputs().front(), d)));
    Value result = emptyTensor(rewriter, loc, out, resultSizes);
    for (auto [input, offset] : llvm::zip(adaptor.getInputs(), offsetsAlongAxis)) {
      auto type = cast<RankedTensorType>(input.getType());
      // Empty inputs add nothing (numpy concatenates them); the offset past
      // the last element that inserting one would take is out of bounds.
      if (type.hasStaticShape() && type.getNumElements() == 0)
        continue;
      SmallVector<OpFoldResult> offsets(out.getRank(), rewriter.getIndexAttr(0)), sizes,
          strides(out.getRank(), rewriter.getIndexAttr(1));
      offsets[axis] = offset;
      for (int64_t d = 0; d < type.getRank(); ++d)
        sizes.push_back(sizeOf(input, d));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result, offsets, sizes, strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An index along an axis of `size` (index-typed) wrapped when negative
/// (counted from the end), and whether it is out of range after that:
/// negative still (unsigned: huge) or at least the size. `zero`: an index 0.
static std::pair<Value, Value> wrapIndex(OpBuilder &b, Location loc, Value index, Value size,
                                         Value zero) {
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, zero);
  index =
      arith::SelectOp::create(b, loc, negative, arith::AddIOp::create(b, loc, index, size), index);
  return {index, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, index, size)};
}

/// gather -> linalg.generic over the result that reads the operand with
/// tensor.extract; indices wrap when negative; one out of range (after
/// wrapping) is reported as a fault and clamped, so that the read stays in
/// bounds.
struct GatherLowering : FaultReportingPattern<GatherOp> {
  using FaultReportingPattern::FaultReportingPattern;
  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FaultReporter faults = faultReporter(op, reportFaults);
    RankedTensorType in = op.getOperand().getType(), out = op.getType();
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    int64_t axis = op.getAxis(), indexRank = indicesType.getRank();
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(rewriter.getAffineDimExpr(axis + d));
    SmallVector<AffineMap> maps = {
        AffineMap::get(out.getRank(), 0, indexExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(out.getRank())};
    Value operand = adaptor.getOperand(), indices = adaptor.getIndices();
    // `?` dims: the result's from the operand's (before and after the axis)
    // or the indices' (in its place), the axis's size read at run time.
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < out.getRank(); ++d)
      if (out.isDynamicDim(d))
        sizes.push_back(d < axis ? tensor::DimOp::create(rewriter, loc, operand, d)
                        : d < axis + indexRank
                            ? tensor::DimOp::create(rewriter, loc, indices, d - axis)
                            : tensor::DimOp::create(rewriter, loc, operand, d - indexRank + 1));
    Value axisSize =
        in.isDynamicDim(axis) ? tensor::DimOp::create(rewriter, loc, operand, axis) : Value();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, out, indices, emptyTensor(rewriter, loc, out, sizes), maps,
        parallelIterators(out.getRank()), [&](OpBuilder &b, Location loc, ValueRange args) {
          Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), args[0]);
          Value size = axisSize, last;
          if (axisSize) {
            last = arith::SubIOp::create(b, loc, size, arith::ConstantIndexOp::create(b, loc, 1));
          } else {
            size = arith::ConstantIndexOp::create(b, loc, in.getDimSize(axis));
            last = arith::ConstantIndexOp::create(b, loc, in.getDimSize(axis) - 1);
          }
          Value zero = arith::ConstantIndexOp::create(b, loc, 0), outOfRange;
          std::tie(index, outOfRange) = wrapIndex(b, loc, index, size, zero);
          index = arith::MaxSIOp::create(b, loc, zero, arith::MinSIOp::create(b, loc, index, last));
          SmallVector<Value> coords;
          for (int64_t d = 0; d < axis; ++d)
            coords.push_back(linalg::IndexOp::create(b, loc, d));
          coords.push_back(index);
          for (int64_t d = axis + 1; d < in.getRank(); ++d)
            coords.push_back(linalg::IndexOp::create(b, loc, d + indexRank - 1));
          Value element = tensor::ExtractOp::create(b, loc, operand, coords);
          element = faults.check(b, loc, outOfRange, element, FaultKind::IndexOutOfRange);
          linalg::YieldOp::create(b, loc, element);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// scatter -> a loop nest over the updates (in row-major order, so that of
/// several updates to one element in mode `update` the last wins), each
/// step reading its index, wrapping it when negative, and inserting the
/// update combined with the element it lands on; an index out of range is
/// reported as a fault and writes nothing.
struct ScatterLowering : FaultReportingPattern<ScatterOp> {
  using FaultReportingPattern::FaultReportingPattern;
  LogicalResult matchAndRewrite(ScatterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FaultReporter faults = faultReporter(op, reportFaults);
    RankedTensorType in = op.getOperand().getType();
    int64_t axis = op.getAxis();
    int64_t indexRank = cast<RankedTensorType>(op.getIndices().getType()).getRank();
    Value indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    SmallVector<Value> lower, upper, steps;
    for (int64_t d = 0; d < cast<RankedTensorType>(updates.getType()).getRank(); ++d) {
      lower.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
      upper.push_back(tensor::DimOp::create(rewriter, loc, updates, d));
      steps.push_back(arith::ConstantIndexOp::create(rewriter, loc, 1));
    }
    Value axisSize = tensor::DimOp::create(rewriter, loc, adaptor.getOperand(), axis);
    ScatterMode mode = op.getMode();
    bool floating = isa<FloatType>(in.getElementType());
    auto combine = [&](OpBuilder &b, Location loc, Value old, Value update) -> Value {
      switch (mode) {
      case ScatterMode::update:
        return update;
      case ScatterMode::add:
        return floating ? arith::AddFOp::create(b, loc, old, update).getResult()
                        : arith::AddIOp::create(b, loc, old, update).getResult();
      case ScatterMode::mul:
        return floating ? arith::MulFOp::create(b, loc, old, update).getResult()
                        : arith::MulIOp::create(b, loc, old, update).getResult();
      case ScatterMode::max: // NaN propagates, as ember.maximum
        return floating ? arith::MaximumFOp::create(b, loc, old, update).getResult()
                        : arith::MaxSIOp::create(b, loc, old, update).getResult();
      case ScatterMode::min:
        return floating ? arith::MinimumFOp::create(b, loc, old, update).getResult()
                        : arith::MinSIOp::create(b, loc, old, update).getResult();
      }
      llvm_unreachable("a scatter mode");
    };
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lower, upper, steps, ValueRange{adaptor.getOperand()},
        [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange carried) -> scf::ValueVector {
          Value index = tensor::ExtractOp::create(b, loc, indices, ivs.slice(axis, indexRank));
          index = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
          Value zero = arith::ConstantIndexOp::create(b, loc, 0), outOfRange;
          std::tie(index, outOfRange) = wrapIndex(b, loc, index, axisSize, zero);
          index = faults.check(b, loc, outOfRange, index, FaultKind::IndexOutOfRange);
          auto write = scf::IfOp::create(b, loc, carried[0].getType(), outOfRange, true);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(&write.getThenRegion().front());
          scf::YieldOp::create(b, loc, carried[0]);
          b.setInsertionPointToStart(&write.getElseRegion().front());
          SmallVector<Value> coords(ivs.take_front(axis));
          coords.push_back(index);
          llvm::append_range(coords, ivs.drop_front(axis + indexRank));
          Value old = tensor::ExtractOp::create(b, loc, carried[0], coords);
          Value update = tensor::ExtractOp::create(b, loc, updates, ivs);
          Value inserted =
              tensor::InsertOp::create(b, loc, combine(b, loc, old, update), carried[0], coords);
          scf::YieldOp::create(b, loc, inserted);
          return {write.getResult(0)};
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};

/// The lowest value of a numeric element type (-inf for floats).
static double lowestValue(Type type) {
  if (isa<FloatType>(type))
    return -std::numeric_limits<double>::infinity();
  return type.isInteger(32) ? (double)std::numeric_limits<int32_t>::min()
                            : (double)std::numeric_limits<int64_t>::min();
}

/// The highest value of a numeric element type (+inf for floats).
static double highestValue(Type type) {
  if (isa<FloatType>(type))
    return std::numeric_limits<double>::infinity();
  return type.isInteger(32) ? (double)std::numeric_limits<int32_t>::max()
                            : (double)std::numeric_limits<int64_t>::max();
}

/// Identity element of a reduction over `type`.
static double reductionInit(Operation *op, Type type) {
  if (isa<ReduceMaxOp>(op))
    return lowestValue(type);
  if (isa<ReduceMinOp>(op))
    return highestValue(type);
  if (isa<ReduceProdOp>(op))
    return 1;
  return 0;
}

/// The combiner of a reduction: sum (also for mean), product, max, min.
/// Float sums and products may be reassociated, as numpy (pairwise
/// summation), TensorFlow and LibTorch (tree and vector reductions) do: LLVM
/// then keeps several vector accumulators instead of one scalar chain.
static Value combine(Operation *op, OpBuilder &b, Location loc, Value x, Value acc) {
  bool isFloat = isa<FloatType>(x.getType());
  auto reassociable = arith::FastMathFlags::reassoc;
  if (isa<ReduceProdOp>(op))
    return isFloat ? (Value)arith::MulFOp::create(b, loc, x, acc, reassociable)
                   : (Value)arith::MulIOp::create(b, loc, x, acc);
  if (isa<ReduceMaxOp>(op))
    return isFloat ? (Value)arith::MaximumFOp::create(b, loc, x, acc)
                   : (Value)arith::MaxSIOp::create(b, loc, x, acc);
  if (isa<ReduceMinOp>(op))
    return isFloat ? (Value)arith::MinimumFOp::create(b, loc, x, acc)
                   : (Value)arith::MinSIOp::create(b, loc, x, acc);
  return isFloat ? (Value)arith::AddFOp::create(b, loc, x, acc, reassociable)
                 : (Value)arith::AddIOp::create(b, loc, x, acc);
}

/// The result type of a reduction without its kept (size-1) dims.
static RankedTensorType droppedType(RankedTensorType in, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      shape.push_back(in.getDimSize(d));
  return RankedTensorType::get(shape, in.getElementType());
}

template <typename OpTy>
struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType in = op.getOperand().getType();
    Operation *source = op.getOperation();
    // Sums and products of 16-bit floats accumulate in float32 (max and min
    // round nothing): the result is rounded once, at the end.
    Type resultElement = in.getElementType();
    Type element = isa<ReduceMaxOp, ReduceMinOp>(source) ? resultElement
                                                        : accumulatorType(resultElement);
    Value operand = castElements(rewriter, loc, adaptor.getOperand(), element);
    in = in.clone(element);
    SmallVector<int64_t> axes = llvm::to_vector(op.getAxes());
    llvm::sort(axes);
    RankedTensorType dropped = droppedType(in, axes);
    SmallVector<Value> keptSizes; // the dynamic dims that are not reduced
    for (int64_t d = 0; d < in.getRank(); ++d)
      if (in.isDynamicDim(d) && !llvm::is_contained(axes, d))
        keptSizes.push_back(tensor::DimOp::create(rewriter, loc, operand, d));
    Value init = filledTensor(rewriter, loc, dropped, reductionInit(source, element), keptSizes);
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, operand, init, axes,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, combine(source, b, loc, args[0], args[1]));
        });
    Value result = reduce.getResult(0);
    if (isa<ReduceMeanOp>(source)) {
      // The count is a constant, or the product of the reduced dims at run time.
      int64_t count = 1;
      Value dynamicCount;
      for (int64_t axis : axes) {
        if (!in.isDynamicDim(axis)) {
          count *= in.getDimSize(axis);
          continue;
        }
        Value size = tensor::DimOp::create(rewriter, loc, operand, axis);
        dynamicCount =
            dynamicCount ? Value(arith::MulIOp::create(rewriter, loc, dynamicCount, size)) : size;
      }
      Value dynamicN; // the count as a float, computed once before the loop
      if (dynamicCount) {
        Value asInteger =
            arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), dynamicCount);
        dynamicN = arith::MulFOp::create(
            rewriter, loc, constantLike(rewriter, loc, element, static_cast<double>(count)),
            arith::SIToFPOp::create(rewriter, loc, element, asInteger));
      }
      int64_t rank = dropped.getRank();
      SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
      result = linalg::GenericOp::create(
                   rewriter, loc, dropped, result, emptyTensor(rewriter, loc, dropped, keptSizes),
                   maps, parallelIterators(rank),
                   [&](OpBuilder &b, Location loc, ValueRange args) {
                     Value n = dynamicN ? dynamicN
                                        : constantLike(b, loc, element, static_cast<double>(count));
                     linalg::YieldOp::create(b, loc, Value(arith::DivFOp::create(b, loc, args[0], n)));
                   })
                   .getResult(0);
    }
    result = castElements(rewriter, loc, result, resultElement);
    // keepdims only inserts static 1s: the dynamic sizes are the kept ones.
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, result, op.getType(), keptSizes));
    return success();
  }
};

/// argmax -> linalg.generic reducing the axis into (max, index) pairs; a
/// strictly greater element (or the first NaN) replaces the pair, so the first
/// maximum wins, as in numpy. A `?` axis that is empty at run time has no
/// maximum: a fault (its verifier refuses a static empty one).
struct ArgMaxLowering : FaultReportingPattern<ArgMaxOp> {
  using FaultReportingPattern::FaultReportingPattern;
  LogicalResult matchAndRewrite(ArgMaxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType in = op.getOperand().getType();
    int64_t axis = op.getAxis(), rank = in.getRank();
    Type element = in.getElementType();
    Value operand = adaptor.getOperand();
    RankedTensorType values = droppedType(in, {axis});
    auto indexType = RankedTensorType::get(values.getShape(), rewriter.getI64Type());
    SmallVector<Value> keptSizes; // the dynamic dims that are not reduced
    for (int64_t d = 0; d < rank; ++d)
      if (in.isDynamicDim(d) && d != axis)
        keptSizes.push_back(tensor::DimOp::create(rewriter, loc, operand, d));
    // The running maximum starts at the lowest value of the element type.
    Value maxInit = filledTensor(rewriter, loc, values, lowestValue(element), keptSizes);
    Value firstIndex = arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
    if (in.isDynamicDim(axis)) {
      Value empty = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                          tensor::DimOp::create(rewriter, loc, operand, axis),
                                          arith::ConstantIndexOp::create(rewriter, loc, 0));
      firstIndex = faultReporter(op, reportFaults)
                       .check(rewriter, loc, empty, firstIndex, FaultKind::EmptyAxis);
    }
    Value indexInit = linalg::FillOp::create(rewriter, loc, firstIndex,
                                             emptyTensor(rewriter, loc, indexType, keptSizes))
                          .getResult(0);
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(d == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (d != axis)
        outExprs.push_back(rewriter.getAffineDimExpr(d));
    }
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, rewriter.getContext());
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank), outMap, outMap};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{values, indexType}, operand, ValueRange{maxInit, indexInit}, maps,
        iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value position = linalg::IndexOp::create(b, loc, axis);
          position = arith::IndexCastOp::create(b, loc, b.getI64Type(), position);
          Value greater = emitCompare(b, loc, ComparisonDirection::gt, args[0], args[1]);
          if (isa<FloatType>(args[0].getType())) {
            // numpy: the first NaN is the maximum.
            Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, args[0], args[0]);
            Value maxIsNumber =
                arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, args[1], args[1]);
            greater = arith::OrIOp::create(b, loc, greater,
                                           arith::AndIOp::create(b, loc, isNaN, maxIsNumber));
          }
          Value newMax = arith::SelectOp::create(b, loc, greater, args[0], args[1]);
          Value newIndex = arith::SelectOp::create(b, loc, greater, position, args[2]);
          linalg::YieldOp::create(b, loc, ValueRange{newMax, newIndex});
        });
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, generic.getResult(1), op.getType(), keptSizes));
    return success();
  }
};

/// matmul -> linalg.matmul (rank 2) or linalg.batch_matmul (the batch dims
/// collapsed into one) into a zero-filled accumulator: the same for every
/// target. CPUs block them for their vector registers
/// (ember-cpu-lower-matmuls); GPUs tile them through shared memory.
struct MatmulLowering : OpConversionPattern<MatmulOp> {
  MatmulLowering(MLIRContext *context, bool narrowOperands)
      : OpConversionPattern(context), narrowOperands(narrowOperands) {}
  bool narrowOperands;
  LogicalResult matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // 16-bit floats are multiplied and summed in float32 (operands widened,
    // exactly; the product rounded once): then a plain float32 matmul,
    // blocked like any other. With `narrowOperands` the linalg op widens
    // each element as it reads it (GPU tensor cores read 16-bit tiles).
    Type element = op.getType().getElementType(), accumulator = accumulatorType(element);
    RankedTensorType type = op.getType().clone(accumulator);
    Type operandElement = narrowOperands ? element : accumulator;
    Value lhs = castElements(rewriter, loc, adaptor.getLhs(), operandElement);
    Value rhs = castElements(rewriter, loc, adaptor.getRhs(), operandElement);
    auto finish = [&](Value product) {
      rewriter.replaceOp(op, castElements(rewriter, loc, product, element));
      return success();
    };
    // The result's dynamic sizes: batch dims and rows from A (or B, where
    // A's is a `?` and B's is not), columns from B.
    int64_t rank = type.getRank();
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      bool fromLhs = d < rank - 1;
      sizes.push_back(tensor::DimOp::create(rewriter, loc, fromLhs ? lhs : rhs, d));
    }
    if (rank == 2) {
      Value init = filledTensor(rewriter, loc, type, 0, sizes);
      return finish(
          linalg::MatmulOp::create(rewriter, loc, ValueRange{lhs, rhs}, init).getResult(0));
    }
    // [b..., m, k] -> [batch, m, k] with batch the product of the b's.
    auto batchedType = [](Type valueType) {
      auto tensorType = cast<RankedTensorType>(valueType);
      ArrayRef<int64_t> shape = tensorType.getShape();
      int64_t batch = 1;
      for (int64_t size : shape.drop_back(2))
        batch = ShapedType::isDynamic(size) || ShapedType::isDynamic(batch) ? ShapedType::kDynamic
                                                                            : batch * size;
      return RankedTensorType::get({batch, shape[shape.size() - 2], shape.back()},
                                   tensorType.getElementType());
    };
    // The batch dims as one group, whatever is known of their sizes.
    SmallVector<ReassociationIndices> groups = {
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 2)), {rank - 2}, {rank - 1}};
    auto collapse = [&](Value value) {
      return rank == 3 ? value
                       : tensor::CollapseShapeOp::create(rewriter, loc,
                                                         batchedType(value.getType()), value,
                                                         groups)
                             .getResult();
    };
    Value lhsBatched = collapse(lhs), rhsBatched = collapse(rhs);
    RankedTensorType resultType = batchedType(type);
    SmallVector<Value> batchedSizes;
    static constexpr bool kFromLhs[] = {true, true, false}; // [batch, m, n]
    for (auto [d, fromLhs] : llvm::enumerate(kFromLhs))
      if (resultType.isDynamicDim(d))
        batchedSizes.push_back(
            tensor::DimOp::create(rewriter, loc, fromLhs ? lhsBatched : rhsBatched, d));
    Value init = filledTensor(rewriter, loc, resultType, 0, batchedSizes);
    Value product =
        linalg::BatchMatmulOp::create(rewriter, loc, ValueRange{lhsBatched, rhsBatched}, init)
            .getResult(0);
    return finish(rank == 3 ? product : expandTo(rewriter, loc, product, type, groups, sizes));
  }
};

/// `input` (NHWC) with `dilations - 1` elements of `fill` between its
/// elements along H and W and `padding` [top, bottom, left, right] of them
/// around: inserted with strides at an offset into a filled tensor.
static Value padSpatially(OpBuilder &b, Location loc, Value input,
                          ArrayRef<int64_t> dilations, ArrayRef<int64_t> padding, double fill) {
  if (llvm::all_of(dilations, [](int64_t d) { return d == 1; }) &&
      llvm::all_of(padding, [](int64_t p) { return p == 0; }))
    return input;
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(inputType.getShape());
  for (int d = 0; d < 2; ++d)
    shape[1 + d] = (shape[1 + d] - 1) * dilations[d] + 1 + padding[2 * d] + padding[2 * d + 1];
  // A `?` batch or channel dim keeps its size.
  Value filled = filledTensor(b, loc, RankedTensorType::get(shape, inputType.getElementType()),
                              fill, dynamicSizesOf(b, loc, input));
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(padding[0]),
                                       b.getIndexAttr(padding[2]), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes, strides = {b.getIndexAttr(1), b.getIndexAttr(dilations[0]),
                                              b.getIndexAttr(dilations[1]), b.getIndexAttr(1)};
  for (auto [d, size] : llvm::enumerate(inputType.getShape()))
    sizes.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, input, d).getResult())
                        : b.getIndexAttr(size));
  return tensor::InsertSliceOp::create(b, loc, input, filled, offsets, sizes, strides);
}

/// The run-time sizes of an NHWC `type`'s `?` dims (only the batch and the
/// channels can be): the batch read from dim 0 of `batch`, the channels from
/// dim 3 of `channels`.
static SmallVector<Value> windowedSizes(OpBuilder &b, Location loc, RankedTensorType type,
                                        Value batch, Value channels) {
  SmallVector<Value> sizes;
  if (type.isDynamicDim(0))
    sizes.push_back(tensor::DimOp::create(b, loc, batch, 0));
  if (type.isDynamicDim(3))
    sizes.push_back(tensor::DimOp::create(b, loc, channels, 3));
  return sizes;
}

/// The shape operand of a pooling window [KH, KW] (its values are not read:
/// it gives the window loops their bounds).
static Value windowShape(OpBuilder &b, Location loc, ArrayRef<int64_t> window, Type element) {
  return tensor::EmptyOp::create(b, loc, window, element);
}

static DenseIntElementsAttr vector2Attr(OpBuilder &b, ArrayRef<int64_t> values) {
  return DenseIntElementsAttr::get(VectorType::get({2}, b.getI64Type()), values);
}

/// conv2d -> the input (dilated and padded with zeros) into
/// linalg.conv_2d_nhwc_hwcf with the strides and filter dilations,
/// accumulating into zeros.
struct Conv2DLowering : OpConversionPattern<Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // 16-bit floats accumulate in float32, as matmuls do.
    Type element = op.getType().getElementType(), accumulator = accumulatorType(element);
    Value input = padSpatially(rewriter, loc,
                               castElements(rewriter, loc, adaptor.getInput(), accumulator),
                               op.getInputDilations(), op.getPadding(), 0);
    Value filter = castElements(rewriter, loc, adaptor.getFilter(), accumulator);
    RankedTensorType type = op.getType().clone(accumulator);
    Value init =
        filledTensor(rewriter, loc, type, 0, windowedSizes(rewriter, loc, type, input, filter));
    auto conv = linalg::Conv2DNhwcHwcfOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{input, filter}, ValueRange{init},
        vector2Attr(rewriter, op.getStrides()), vector2Attr(rewriter, op.getDilations()));
    rewriter.replaceOp(op, castElements(rewriter, loc, conv.getResult(0), element));
    return success();
  }
};

/// Index arithmetic of pooling windows, inside a linalg body.
struct WindowMath {
  OpBuilder &b;
  Location loc;
  Value constant(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  /// The number of input elements (not padding) in window `o` along an axis
  /// of `size` elements: min(o*stride - pad + window, size) - max(o*stride - pad, 0).
  Value elementsIn(Value o, int64_t stride, int64_t pad, int64_t window, int64_t size) {
    Value start = sub(mul(o, constant(stride)), constant(pad));
    Value end = arith::MinSIOp::create(b, loc, add(start, constant(window)), constant(size));
    return sub(end, arith::MaxSIOp::create(b, loc, start, constant(0)));
  }
  Value toFloat(Value index, Type type) {
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
    return arith::SIToFPOp::create(b, loc, type, i64);
  }
};

/// The loops of a pooling's window reductions: (n, h, w) parallel, then the
/// window offsets (kh, kw) reduced, then the channels c, parallel and
/// innermost, so that each step reads and writes a row of channels
/// (contiguous in NHWC: vector loads; linalg's named poolings put c before
/// kh and kw, a strided scalar loop). The dims' positions, the maps of the
/// per-position tensors and of the window shape operand, and the iterator
/// types.
struct WindowLoops {
  static constexpr unsigned kN = 0, kH = 1, kW = 2, kKH = 3, kKW = 4, kC = 5;
  AffineMap positions, window;
  SmallVector<utils::IteratorType> iterators;
};
static WindowLoops windowLoops(MLIRContext *context) {
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  using W = WindowLoops;
  SmallVector<utils::IteratorType> iterators = parallelIterators(6);
  iterators[W::kKH] = iterators[W::kKW] = utils::IteratorType::reduction;
  return {AffineMap::get(6, 0, {d(W::kN), d(W::kH), d(W::kW), d(W::kC)}, context),
          AffineMap::get(6, 0, {d(W::kKH), d(W::kKW)}, context), iterators};
}

/// The map of a padded pooling input in those loops: window (h, w) at
/// offset (kh, kw) reads (h * stride + kh, w * stride + kw).
static AffineMap windowedInput(MLIRContext *context, ArrayRef<int64_t> strides) {
  auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
  using W = WindowLoops;
  return AffineMap::get(
      6, 0,
      {d(W::kN), d(W::kH) * strides[0] + d(W::kKH), d(W::kW) * strides[1] + d(W::kKW), d(W::kC)},
      context);
}

/// A window reduction of the padded `input` into `init` (of `type`) by
/// `combine(element, sum)`: max pooling's maximum, average pooling's sum.
template <typename Combine>
static Value reduceWindows(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> window,
                           ArrayRef<int64_t> strides, RankedTensorType type, Value init,
                           Combine combine) {
  MLIRContext *context = b.getContext();
  WindowLoops loops = windowLoops(context);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type},
      ValueRange{input, windowShape(b, loc, window, type.getElementType())}, init,
      SmallVector<AffineMap>{windowedInput(context, strides), loops.window, loops.positions},
      loops.iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, ValueRange{combine(b, loc, args[0], args[2])});
      });
  return generic.getResult(0);
}

/// max_pool2d -> linalg.pooling_nhwc_max over the input padded with -inf.
struct MaxPool2DLowering : OpConversionPattern<MaxPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPool2DOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    double lowest = -std::numeric_limits<double>::infinity();
    Value input = padSpatially(rewriter, loc, adaptor.getInput(), {1, 1}, op.getPadding(), lowest);
    RankedTensorType type = op.getType();
    Value init =
        filledTensor(rewriter, loc, type, lowest, windowedSizes(rewriter, loc, type, input, input));
    rewriter.replaceOp(
        op, reduceWindows(rewriter, loc, input, op.getWindow(), op.getStrides(), type, init,
                          [](OpBuilder &b, Location loc, Value x, Value max) -> Value {
                            return arith::MaximumFOp::create(b, loc, max, x);
                          }));
    return success();
  }
};

/// avg_pool2d -> linalg.pooling_nhwc_sum over the zero-padded input, each
/// sum divided by the number of input elements in its window.
struct AvgPool2DLowering : OpConversionPattern<AvgPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AvgPool2DOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> window = op.getWindow(), strides = op.getStrides(),
                      padding = op.getPadding();
    ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
    Value input = padSpatially(rewriter, loc, adaptor.getInput(), {1, 1}, padding, 0);
    RankedTensorType type = op.getType();
    SmallVector<Value> sizes = windowedSizes(rewriter, loc, type, input, input);
    Value sums = reduceWindows(rewriter, loc, input, window, strides, type,
                               filledTensor(rewriter, loc, type, 0, sizes),
                               [](OpBuilder &b, Location loc, Value x, Value sum) -> Value {
                                 return arith::AddFOp::create(b, loc, sum, x);
                               });
    AffineMap identity = rewriter.getMultiDimIdentityMap(4);
    auto mean = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, sums, emptyTensor(rewriter, loc, type, sizes),
        SmallVector<AffineMap>{identity, identity}, parallelIterators(4),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          WindowMath m{b, loc};
          Value rows = m.elementsIn(linalg::IndexOp::create(b, loc, 1), strides[0], padding[0],
                                    window[0], inShape[1]);
          Value cols = m.elementsIn(linalg::IndexOp::create(b, loc, 2), strides[1], padding[2],
                                    window[1], inShape[2]);
          Value count = m.toFloat(m.mul(rows, cols), args[0].getType());
          linalg::YieldOp::create(b, loc, ValueRange{arith::DivFOp::create(b, loc, args[0], count)});
        });
    rewriter.replaceOp(op, mean.getResult(0));
    return success();
  }
};

/// The pooling gradients, as a reduction over each input element's window
/// offsets (kh, kw): the element at h is offset kh in window
/// oh = (h + top - kh) / stride when that divides and is a window; its
/// cotangent there (for max pooling, only where the window's first maximum
/// is at kh, kw; for average pooling, divided by the window's count) adds up.
template <typename GradOp>
struct Pool2DGradLowering : OpConversionPattern<GradOp> {
  using OpConversionPattern<GradOp>::OpConversionPattern;
  using OpAdaptor = typename GradOp::Adaptor;
  static constexpr bool isMax = std::is_same_v<GradOp, MaxPool2DGradOp>;

  LogicalResult matchAndRewrite(GradOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> window = op.getWindow(), strides = op.getStrides(),
                      padding = op.getPadding();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto outType = cast<RankedTensorType>(op.getCotangent().getType());
    Type element = inType.getElementType();
    Value cotangent = adaptor.getCotangent();
    Value firstMax = isMax ? firstMaxima(rewriter, loc, op, adaptor.getInput(), outType) : Value();

    WindowLoops loops = windowLoops(rewriter.getContext());
    auto grad = linalg::GenericOp::create(
        rewriter, loc, TypeRange{inType}, windowShape(rewriter, loc, window, element),
        ValueRange{filledTensor(rewriter, loc, inType, 0,
                                dynamicSizesOf(rewriter, loc, adaptor.getInput()))},
        SmallVector<AffineMap>{loops.window, loops.positions}, loops.iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          WindowMath m{b, loc};
          SmallVector<Value> at;
          for (int64_t i = 0; i < 6; ++i)
            at.push_back(linalg::IndexOp::create(b, loc, i));
          // The window along each axis, and whether there is one.
          Value valid;
          using W = WindowLoops;
          SmallVector<Value> windowAt = {at[W::kN], Value(), Value(), at[W::kC]};
          for (int a = 0; a < 2; ++a) {
            Value shifted = m.sub(m.add(at[W::kH + a], m.constant(padding[2 * a])), at[W::kKH + a]);
            Value stride = m.constant(strides[a]);
            Value o = arith::DivSIOp::create(b, loc, shifted, stride);
            Value ok = m.both(m.cmp(arith::CmpIPredicate::sge, shifted, m.constant(0)),
                              m.cmp(arith::CmpIPredicate::eq,
                                    arith::RemSIOp::create(b, loc, shifted, stride),
                                    m.constant(0)));
            ok = m.both(ok, m.cmp(arith::CmpIPredicate::slt, o,
                                  m.constant(outType.getDimSize(1 + a))));
            valid = valid ? m.both(valid, ok) : ok;
            // Clamped, so that the reads below stay in bounds.
            Value zero = m.constant(0);
            windowAt[1 + a] = arith::SelectOp::create(b, loc, ok, o, zero);
          }
          Value g = tensor::ExtractOp::create(b, loc, cotangent, windowAt);
          if constexpr (isMax) {
            Value offset = m.add(m.mul(at[W::kKH], m.constant(window[1])), at[W::kKW]);
            Value first = tensor::ExtractOp::create(b, loc, firstMax, windowAt);
            first = arith::IndexCastOp::create(b, loc, b.getIndexType(), first);
            valid = m.both(valid, m.cmp(arith::CmpIPredicate::eq, first, offset));
          } else {
            Value rows = m.elementsIn(windowAt[1], strides[0], padding[0], window[0],
                                      inType.getDimSize(1));
            Value cols = m.elementsIn(windowAt[2], strides[1], padding[2], window[1],
                                      inType.getDimSize(2));
            g = arith::DivFOp::create(b, loc, g, m.toFloat(m.mul(rows, cols), element));
          }
          Value zero = constantLike(b, loc, element, 0);
          Value share = arith::SelectOp::create(b, loc, valid, g, zero);
          linalg::YieldOp::create(b, loc, ValueRange{arith::AddFOp::create(b, loc, args[1], share)});
        });
    rewriter.replaceOp(op, grad.getResult(0));
    return success();
  }

  /// The offset kh * KW + kw of the first largest element of each window
  /// (row by row), as i64 [N, OH, OW, C].
  static Value firstMaxima(OpBuilder &b, Location loc, GradOp op, Value input,
                           RankedTensorType outType) {
    ArrayRef<int64_t> window = op.getWindow(), strides = op.getStrides();
    double lowest = -std::numeric_limits<double>::infinity();
    Value padded = padSpatially(b, loc, input, {1, 1}, op.getPadding(), lowest);
    MLIRContext *context = b.getContext();
    AffineMap inMap = windowedInput(context, strides);
    WindowLoops loops = windowLoops(context);
    auto indexType = RankedTensorType::get(outType.getShape(), b.getI64Type());
    SmallVector<Value> sizes = windowedSizes(b, loc, outType, input, input);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{outType, indexType},
        ValueRange{padded, windowShape(b, loc, window, outType.getElementType())},
        ValueRange{filledTensor(b, loc, outType, lowest, sizes),
                   filledTensor(b, loc, indexType, 0, sizes)},
        SmallVector<AffineMap>{inMap, loops.window, loops.positions, loops.positions},
        loops.iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value kh = linalg::IndexOp::create(b, loc, WindowLoops::kKH),
                kw = linalg::IndexOp::create(b, loc, WindowLoops::kKW);
          WindowMath m{b, loc};
          Value offset = m.add(m.mul(kh, m.constant(window[1])), kw);
          offset = arith::IndexCastOp::create(b, loc, b.getI64Type(), offset);
          // Strictly greater: a later equal element does not take over.
          Value greater =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, args[0], args[2]);
          linalg::YieldOp::create(
              b, loc,
              ValueRange{arith::SelectOp::create(b, loc, greater, args[0], args[2]),
                         arith::SelectOp::create(b, loc, greater, offset, args[3])});
        });
    return generic.getResult(1);
  }
};

/// max_pool2d_gather -> one window reduction carrying, with each window's
/// running maximum of the input (padded with -inf), the element of `values`
/// at its place: strictly greater takes over, so the first maximum (row by
/// row) wins, the one max_pool2d_grad chooses.
struct MaxPool2DGatherLowering : OpConversionPattern<MaxPool2DGatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPool2DGatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> window = op.getWindow(), strides = op.getStrides();
    double lowest = -std::numeric_limits<double>::infinity();
    Value input = padSpatially(rewriter, loc, adaptor.getInput(), {1, 1}, op.getPadding(), lowest);
    Value values = padSpatially(rewriter, loc, adaptor.getValues(), {1, 1}, op.getPadding(), 0);
    RankedTensorType type = op.getType();
    SmallVector<Value> sizes = windowedSizes(rewriter, loc, type, input, input);
    MLIRContext *context = rewriter.getContext();
    AffineMap inMap = windowedInput(context, strides);
    WindowLoops loops = windowLoops(context);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type, type},
        ValueRange{input, values, windowShape(rewriter, loc, window, type.getElementType())},
        ValueRange{filledTensor(rewriter, loc, type, lowest, sizes),
                   filledTensor(rewriter, loc, type, 0, sizes)},
        SmallVector<AffineMap>{inMap, inMap, loops.window, loops.positions, loops.positions},
        loops.iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value greater =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, args[0], args[3]);
          linalg::YieldOp::create(
              b, loc,
              ValueRange{arith::SelectOp::create(b, loc, greater, args[0], args[3]),
                         arith::SelectOp::create(b, loc, greater, args[1], args[4])});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

} // namespace

bool mlir::ember::lowersDynamicShapes(Operation *op) {
  // Windows (their verifiers keep heights and widths static) take `?`
  // batches and channels; slices take bounds inside `?` dims (counted from
  // either end: see dynamicSliceBounds).
  return op->hasTrait<ember::Elementwise>() ||
         isa<BroadcastToOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp, ReduceMeanOp,
             MatmulOp, TransposeOp, ReshapeOp, ShapeOfOp, IotaOp, SliceOp, ConcatOp, GatherOp,
             ScatterOp, ArgMaxOp, CustomGradientOp, YieldOp, Conv2DOp, MaxPool2DOp, AvgPool2DOp,
             MaxPool2DGradOp, AvgPool2DGradOp, MaxPool2DGatherOp, AllReduceOp>(op);
}

namespace {

struct ConvertEmberToLinalgPass
    : ember::impl::ConvertEmberToLinalgPassBase<ConvertEmberToLinalgPass> {
  using ConvertEmberToLinalgPassBase::ConvertEmberToLinalgPassBase;
  void runOnOperation() override {
    // Elementwise ops, broadcasts and reductions lower dynamic dims; the
    // other patterns lower static shapes, and a dynamic dim reaching one of
    // them is refused at its op, not left to crash a pattern.
    WalkResult dynamic = getOperation()->walk([](Operation *op) {
      if (!isa<EmberDialect>(op->getDialect()) || lowersDynamicShapes(op))
        return WalkResult::advance();
      for (Type type : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
        if (auto shaped = dyn_cast<ShapedType>(type); shaped && !shaped.hasStaticShape()) {
          op->emitOpError() << "has the dynamic shape " << type
                            << ": convert-ember-to-linalg lowers static shapes only";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return signalPassFailure();
    ConversionTarget target(getContext());
    target.addIllegalDialect<EmberDialect>();
    target.addLegalOp<FaultIfOp>(); // scalar, in the bodies this makes
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateEmberToLinalgPatterns(patterns, reportFaults, narrowMatmulOperands);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::ember::populateEmberToLinalgPatterns(RewritePatternSet &patterns, bool reportFaults,
                                                bool narrowMatmulOperands) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ElementwiseToGeneric>(context, reportFaults);
  patterns.add<GatherLowering, ScatterLowering, ArgMaxLowering, AllReduceLowering>(context,
                                                                                   reportFaults);
  patterns.add<ConstantLowering, CustomGradientLowering, PrintLowering, BroadcastToLowering,
               ReshapeLowering, TransposeLowering, ShapeOfLowering, IotaLowering, SliceLowering,
               ConcatLowering, ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceMaxOp>,
               ReduceLowering<ReduceMinOp>, ReduceLowering<ReduceProdOp>,
               ReduceLowering<ReduceMeanOp>, Conv2DLowering, MaxPool2DLowering, AvgPool2DLowering,
               Pool2DGradLowering<MaxPool2DGradOp>, Pool2DGradLowering<AvgPool2DGradOp>,
               MaxPool2DGatherLowering>(context);
  patterns.add<MatmulLowering>(context, narrowMatmulOperands);
}
