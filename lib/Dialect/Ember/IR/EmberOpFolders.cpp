//===- EmberOpFolders.cpp - constant folding and algebraic identities -----===//
//
// Folders evaluate ember ops on constants with the same semantics as the
// compiled code (numpy's), and remove identities (x + 0, x * 1, transpose of a
// transpose, reshape of a reshape, ...). Folding that would create a constant
// of more than kMaxFoldElements elements is skipped.
//
//===----------------------------------------------------------------------===//

#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

using namespace mlir;
using namespace mlir::ember;

//===----------------------------------------------------------------------===//
// Scalar semantics, one C++ type per ember element type
//===----------------------------------------------------------------------===//

namespace {
template <typename T>
constexpr bool isFloat = std::is_floating_point_v<T>;
template <typename T>
constexpr bool isInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T>
constexpr bool isNumber = isFloat<T> || isInt<T>;

/// Two's-complement wrapping arithmetic for integers (no UB on overflow).
template <typename T, typename Op>
T wrap(T a, T b, Op op) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(op(static_cast<U>(a), static_cast<U>(b)));
}

template <typename T>
std::optional<T> floorDiv(T a, T b) {
  if constexpr (isFloat<T>) {
    return std::floor(a / b);
  } else {
    if (b == 0 || (a == std::numeric_limits<T>::min() && b == -1))
      return std::nullopt;
    T q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
      --q;
    return q;
  }
}

template <typename T>
std::optional<T> floorMod(T a, T b) {
  if constexpr (isFloat<T>) {
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  } else {
    if (b == 0)
      return std::nullopt;
    if (b == -1)
      return T(0);
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  }
}

template <typename T>
T power(T base, T exponent) {
  if constexpr (isFloat<T>) {
    return std::pow(base, exponent);
  } else {
    if (exponent < 0)
      return base == 1 ? T(1) : base == -1 ? (exponent % 2 ? T(-1) : T(1)) : T(0);
    T result = 1;
    while (exponent) {
      if (exponent & 1)
        result = wrap(result, base, std::multiplies<>());
      base = wrap(base, base, std::multiplies<>());
      exponent >>= 1;
    }
    return result;
  }
}

template <typename T>
T maxPropagatingNaN(T a, T b) {
  if constexpr (isFloat<T>)
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
  return a < b ? b : a;
}

template <typename T>
T minPropagatingNaN(T a, T b) {
  if constexpr (isFloat<T>)
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
  return b < a ? b : a;
}
} // namespace

template <typename T>
static T square(T x) {
  if constexpr (isInt<T>)
    return wrap(x, x, std::multiplies<>());
  else
    return x * x;
}

/// |x|; for floats fabs, so that -0.0 gives +0.0 as the compiled code does.
template <typename T>
static T absolute(T x) {
  if constexpr (isFloat<T>)
    return std::fabs(x);
  else
    return x < 0 ? T(0) - x : x;
}

/// max(x, 0) with NaN propagating, as arith.maximumf in the compiled code.
template <typename T>
static T relu(T x) {
  if constexpr (isFloat<T>)
    if (std::isnan(x))
      return x;
  return x > 0 ? x : T(0);
}

/// Calls `fn(T{})` with the C++ type of an ember element type.
template <typename Fn>
static Attribute visitElementType(Type type, Fn &&fn) {
  if (type.isF32())
    return fn(float{});
  if (type.isF64())
    return fn(double{});
  if (type.isInteger(1))
    return fn(bool{});
  if (type.isInteger(32))
    return fn(int32_t{});
  if (type.isInteger(64))
    return fn(int64_t{});
  return {};
}

static DenseElementsAttr foldableConstant(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() > kMaxFoldElements)
    return {};
  return dense;
}

/// Elementwise fold of constants; `calc(T...)` returns std::optional<R>, and no
/// value (e.g. integer division by zero) leaves the op alone.
template <typename Calc, typename... Attrs>
static Attribute foldElementwise(Type resultType, Calc &&calc, DenseElementsAttr first,
                                 Attrs... rest) {
  if (!first || (!rest || ...))
    return {};
  auto shaped = cast<ShapedType>(resultType);
  return visitElementType(first.getElementType(), [&](auto tag) -> Attribute {
    using T = decltype(tag);
    if constexpr (!std::is_invocable_v<Calc, T, decltype(((void)rest, T{}))...>) {
      return {};
    } else {
      using R = typename std::invoke_result_t<Calc, T, decltype(((void)rest, T{}))...>::value_type;
      auto firstValues = first.getValues<T>();
      std::tuple restValues{rest.template getValues<T>()...};
      SmallVector<R> out;
      out.reserve(first.getNumElements());
      for (int64_t i = 0, e = first.getNumElements(); i < e; ++i) {
        std::optional<R> value = std::apply(
            [&](auto &...values) { return calc(firstValues[i], values[i]...); }, restValues);
        if (!value)
          return {};
        out.push_back(*value);
      }
      if constexpr (std::is_same_v<R, bool>) {
        SmallVector<bool> bits(out.begin(), out.end());
        return DenseElementsAttr::get(shaped, ArrayRef<bool>(bits));
      } else {
        return DenseElementsAttr::get(shaped, ArrayRef<R>(out));
      }
    }
  });
}

template <typename Calc>
static Attribute foldBinary(Type resultType, ArrayRef<Attribute> operands, Calc &&calc) {
  return foldElementwise(resultType, calc, foldableConstant(operands[0]),
                         foldableConstant(operands[1]));
}

template <typename Calc>
static Attribute foldUnary(Type resultType, ArrayRef<Attribute> operands, Calc &&calc) {
  return foldElementwise(resultType, calc, foldableConstant(operands[0]));
}

/// True if `attr` is a constant whose every element equals `value`.
static bool isSplatOf(Attribute attr, double value) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type type = splat.getElementType();
  if (isa<FloatType>(type))
    return splat.getSplatValue<APFloat>().convertToDouble() == value;
  if (type.isInteger(1))
    return false;
  return splat.getSplatValue<APInt>().getSExtValue() == static_cast<int64_t>(value);
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

// Pattern: add(x, 0) -> x (also for floats, as XLA and Grappler do).
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0))
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 0))
    return getRhs();
  return foldBinary(getType(), adaptor.getOperands(), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (isInt<T>)
      return std::optional<T>(wrap(a, b, std::plus<>()));
    else if constexpr (isFloat<T>)
      return std::optional<T>(a + b);
    else
      return std::optional<T>();
  });
}

// Pattern: sub(x, 0) -> x.
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0))
    return getLhs();
  return foldBinary(getType(), adaptor.getOperands(), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (isInt<T>)
      return std::optional<T>(wrap(a, b, std::minus<>()));
    else if constexpr (isFloat<T>)
      return std::optional<T>(a - b);
    else
      return std::optional<T>();
  });
}

// Pattern: mul(x, 1) -> x.
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 1))
    return getRhs();
  return foldBinary(getType(), adaptor.getOperands(), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (isInt<T>)
      return std::optional<T>(wrap(a, b, std::multiplies<>()));
    else if constexpr (isFloat<T>)
      return std::optional<T>(a * b);
    else
      return std::optional<T>();
  });
}

// Pattern: div(x, 1) -> x.
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return foldBinary(getType(), adaptor.getOperands(), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (isInt<T>) {
      if (b == 0 || (a == std::numeric_limits<T>::min() && b == -1))
        return std::optional<T>();
      return std::optional<T>(a / b);
    } else if constexpr (isFloat<T>) {
      return std::optional<T>(a / b);
    } else {
      return std::optional<T>();
    }
  });
}

OpFoldResult FloorDivOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getOperands(), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (isNumber<T>)
      return floorDiv(a, b);
    else
      return std::optional<T>();
  });
}

OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  return foldBinary(getType(), adaptor.getOperands(), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (isNumber<T>)
      return floorMod(a, b);
    else
      return std::optional<T>();
  });
}

// Pattern: pow(x, 1) -> x.
OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return foldBinary(getType(), adaptor.getOperands(), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (isNumber<T>)
      return std::optional<T>(power(a, b));
    else
      return std::optional<T>();
  });
}

// Pattern: maximum(x, x) -> x.
OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(getType(), adaptor.getOperands(),
                    [](auto a, auto b) { return std::optional(maxPropagatingNaN(a, b)); });
}

// Pattern: minimum(x, x) -> x.
OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(getType(), adaptor.getOperands(),
                    [](auto a, auto b) { return std::optional(minPropagatingNaN(a, b)); });
}

// Pattern: and(x, x) -> x.
OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(getType(), adaptor.getOperands(), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_same_v<T, bool>)
      return std::optional<bool>(a && b);
    else if constexpr (isInt<T>)
      return std::optional<T>(a & b);
    else
      return std::optional<T>();
  });
}

// Pattern: or(x, x) -> x.
OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(getType(), adaptor.getOperands(), [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_same_v<T, bool>)
      return std::optional<bool>(a || b);
    else if constexpr (isInt<T>)
      return std::optional<T>(a | b);
    else
      return std::optional<T>();
  });
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  ComparisonDirection direction = getDirection();
  return foldBinary(getType(), adaptor.getOperands(), [direction](auto a, auto b) {
    switch (direction) {
    case ComparisonDirection::eq:
      return std::optional<bool>(a == b);
    case ComparisonDirection::ne:
      return std::optional<bool>(a != b);
    case ComparisonDirection::lt:
      return std::optional<bool>(a < b);
    case ComparisonDirection::le:
      return std::optional<bool>(a <= b);
    case ComparisonDirection::gt:
      return std::optional<bool>(a > b);
    case ComparisonDirection::ge:
      return std::optional<bool>(a >= b);
    }
    return std::optional<bool>();
  });
}

// Pattern: select(true, a, b) -> a; select(false, a, b) -> b; select(c, a, a) -> a.
OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCondition()))
    return splat.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  auto cond = foldableConstant(adaptor.getCondition());
  auto onTrue = foldableConstant(adaptor.getOnTrue());
  auto onFalse = foldableConstant(adaptor.getOnFalse());
  if (!cond || !onTrue || !onFalse)
    return {};
  auto condValues = cond.getValues<bool>();
  auto trueValues = onTrue.getValues<Attribute>(), falseValues = onFalse.getValues<Attribute>();
  SmallVector<Attribute> out;
  for (int64_t i = 0, e = cond.getNumElements(); i < e; ++i)
    out.push_back(condValues[i] ? trueValues[i] : falseValues[i]);
  return DenseElementsAttr::get(getType(), out);
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

/// Folds a unary op on floats (and on numbers if `numbers` is set) with `fn`.
#define EMBER_FOLD_UNARY(OP, CONDITION, EXPR)                                            \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                           \
    return foldUnary(getType(), adaptor.getOperands(), [](auto x) {                      \
      using T = decltype(x);                                                             \
      if constexpr (CONDITION)                                                           \
        return std::optional<T>(static_cast<T>(EXPR));                                   \
      else                                                                               \
        return std::optional<T>();                                                       \
    });                                                                                  \
  }

EMBER_FOLD_UNARY(AbsOp, isNumber<T>, absolute(x))
EMBER_FOLD_UNARY(ExpOp, isFloat<T>, std::exp(x))
EMBER_FOLD_UNARY(LogOp, isFloat<T>, std::log(x))
EMBER_FOLD_UNARY(Log1pOp, isFloat<T>, std::log1p(x))
EMBER_FOLD_UNARY(ErfOp, isFloat<T>, std::erf(x))
EMBER_FOLD_UNARY(SqrtOp, isFloat<T>, std::sqrt(x))
EMBER_FOLD_UNARY(RsqrtOp, isFloat<T>, T(1) / std::sqrt(x))
EMBER_FOLD_UNARY(TanhOp, isFloat<T>, std::tanh(x))
EMBER_FOLD_UNARY(SigmoidOp, isFloat<T>, T(1) / (T(1) + std::exp(-x)))
EMBER_FOLD_UNARY(ReluOp, isNumber<T>, relu(x))
EMBER_FOLD_UNARY(SquareOp, isNumber<T>, square(x))
EMBER_FOLD_UNARY(SignOp, isNumber<T>, x > 0 ? T(1) : x < 0 ? T(-1) : x)
EMBER_FOLD_UNARY(SinOp, isFloat<T>, std::sin(x))
EMBER_FOLD_UNARY(CosOp, isFloat<T>, std::cos(x))
EMBER_FOLD_UNARY(AsinOp, isFloat<T>, std::asin(x))
EMBER_FOLD_UNARY(AcosOp, isFloat<T>, std::acos(x))
EMBER_FOLD_UNARY(AtanOp, isFloat<T>, std::atan(x))
#undef EMBER_FOLD_UNARY

// Pattern: neg(neg(x)) -> x.
OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return foldUnary(getType(), adaptor.getOperands(), [](auto x) {
    using T = decltype(x);
    if constexpr (isInt<T>)
      return std::optional<T>(wrap(T(0), x, std::minus<>()));
    else if constexpr (isFloat<T>)
      return std::optional<T>(-x);
    else
      return std::optional<T>();
  });
}

// Pattern: not(not(x)) -> x.
OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NotOp>())
    return inner.getOperand();
  return foldUnary(getType(), adaptor.getOperands(), [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>)
      return std::optional<bool>(!x);
    else if constexpr (isInt<T>)
      return std::optional<T>(~x);
    else
      return std::optional<T>();
  });
}

/// numpy conversion of one element from `From` to `To`, a float that does
/// not fit an integer type saturating and NaN giving 0 (as the compiled code).
template <typename To, typename From>
static std::optional<To> convertElement(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (isFloat<From> && isInt<To>) {
    if (std::isnan(x))
      return To(0);
    if (x <= static_cast<From>(std::numeric_limits<To>::min()))
      return std::numeric_limits<To>::min();
    if (x >= -static_cast<From>(std::numeric_limits<To>::min()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

// Pattern: cast(x) to x's own type -> x.
OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  DenseElementsAttr input = foldableConstant(adaptor.getOperand());
  if (!input)
    return {};
  return visitElementType(getType().getElementType(), [&](auto toTag) -> Attribute {
    using To = decltype(toTag);
    return foldElementwise(
        getType(), [](auto x) { return convertElement<To>(x); }, input);
  });
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

/// Row-major strides of `shape`.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Builds a constant of `type` whose element at each result index is the
/// element of `input` at `sourceIndex(resultIndex)` (flat, row-major).
template <typename SourceIndex>
static Attribute gatherElements(DenseElementsAttr input, RankedTensorType type,
                                SourceIndex &&sourceIndex) {
  if (!input || type.getNumElements() > kMaxFoldElements)
    return {};
  if (input.isSplat())
    return input.resizeSplat(type);
  auto values = input.getValues<Attribute>();
  SmallVector<int64_t> strides = stridesOf(type.getShape()), index(type.getRank());
  SmallVector<Attribute> out;
  out.reserve(type.getNumElements());
  for (int64_t flat = 0, e = type.getNumElements(); flat < e; ++flat) {
    for (int64_t d = 0, rem = flat; d < type.getRank(); ++d) {
      index[d] = rem / strides[d];
      rem %= strides[d];
    }
    out.push_back(values[sourceIndex(index)]);
  }
  return DenseElementsAttr::get(type, out);
}

// Pattern: broadcast_to(x) to x's own type -> x; on a constant -> constant.
OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  auto in = getOperand().getType();
  if (in == getType())
    return getOperand();
  // Constants have static shapes; a `?` in the result has no constant value.
  if (!foldableConstant(adaptor.getOperand()) || !getType().hasStaticShape())
    return {};
  SmallVector<int64_t> inStrides = stridesOf(in.getShape());
  int64_t lead = getType().getRank() - in.getRank();
  return gatherElements(foldableConstant(adaptor.getOperand()), getType(),
                        [&](ArrayRef<int64_t> index) {
                          int64_t flat = 0;
                          for (int64_t d = 0; d < in.getRank(); ++d)
                            flat += (in.getDimSize(d) == 1 ? 0 : index[d + lead]) * inStrides[d];
                          return flat;
                        });
}

// Pattern: reshape(x) to x's type -> x; reshape(reshape(x)) -> reshape(x);
// reshape of a constant -> constant.
/// Whether `sizes` are `value`'s own `?` dims, in order (tensor.dim of it).
static bool areDimsOf(ValueRange sizes, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  for (int64_t d = 0, next = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    auto dim = sizes[next++].getDefiningOp<tensor::DimOp>();
    if (!dim || dim.getSource() != value || dim.getConstantIndex() != d)
      return false;
  }
  return true;
}

/// Whether `reshape` takes every operand its type allows: static, or one
/// `?` result dim inferred exactly (a merge: [?, ?, 3] -> [?, 3]); not one
/// whose element count or divisibility the call checks.
static bool cannotFail(ReshapeOp reshape) {
  RankedTensorType in = reshape.getOperand().getType(), out = reshape.getType();
  if (in.hasStaticShape() && out.hasStaticShape())
    return true;
  if (!reshape.getSizes().empty() || out.hasStaticShape())
    return false;
  int64_t inKnown = knownElements(in), outKnown = knownElements(out);
  return inKnown != 0 && outKnown != 0 && inKnown % outKnown == 0;
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // (Sizes other than the operand's own regroup it: [?, ?] sized [b, t] is
  // no identity unless b and t are its dims.)
  if (getOperand().getType() == getType() &&
      (getSizes().empty() || areDimsOf(getSizes(), getOperand())))
    return getOperand();
  // reshape(reshape(x)) reads x, unless the inner one checks something at
  // the call, which the fold would drop ([?, 4] -> [?, 3, 4] -> [?, 4]
  // must still refuse 5 rows).
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>(); inner && cannotFail(inner)) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  if (auto input = foldableConstant(adaptor.getOperand()); input && getType().hasStaticShape())
    return input.reshape(getType());
  return {};
}

// Pattern: transpose(x, identity) -> x; transpose(transpose(x, p), q) ->
// transpose(x, p o q); transpose of a constant -> constant.
OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getOperand();
  if (auto inner = getOperand().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner.getPermutation()[p]);
    getOperandMutable().assign(inner.getOperand());
    setPermutation(composed);
    return getResult();
  }
  if (!foldableConstant(adaptor.getOperand())) // strides below need its static shape
    return {};
  SmallVector<int64_t> inStrides = stridesOf(getOperand().getType().getShape());
  return gatherElements(foldableConstant(adaptor.getOperand()), getType(),
                        [&](ArrayRef<int64_t> index) {
                          int64_t flat = 0;
                          for (size_t d = 0; d < perm.size(); ++d)
                            flat += index[d] * inStrides[perm[d]];
                          return flat;
                        });
}

// Pattern: slice covering all of x -> x; slice of a constant -> constant.
OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  // All of x: every dim from 0 to its size (`?`: to the end), stride 1.
  RankedTensorType in = getOperand().getType();
  bool whole = true;
  for (int64_t d = 0; d < in.getRank(); ++d)
    whole = whole && getStart()[d] == 0 && getStride()[d] == 1 && getLimit()[d] == in.getDimSize(d);
  if (whole)
    return getOperand();
  if (!foldableConstant(adaptor.getOperand())) // strides below need its static shape
    return {};
  SmallVector<int64_t> inStrides = stridesOf(getOperand().getType().getShape());
  ArrayRef<int64_t> start = getStart(), stride = getStride();
  return gatherElements(foldableConstant(adaptor.getOperand()), getType(),
                        [&](ArrayRef<int64_t> index) {
                          int64_t flat = 0;
                          for (size_t d = 0; d < index.size(); ++d)
                            flat += (start[d] + index[d] * stride[d]) * inStrides[d];
                          return flat;
                        });
}

// Pattern: concat(x) -> x; concat of constants -> constant.
OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  if (!getType().hasStaticShape() || getType().getNumElements() > kMaxFoldElements)
    return {};
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute attr : adaptor.getInputs()) {
    inputs.push_back(foldableConstant(attr));
    if (!inputs.back())
      return {};
  }
  int64_t axis = getAxis();
  ArrayRef<int64_t> shape = getType().getShape();
  // Row-major: the result is, for each index before `axis`, the inputs' blocks
  // of `dim(axis) * inner` elements one after the other.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
    inner *= shape[d];
  SmallVector<Attribute> out;
  out.reserve(getType().getNumElements());
  for (int64_t o = 0; o < outer; ++o)
    for (DenseElementsAttr input : inputs) {
      int64_t block = input.getType().getDimSize(axis) * inner;
      auto values = input.getValues<Attribute>();
      for (int64_t i = 0; i < block; ++i)
        out.push_back(values[o * block + i]);
    }
  return DenseElementsAttr::get(getType(), out);
}

// Pattern: scatter of no updates -> the operand.
OpFoldResult ScatterOp::fold(FoldAdaptor) {
  if (getUpdates().getType().hasStaticShape() && getUpdates().getType().getNumElements() == 0)
    return getOperand();
  return {};
}

// Pattern: gather of constant operand and indices -> constant (indices wrap
// when negative). An index out of range is left to the compiled code, which
// reports it as a fault.
OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr indices = foldableConstant(adaptor.getIndices());
  if (!indices || !foldableConstant(adaptor.getOperand()))
    return {};
  auto in = getOperand().getType();
  int64_t axis = getAxis(), size = in.getDimSize(axis);
  int64_t indexRank = indices.getType().getRank();
  SmallVector<int64_t> index64;
  for (APInt value : indices.getValues<APInt>()) {
    int64_t i = value.getSExtValue();
    i = i < 0 ? i + size : i;
    if (i < 0 || i >= size)
      return {};
    index64.push_back(i);
  }
  SmallVector<int64_t> inStrides = stridesOf(in.getShape());
  SmallVector<int64_t> indexStrides = stridesOf(indices.getType().getShape());
  return gatherElements(foldableConstant(adaptor.getOperand()), getType(),
                        [&](ArrayRef<int64_t> index) {
                          int64_t flat = 0, which = 0;
                          for (int64_t d = 0; d < axis; ++d)
                            flat += index[d] * inStrides[d];
                          for (int64_t d = 0; d < indexRank; ++d)
                            which += index[axis + d] * indexStrides[d];
                          flat += index64[which] * inStrides[axis];
                          for (int64_t d = axis + 1; d < in.getRank(); ++d)
                            flat += index[d + indexRank - 1] * inStrides[d];
                          return flat;
                        });
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {
enum class Reduction { Sum, Max, Min, Prod, Mean };
} // namespace

/// A reduction of a constant over `axes`: each input element combined into the
/// output element its kept dims address (row-major), as the compiled code does.
static Attribute foldReduction(Reduction kind, DenseElementsAttr input, RankedTensorType resultType,
                               ArrayRef<int64_t> axes) {
  if (!input)
    return {};
  auto inType = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = inType.getShape();
  SmallVector<int64_t> strides = stridesOf(shape);
  // Row-major strides of the output over the kept dims (reduced dims: 0).
  SmallVector<int64_t> outStrides(shape.size(), 0);
  int64_t stride = 1, count = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (llvm::is_contained(axes, d)) {
      count *= shape[d];
      continue;
    }
    outStrides[d] = stride;
    stride *= shape[d];
  }
  return visitElementType(inType.getElementType(), [&](auto tag) -> Attribute {
    using T = decltype(tag);
    if constexpr (!isNumber<T>) {
      return {};
    } else {
      if (kind == Reduction::Mean && !isFloat<T>)
        return {};
      T init = kind == Reduction::Prod ? T(1)
               : kind == Reduction::Max ? std::numeric_limits<T>::lowest()
               : kind == Reduction::Min ? std::numeric_limits<T>::max()
                                        : T(0);
      if constexpr (isFloat<T>) {
        if (kind == Reduction::Max)
          init = -std::numeric_limits<T>::infinity();
        if (kind == Reduction::Min)
          init = std::numeric_limits<T>::infinity();
      }
      SmallVector<T> out(static_cast<size_t>(resultType.getNumElements()), init);
      auto values = input.getValues<T>();
      for (int64_t flat = 0, e = inType.getNumElements(); flat < e; ++flat) {
        int64_t target = 0;
        for (size_t d = 0; d < shape.size(); ++d)
          target += (flat / strides[d] % shape[d]) * outStrides[d];
        T &acc = out[static_cast<size_t>(target)];
        T x = values[flat];
        switch (kind) {
        case Reduction::Sum:
        case Reduction::Mean:
          if constexpr (isInt<T>)
            acc = wrap(acc, x, std::plus<>());
          else
            acc = acc + x;
          break;
        case Reduction::Prod:
          if constexpr (isInt<T>)
            acc = wrap(acc, x, std::multiplies<>());
          else
            acc = acc * x;
          break;
        case Reduction::Max:
          acc = maxPropagatingNaN(acc, x);
          break;
        case Reduction::Min:
          acc = minPropagatingNaN(acc, x);
          break;
        }
      }
      if (kind == Reduction::Mean)
        for (T &v : out)
          v = static_cast<T>(v / static_cast<T>(count));
      return DenseElementsAttr::get(resultType, ArrayRef<T>(out));
    }
  });
}

// Pattern: a reduction over no axes -> its operand; of a constant -> constant.
#define EMBER_FOLD_REDUCTION(OP, KIND)                                                   \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                           \
    if (getAxes().empty())                                                               \
      return getOperand();                                                               \
    return foldReduction(Reduction::KIND, foldableConstant(adaptor.getOperand()),        \
                         getType(), getAxes());                                          \
  }
EMBER_FOLD_REDUCTION(ReduceSumOp, Sum)
EMBER_FOLD_REDUCTION(ReduceMaxOp, Max)
EMBER_FOLD_REDUCTION(ReduceMinOp, Min)
EMBER_FOLD_REDUCTION(ReduceProdOp, Prod)
EMBER_FOLD_REDUCTION(ReduceMeanOp, Mean)
#undef EMBER_FOLD_REDUCTION

// Pattern: argmax along a dim of size 1 -> zeros.
OpFoldResult ShapeOfOp::fold(FoldAdaptor) {
  RankedTensorType in = getOperand().getType();
  if (!in.hasStaticShape())
    return {};
  SmallVector<APInt> sizes;
  for (int64_t size : in.getShape())
    sizes.push_back(APInt(64, size));
  return DenseElementsAttr::get(getType(), sizes);
}

OpFoldResult ArgMaxOp::fold(FoldAdaptor) {
  if (getOperand().getType().getDimSize(getAxis()) != 1)
    return {};
  return DenseElementsAttr::get(getType(), APInt(64, 0));
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// A pooling whose windows are single elements, one per input element.
template <typename PoolOp> static bool poolsNothing(PoolOp op) {
  auto ones = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values, [](int64_t v) { return v == 1; });
  };
  return ones(op.getWindow()) && ones(op.getStrides()) &&
         llvm::all_of(op.getPadding(), [](int64_t p) { return p == 0; });
}

OpFoldResult MaxPool2DOp::fold(FoldAdaptor) {
  return poolsNothing(*this) ? getInput() : OpFoldResult();
}
OpFoldResult AvgPool2DOp::fold(FoldAdaptor) {
  return poolsNothing(*this) ? getInput() : OpFoldResult();
}
