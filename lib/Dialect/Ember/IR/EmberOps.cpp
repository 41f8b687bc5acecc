//===- EmberOps.cpp - shape and dtype rules of the ember ops ---------------===//
//
// Result-type inference doubles as verification: each inference function checks
// every rule of its op and reports a message naming the op and the offending
// shapes or types. The front end builds ops through the same functions, so a
// bad eager call and a bad .mlir file give the same message.
//
//===----------------------------------------------------------------------===//

#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::ember;

//===----------------------------------------------------------------------===//
// Custom assembly: one type for two operands that must match
//===----------------------------------------------------------------------===//

// `: T` means both operands have type T; `: T1, T2` is accepted so that an
// invalid op still round-trips to a verifier error rather than a parse error.
static ParseResult parseSameOperandTypes(OpAsmParser &parser, Type &lhs, Type &rhs) {
  if (parser.parseType(lhs))
    return failure();
  rhs = lhs;
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(rhs);
  return success();
}

static void printSameOperandTypes(OpAsmPrinter &printer, Operation *, Type lhs, Type rhs) {
  printer << lhs;
  if (rhs != lhs)
    printer << ", " << rhs;
}

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

namespace {
/// Which element types an op accepts.
enum class ElementClass { Any, Numbers, Floats, Logical };
} // namespace

static bool isAllowed(ElementClass cls, Type type) {
  switch (cls) {
  case ElementClass::Any:
    return isEmberElementType(type);
  case ElementClass::Numbers:
    return isEmberFloatType(type) || type.isInteger(32) || type.isInteger(64);
  case ElementClass::Floats:
    return isEmberFloatType(type);
  case ElementClass::Logical:
    return type.isInteger(1) || type.isInteger(32) || type.isInteger(64);
  }
  return false;
}

static StringRef describe(ElementClass cls) {
  switch (cls) {
  case ElementClass::Any:
    return "f32, f64, f16, bf16, i1, i32 or i64";
  case ElementClass::Numbers:
    return "numeric (f32, f64, f16, bf16, i32 or i64)";
  case ElementClass::Floats:
    return "floating-point (f32, f64, f16 or bf16)";
  case ElementClass::Logical:
    return "i1 or integer";
  }
  return "";
}

static LogicalResult checkElementType(StringRef opName, ElementClass cls,
                                      std::optional<Location> loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  if (isAllowed(cls, tensor.getElementType()))
    return success();
  return emitOptionalError(loc, "'", opName, "' op requires ", describe(cls),
                           " elements, got ", type);
}

static LogicalResult checkRanked(StringRef opName, std::optional<Location> loc, Type type) {
  if (isa<RankedTensorType>(type) && isEmberElementType(cast<RankedTensorType>(type).getElementType()))
    return success();
  return emitOptionalError(loc, "'", opName,
                           "' op operands must be ranked tensors of ",
                           describe(ElementClass::Any), ", got ", type);
}

static LogicalResult checkAxis(StringRef opName, std::optional<Location> loc, StringRef what,
                               int64_t axis, int64_t rank, Type type) {
  if (axis >= 0 && axis < rank)
    return success();
  return emitOptionalError(loc, "'", opName, "' op ", what, " ", axis,
                           " is out of range for rank ", rank, " operand ", type);
}

static LogicalResult inferBinary(StringRef opName, ElementClass cls, std::optional<Location> loc,
                                 Type lhs, Type rhs, SmallVectorImpl<Type> &results,
                                 Type resultElement = nullptr) {
  if (failed(checkRanked(opName, loc, lhs)) || failed(checkRanked(opName, loc, rhs)))
    return failure();
  auto lhsType = cast<RankedTensorType>(lhs), rhsType = cast<RankedTensorType>(rhs);
  if (lhsType.getShape() != rhsType.getShape())
    return emitOptionalError(loc, "'", opName, "' op operand shapes must be identical, got ",
                             lhs, " and ", rhs, " (broadcast first with ember.broadcast_to)");
  if (lhsType.getElementType() != rhsType.getElementType())
    return emitOptionalError(loc, "'", opName,
                             "' op operand element types must be identical, got ", lhs,
                             " and ", rhs, " (convert one with ember.cast)");
  if (failed(checkElementType(opName, cls, loc, lhs)))
    return failure();
  results.push_back(resultElement ? RankedTensorType::get(lhsType.getShape(), resultElement)
                                  : lhs);
  return success();
}

static LogicalResult inferUnary(StringRef opName, ElementClass cls, std::optional<Location> loc,
                                Type operand, SmallVectorImpl<Type> &results) {
  if (failed(checkRanked(opName, loc, operand)) ||
      failed(checkElementType(opName, cls, loc, operand)))
    return failure();
  results.push_back(operand);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

#define EMBER_INFER_BINARY(OP, CLS)                                                     \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,        \
                                     OP::Adaptor adaptor, SmallVectorImpl<Type> &out) { \
    return inferBinary(OP::getOperationName(), ElementClass::CLS, loc,                  \
                       adaptor.getLhs().getType(), adaptor.getRhs().getType(), out);    \
  }
EMBER_INFER_BINARY(AddOp, Numbers)
EMBER_INFER_BINARY(SubOp, Numbers)
EMBER_INFER_BINARY(MulOp, Numbers)
EMBER_INFER_BINARY(DivOp, Numbers)
EMBER_INFER_BINARY(FloorDivOp, Numbers)
EMBER_INFER_BINARY(ModOp, Numbers)
EMBER_INFER_BINARY(PowOp, Numbers)
EMBER_INFER_BINARY(MaximumOp, Numbers)
EMBER_INFER_BINARY(MinimumOp, Numbers)
EMBER_INFER_BINARY(AndOp, Logical)
EMBER_INFER_BINARY(OrOp, Logical)
#undef EMBER_INFER_BINARY

#define EMBER_INFER_UNARY(OP, CLS)                                                      \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,        \
                                     OP::Adaptor adaptor, SmallVectorImpl<Type> &out) { \
    return inferUnary(OP::getOperationName(), ElementClass::CLS, loc,                   \
                      adaptor.getOperand().getType(), out);                             \
  }
EMBER_INFER_UNARY(NegOp, Numbers)
EMBER_INFER_UNARY(AbsOp, Numbers)
EMBER_INFER_UNARY(ExpOp, Floats)
EMBER_INFER_UNARY(LogOp, Floats)
EMBER_INFER_UNARY(Log1pOp, Floats)
EMBER_INFER_UNARY(ErfOp, Floats)
EMBER_INFER_UNARY(SqrtOp, Floats)
EMBER_INFER_UNARY(RsqrtOp, Floats)
EMBER_INFER_UNARY(TanhOp, Floats)
EMBER_INFER_UNARY(SigmoidOp, Floats)
EMBER_INFER_UNARY(ReluOp, Numbers)
EMBER_INFER_UNARY(SquareOp, Numbers)
EMBER_INFER_UNARY(SignOp, Numbers)
EMBER_INFER_UNARY(SinOp, Floats)
EMBER_INFER_UNARY(CosOp, Floats)
EMBER_INFER_UNARY(AsinOp, Floats)
EMBER_INFER_UNARY(AcosOp, Floats)
EMBER_INFER_UNARY(AtanOp, Floats)
EMBER_INFER_UNARY(NotOp, Logical)
#undef EMBER_INFER_UNARY

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &out) {
  return inferBinary(getOperationName(), ElementClass::Any, loc, adaptor.getLhs().getType(),
                     adaptor.getRhs().getType(), out, IntegerType::get(context, 1));
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &out) {
  StringRef name = getOperationName();
  Type cond = adaptor.getCondition().getType();
  if (failed(checkRanked(name, loc, cond)) ||
      !cast<RankedTensorType>(cond).getElementType().isInteger(1))
    return emitOptionalError(loc, "'", name, "' op condition must be a tensor of i1, got ", cond);
  SmallVector<Type> choice;
  if (failed(inferBinary(name, ElementClass::Any, loc, adaptor.getOnTrue().getType(),
                         adaptor.getOnFalse().getType(), choice)))
    return failure();
  if (cast<RankedTensorType>(cond).getShape() != cast<RankedTensorType>(choice[0]).getShape())
    return emitOptionalError(loc, "'", name, "' op condition shape must match the operands, got ",
                             cond, " and ", choice[0]);
  out.push_back(choice[0]);
  return success();
}

LogicalResult AllReduceOp::verify() {
  Type element = getOperand().getType().getElementType();
  bool floating = element.isF32() || element.isF64();
  if (!floating && !element.isInteger(32) && !element.isInteger(64))
    return emitOpError("reduces f32, f64, i32 or i64 elements, not ") << element;
  if (getReduction() == CollectiveReduction::mean && !floating)
    return emitOpError("mean needs floating-point elements, not ") << element;
  return success();
}

LogicalResult CastOp::verify() {
  auto in = getOperand().getType(), out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError("operand and result shapes must be identical, got ") << in << " and " << out;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                           Adaptor adaptor, SmallVectorImpl<Type> &out) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type || !isEmberElementType(type.getElementType()))
    return emitOptionalError(loc, "'", getOperationName(),
                             "' op value must be a ranked tensor of ",
                             describe(ElementClass::Any), ", got ",
                             adaptor.getValue().getType());
  out.push_back(type);
  return success();
}

/// dense_resource values (exported weights) are blobs of raw bytes that only
/// the LLVM translation reads: missing or short blobs, and the kinds that
/// upstream lowering cannot translate, are refused here instead.
LogicalResult ConstantOp::verify() {
  auto resource = dyn_cast<DenseResourceElementsAttr>(getValue());
  if (!resource)
    return success();
  auto type = cast<RankedTensorType>(resource.getType());
  StringRef key = resource.getRawHandle().getKey();
  if (type.getRank() == 0 || type.getElementType().isInteger(1))
    return emitOpError("dense_resource<") << key << "> of type " << type
                                          << ": 0-d and i1 constants must be dense<...>";
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob)
    return emitOpError("dense_resource<") << key
                                          << "> has no data (no entry in the file's "
                                             "dialect_resources section)";
  int64_t bytes = type.getNumElements() * (type.getElementTypeBitWidth() / 8);
  if (static_cast<int64_t>(blob->getData().size()) != bytes)
    return emitOpError("dense_resource<") << key << "> holds " << blob->getData().size()
                                          << " bytes; " << type << " needs " << bytes;
  return success();
}

LogicalResult BroadcastToOp::verify() {
  auto in = getOperand().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element types must be identical, got ") << in << " and " << out;
  int64_t lead = out.getRank() - in.getRank();
  bool ok = lead >= 0;
  // A `?` on either side is equal at run time (checked there); two static
  // sizes must agree now.
  for (int64_t i = 0; ok && i < in.getRank(); ++i)
    ok = in.getDimSize(i) == 1 || in.isDynamicDim(i) || out.isDynamicDim(i + lead) ||
         in.getDimSize(i) == out.getDimSize(i + lead);
  if (!ok)
    return emitOpError("cannot broadcast ") << in << " to " << out
                                            << " (numpy rules: dims aligned at the right must "
                                               "be equal or 1)";
  if (static_cast<int64_t>(getSizes().size()) != out.getNumDynamicDims())
    return emitOpError("needs one size for each dynamic dim of ")
           << out << " (" << out.getNumDynamicDims() << "), got " << getSizes().size();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = getOperand().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element types must be identical, got ") << in << " and " << out;
  if (in.hasStaticShape() && out.hasStaticShape() && in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ")
           << in << " (" << in.getNumElements() << " elements) to " << out << " ("
           << out.getNumElements() << " elements)";
  size_t dynamic = static_cast<size_t>(out.getNumDynamicDims());
  if (getSizes().empty() && dynamic > 1)
    return emitOpError("needs a size for each dynamic dim of ")
           << out << " (" << dynamic << "): only one can be inferred";
  if (!getSizes().empty() && getSizes().size() != dynamic)
    return emitOpError("needs one size for each dynamic dim of ")
           << out << " (" << dynamic << "), or none for one, got " << getSizes().size();
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &out) {
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  SmallVector<bool> seen(in.getRank(), false);
  bool ok = static_cast<int64_t>(perm.size()) == in.getRank();
  for (int64_t p : perm) {
    ok = ok && p >= 0 && p < in.getRank() && !seen[p];
    if (ok)
      seen[p] = true;
  }
  if (!ok)
    return emitOptionalError(loc, "'", getOperationName(), "' op permutation [",
                             llvm::make_range(perm.begin(), perm.end()),
                             "] is not a permutation of the ", in.getRank(), " dims of ", in);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in.getDimSize(p));
  out.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

int64_t mlir::ember::knownElements(RankedTensorType type) {
  int64_t elements = 1;
  for (int64_t size : type.getShape())
    if (!ShapedType::isDynamic(size))
      elements *= size;
  return elements;
}

std::optional<DynamicSliceBounds>
mlir::ember::dynamicSliceBounds(int64_t start, int64_t limit, int64_t stride, std::string &error) {
  DynamicSliceBounds bounds;
  bounds.stride = stride;
  bounds.start = start;
  bounds.startFromEnd = start < 0;
  bounds.limitFromEnd = limit < 0;
  bounds.limit = ShapedType::isDynamic(limit) ? 0 : limit;
  auto fail = [&](std::string why) {
    error = std::move(why);
    return std::nullopt;
  };
  // Bounds far from any size (and the end marker as a start) would overflow
  // the size arithmetic below and in the callers' checks.
  constexpr int64_t kFar = int64_t{1} << 61; // (limit - start and its negation fit)
  if (stride < 1 || stride > kFar)
    return fail("stride " + std::to_string(stride) + " is invalid (need 1 <= stride <= 2^61)");
  if (start < -kFar || start > kFar ||
      (!ShapedType::isDynamic(limit) && (limit < -kFar || limit > kFar)))
    return fail("bounds " + std::to_string(start) + ":" + std::to_string(limit) +
                " are out of range (need |bound| <= 2^61; the end is limit " +
                std::to_string(ShapedType::kDynamic) + ")");
  if (bounds.startFromEnd && !bounds.limitFromEnd)
    return fail("a start counted from the end (" + std::to_string(start) +
                ") needs a limit counted from the end too");
  if (bounds.startFromEnd == bounds.limitFromEnd) { // a known size
    if (bounds.start > bounds.limit)
      return fail("start " + std::to_string(start) + " is after limit " + std::to_string(limit));
    bounds.size = (bounds.limit - bounds.start + stride - 1) / stride;
    bounds.leastSize = bounds.startFromEnd ? -bounds.start : bounds.limit;
    return bounds;
  }
  // From a start to a limit counted from the end: n + limit - start.
  if (stride != 1)
    return fail("a slice to a limit counted from the end takes stride 1, not " +
                std::to_string(stride));
  bounds.sizeFromDim = true;
  bounds.size = bounds.limit - bounds.start;
  bounds.leastSize = -bounds.size;
  return bounds;
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &out) {
  StringRef name = getOperationName();
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  ArrayRef<int64_t> start = adaptor.getStart(), limit = adaptor.getLimit(),
                    stride = adaptor.getStride();
  int64_t rank = in.getRank();
  if ((int64_t)start.size() != rank || (int64_t)limit.size() != rank ||
      (int64_t)stride.size() != rank)
    return emitOptionalError(loc, "'", name, "' op start, limit and stride need ", rank,
                             " entries each for operand ", in, ", got ", start.size(), ", ",
                             limit.size(), " and ", stride.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (in.isDynamicDim(i)) {
      std::string error;
      std::optional<DynamicSliceBounds> bounds =
          dynamicSliceBounds(start[i], limit[i], stride[i], error);
      if (!bounds)
        return emitOptionalError(loc, "'", name, "' op dim ", i, " of ", in, ": ", error);
      shape.push_back(bounds->sizeFromDim ? ShapedType::kDynamic : bounds->size);
      continue;
    }
    if (ShapedType::isDynamic(limit[i]))
      return emitOptionalError(loc, "'", name, "' op dim ", i, " of ", in, ": a limit of ",
                               ShapedType::kDynamic, " (the end) is for `?` dims only");
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > in.getDimSize(i) || stride[i] < 1)
      return emitOptionalError(loc, "'", name, "' op dim ", i, ": slice ", start[i], ":",
                               limit[i], ":", stride[i], " is invalid for size ",
                               in.getDimSize(i), " of ", in,
                               " (need 0 <= start <= limit <= size, stride >= 1)");
    shape.push_back((limit[i] - start[i] + stride[i] - 1) / stride[i]);
  }
  out.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &out) {
  StringRef name = getOperationName();
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "'", name, "' op needs at least one input");
  auto first = cast<RankedTensorType>(adaptor.getInputs().front().getType());
  int64_t axis = adaptor.getAxis();
  if (first.getRank() == 0)
    return emitOptionalError(loc, "'", name, "' op cannot concatenate rank-0 tensors");
  if (failed(checkAxis(name, loc, "axis", axis, first.getRank(), first)))
    return failure();
  // A `?` dim other than the axis takes any input's known size (the
  // callers check them at run time); a `?` along the axis makes the sum `?`.
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value input : adaptor.getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    bool ok = type.getRank() == first.getRank() &&
              type.getElementType() == first.getElementType();
    for (int64_t d = 0; ok && d < type.getRank(); ++d) {
      if (d == axis)
        continue;
      int64_t size = type.getDimSize(d);
      ok = ShapedType::isDynamic(size) || ShapedType::isDynamic(shape[d]) || size == shape[d];
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = size;
    }
    if (!ok)
      return emitOptionalError(loc, "'", name, "' op inputs ", first, " and ", type,
                               " differ in rank, element type or a dim other than axis ",
                               axis);
    shape[axis] = ShapedType::isDynamic(shape[axis]) || type.isDynamicDim(axis)
                      ? ShapedType::kDynamic
                      : shape[axis] + type.getDimSize(axis);
  }
  out.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

/// numpy take's result shape: the operand's dims around `axis`, the
/// indices' in its place (a gather's result, a scatter's updates).
static SmallVector<int64_t> gatheredShape(RankedTensorType in, RankedTensorType indices,
                                          int64_t axis) {
  SmallVector<int64_t> shape(in.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, in.getShape().drop_front(axis + 1));
  return shape;
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &out) {
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(getOperationName(), loc, "axis", axis, in.getRank(), in)))
    return failure();
  out.push_back(RankedTensorType::get(gatheredShape(in, indices, axis), in.getElementType()));
  return success();
}

// The updates take gather's result shape: the operand's dims around the
// axis, the indices' in its place (`?` matches any size).
LogicalResult ScatterOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &out) {
  StringRef name = getOperationName();
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  auto updates = cast<RankedTensorType>(adaptor.getUpdates().getType());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(name, loc, "axis", axis, in.getRank(), in)))
    return failure();
  if (adaptor.getMode() != ScatterMode::update &&
      failed(checkElementType(name, ElementClass::Numbers, loc, in)))
    return failure();
  SmallVector<int64_t> expected = gatheredShape(in, indices, axis);
  bool fits = updates.getElementType() == in.getElementType() &&
              updates.getRank() == static_cast<int64_t>(expected.size());
  for (int64_t d = 0; fits && d < updates.getRank(); ++d)
    fits = ShapedType::isDynamic(expected[d]) || updates.isDynamicDim(d) ||
           expected[d] == updates.getDimSize(d);
  if (!fits)
    return emitOptionalError(loc, "'", name, "' op updates ", updates, " must be ",
                             RankedTensorType::get(expected, in.getElementType()),
                             " (the dims of the operand ", in, " around axis ", axis,
                             ", those of the indices ", indices, " in its place)");
  out.push_back(in);
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Shape of a reduction of `in` over `axes`, after checking the axes.
static FailureOr<SmallVector<int64_t>> reducedShape(StringRef name, std::optional<Location> loc,
                                                    RankedTensorType in, ArrayRef<int64_t> axes,
                                                    bool keepdims) {
  llvm::SmallSet<int64_t, 8> reduced;
  for (int64_t axis : axes) {
    if (failed(checkAxis(name, loc, "axis", axis, in.getRank(), in)))
      return failure();
    if (!reduced.insert(axis).second)
      return emitOptionalError(loc, "'", name, "' op axis ", axis, " appears twice");
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (!reduced.contains(d))
      shape.push_back(in.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  return shape;
}

static LogicalResult inferReduce(StringRef name, ElementClass cls, std::optional<Location> loc,
                                 Type operand, ArrayRef<int64_t> axes, bool keepdims,
                                 SmallVectorImpl<Type> &out) {
  if (failed(checkRanked(name, loc, operand)) ||
      failed(checkElementType(name, cls, loc, operand)))
    return failure();
  auto in = cast<RankedTensorType>(operand);
  auto shape = reducedShape(name, loc, in, axes, keepdims);
  if (failed(shape))
    return failure();
  out.push_back(RankedTensorType::get(*shape, in.getElementType()));
  return success();
}

#define EMBER_INFER_REDUCE(OP, CLS)                                                       \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,          \
                                     OP::Adaptor adaptor, SmallVectorImpl<Type> &out) {   \
    return inferReduce(OP::getOperationName(), ElementClass::CLS, loc,                    \
                       adaptor.getOperand().getType(), adaptor.getAxes(),                 \
                       adaptor.getKeepdims(), out);                                       \
  }
EMBER_INFER_REDUCE(ReduceSumOp, Numbers)
EMBER_INFER_REDUCE(ReduceMaxOp, Numbers)
EMBER_INFER_REDUCE(ReduceMinOp, Numbers)
EMBER_INFER_REDUCE(ReduceProdOp, Numbers)
EMBER_INFER_REDUCE(ReduceMeanOp, Floats)
#undef EMBER_INFER_REDUCE

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &out) {
  StringRef name = getOperationName();
  Type operand = adaptor.getOperand().getType();
  if (failed(checkRanked(name, loc, operand)) ||
      failed(checkElementType(name, ElementClass::Numbers, loc, operand)))
    return failure();
  auto in = cast<RankedTensorType>(operand);
  int64_t axis = adaptor.getAxis();
  auto shape = reducedShape(name, loc, in, {axis}, adaptor.getKeepdims());
  if (failed(shape))
    return failure();
  if (in.getDimSize(axis < 0 ? axis + in.getRank() : axis) == 0)
    return emitOptionalError(loc, "'", name, "' op axis ", axis, " of operand ", in,
                             " is empty: it has no maximum");
  out.push_back(RankedTensorType::get(*shape, IntegerType::get(context, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// ShapeOf
//===----------------------------------------------------------------------===//

LogicalResult ShapeOfOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                                          Adaptor adaptor, SmallVectorImpl<Type> &out) {
  auto in = cast<RankedTensorType>(adaptor.getOperand().getType());
  out.push_back(RankedTensorType::get({in.getRank()}, IntegerType::get(context, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// Iota
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  RankedTensorType type = getType();
  if (type.getRank() == 0)
    return emitOpError("numbers the elements along a dim, and ") << type << " has none";
  int64_t dimension = static_cast<int64_t>(getDimension());
  if (dimension < 0 || dimension >= type.getRank())
    return emitOpError("dimension ")
           << dimension << " is out of range for " << type << " (rank " << type.getRank() << ")";
  if (type.getElementType().isInteger(1))
    return emitOpError("counts in numbers, not in ") << type;
  if (getSizes().size() != static_cast<size_t>(type.getNumDynamicDims()))
    return emitOpError("needs one size for each dynamic dim of ")
           << type << " (" << type.getNumDynamicDims() << "), got " << getSizes().size();
  return success();
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &out) {
  StringRef name = getOperationName();
  Type lhsType = adaptor.getLhs().getType(), rhsType = adaptor.getRhs().getType();
  auto lhs = cast<RankedTensorType>(lhsType), rhs = cast<RankedTensorType>(rhsType);
  if (lhs.getRank() < 2 || lhs.getRank() != rhs.getRank())
    return emitOptionalError(loc, "'", name,
                             "' op operands must both have rank 2, or equal rank > 2 "
                             "(batched), got ",
                             lhsType, " and ", rhsType);
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "'", name, "' op operand element types must be identical, got ",
                             lhsType, " and ", rhsType);
  if (failed(checkElementType(name, ElementClass::Numbers, loc, lhsType)))
    return failure();
  // A `?` dim matches any size (the sizes are then checked where they are
  // known: by the front end, or at run time); the result keeps what is known.
  int64_t rank = lhs.getRank();
  auto compatible = [](int64_t a, int64_t b) {
    return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
  };
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank - 2; ++d) {
    if (!compatible(lhs.getDimSize(d), rhs.getDimSize(d)))
      return emitOptionalError(loc, "'", name, "' op batch dims must be equal, got ", lhsType,
                               " and ", rhsType);
    shape.push_back(lhs.isDynamicDim(d) ? rhs.getDimSize(d) : lhs.getDimSize(d));
  }
  if (!compatible(lhs.getDimSize(rank - 1), rhs.getDimSize(rank - 2)))
    return emitOptionalError(loc, "'", name, "' op contracting dims differ: ", lhsType,
                             " has ", lhs.getDimSize(rank - 1), " columns but ", rhsType,
                             " has ", rhs.getDimSize(rank - 2), " rows");
  shape.push_back(lhs.getDimSize(rank - 2));
  shape.push_back(rhs.getDimSize(rank - 1));
  out.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Success if `type`'s `dims` (its heights and widths) are static: windows
/// take `?` dims only in the batch and the channels.
static LogicalResult checkStaticWindows(StringRef name, std::optional<Location> loc,
                                        RankedTensorType type, ArrayRef<int64_t> dims) {
  for (int64_t d : dims)
    if (type.isDynamicDim(d))
      return emitOptionalError(loc, "'", name,
                               "' op takes `?` dims only in the batch and the "
                               "channels: the height and width of ",
                               type, " must be known");
  return success();
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &out) {
  StringRef name = getOperationName();
  Type inputType = adaptor.getInput().getType(), filterType = adaptor.getFilter().getType();
  auto input = cast<RankedTensorType>(inputType), filter = cast<RankedTensorType>(filterType);
  if (input.getRank() != 4 || filter.getRank() != 4)
    return emitOptionalError(loc, "'", name,
                             "' op needs an NHWC input and an HWIO filter (rank 4), got ",
                             inputType, " and ", filterType);
  if (input.getElementType() != filter.getElementType() ||
      !isa<FloatType>(input.getElementType()))
    return emitOptionalError(loc, "'", name,
                             "' op operands must be floats of one element type, got ", inputType,
                             " and ", filterType);
  if (failed(checkStaticWindows(name, loc, input, {1, 2})) ||
      failed(checkStaticWindows(name, loc, filter, {0, 1})))
    return failure();
  if (input.getDimSize(3) != filter.getDimSize(2) && !input.isDynamicDim(3) &&
      !filter.isDynamicDim(2))
    return emitOptionalError(loc, "'", name, "' op the input has ", input.getDimSize(3),
                             " channels but the filter expects ", filter.getDimSize(2), " (",
                             inputType, ", ", filterType, ")");
  ArrayRef<int64_t> strides = adaptor.getStrides(), dilations = adaptor.getDilations(),
                    inputDilations = adaptor.getInputDilations(), padding = adaptor.getPadding();
  if (strides.size() != 2 || dilations.size() != 2 || inputDilations.size() != 2 ||
      padding.size() != 4)
    return emitOptionalError(loc, "'", name,
                             "' op needs 2 strides, 2 dilations, 2 input dilations and 4 "
                             "paddings [top, bottom, left, right]");
  if (llvm::any_of(llvm::concat<const int64_t>(strides, dilations, inputDilations),
                   [](int64_t v) { return v < 1; }) ||
      llvm::any_of(padding, [](int64_t v) { return v < 0; }))
    return emitOptionalError(loc, "'", name,
                             "' op strides and dilations must be at least 1 and paddings at "
                             "least 0");
  SmallVector<int64_t> shape = {input.getDimSize(0), 0, 0, filter.getDimSize(3)};
  for (int d = 0; d < 2; ++d) {
    int64_t size = (input.getDimSize(1 + d) - 1) * inputDilations[d] + 1 + padding[2 * d] +
                   padding[2 * d + 1];
    int64_t window = (filter.getDimSize(d) - 1) * dilations[d] + 1;
    if (size < window)
      return emitOptionalError(loc, "'", name, "' op the filter's ", d == 0 ? "height" : "width",
                               " (", window, " with its dilation) exceeds the padded input's (",
                               size, "): ", inputType, ", ", filterType);
    shape[1 + d] = (size - window) / strides[d] + 1;
  }
  out.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The result type of a 2-D pooling of `inputType` (NHWC floats), or an
/// error naming `name`, the attribute at fault and the types.
static FailureOr<RankedTensorType> pool2DType(StringRef name, std::optional<Location> loc,
                                              Type inputType, ArrayRef<int64_t> window,
                                              ArrayRef<int64_t> strides,
                                              ArrayRef<int64_t> padding) {
  auto input = cast<RankedTensorType>(inputType);
  if (input.getRank() != 4 || !isa<FloatType>(input.getElementType()))
    return emitOptionalError(loc, "'", name, "' op needs an NHWC float input (rank 4), got ",
                             inputType);
  if (window.size() != 2 || strides.size() != 2 || padding.size() != 4)
    return emitOptionalError(loc, "'", name,
                             "' op needs a window of 2, 2 strides and 4 paddings [top, bottom, "
                             "left, right]");
  if (llvm::any_of(llvm::concat<const int64_t>(window, strides), [](int64_t v) { return v < 1; }))
    return emitOptionalError(loc, "'", name, "' op windows and strides must be at least 1");
  if (failed(checkStaticWindows(name, loc, input, {1, 2})))
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), 0, 0, input.getDimSize(3)};
  for (int d = 0; d < 2; ++d) {
    if (padding[2 * d] < 0 || padding[2 * d] >= window[d] || padding[2 * d + 1] < 0 ||
        padding[2 * d + 1] >= window[d])
      return emitOptionalError(loc, "'", name, "' op paddings must be at least 0 and smaller "
                                               "than the window (",
                               window[d], "), got [", padding[2 * d], ", ", padding[2 * d + 1],
                               "] along ", d == 0 ? "H" : "W");
    int64_t size = input.getDimSize(1 + d) + padding[2 * d] + padding[2 * d + 1];
    if (size < window[d])
      return emitOptionalError(loc, "'", name, "' op the window's ", d == 0 ? "height" : "width",
                               " (", window[d], ") exceeds the padded input's (", size,
                               "): ", inputType);
    shape[1 + d] = (size - window[d]) / strides[d] + 1;
  }
  return RankedTensorType::get(shape, input.getElementType());
}

template <typename Adaptor>
static LogicalResult inferPool2D(StringRef name, std::optional<Location> loc, Adaptor adaptor,
                                 SmallVectorImpl<Type> &out) {
  FailureOr<RankedTensorType> type =
      pool2DType(name, loc, adaptor.getInput().getType(), adaptor.getWindow(),
                 adaptor.getStrides(), adaptor.getPadding());
  if (failed(type))
    return failure();
  out.push_back(*type);
  return success();
}

/// Whether `a` and `b` are tensors of one element type whose sizes agree
/// where both are known.
static bool compatibleTypes(Type a, Type b) {
  return getElementTypeOrSelf(a) == getElementTypeOrSelf(b) &&
         succeeded(verifyCompatibleShape(a, b));
}

/// A pooling gradient: the input's type, given a cotangent of the pooling's
/// result type.
template <typename Adaptor>
static LogicalResult inferPool2DGrad(StringRef name, std::optional<Location> loc,
                                     Adaptor adaptor, SmallVectorImpl<Type> &out) {
  FailureOr<RankedTensorType> pooled =
      pool2DType(name, loc, adaptor.getInput().getType(), adaptor.getWindow(),
                 adaptor.getStrides(), adaptor.getPadding());
  if (failed(pooled))
    return failure();
  if (failed(checkStaticWindows(name, loc, cast<RankedTensorType>(adaptor.getCotangent().getType()),
                                {1, 2})))
    return failure();
  if (!compatibleTypes(adaptor.getCotangent().getType(), *pooled))
    return emitOptionalError(loc, "'", name, "' op the cotangent must have the pooling's type ",
                             *pooled, ", got ", adaptor.getCotangent().getType());
  out.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult MaxPool2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &out) {
  return inferPool2D(getOperationName(), loc, adaptor, out);
}
LogicalResult AvgPool2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &out) {
  return inferPool2D(getOperationName(), loc, adaptor, out);
}
LogicalResult MaxPool2DGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                Adaptor adaptor, SmallVectorImpl<Type> &out) {
  return inferPool2DGrad(getOperationName(), loc, adaptor, out);
}
LogicalResult AvgPool2DGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                Adaptor adaptor, SmallVectorImpl<Type> &out) {
  return inferPool2DGrad(getOperationName(), loc, adaptor, out);
}
LogicalResult MaxPool2DGatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                  Adaptor adaptor, SmallVectorImpl<Type> &out) {
  if (failed(checkStaticWindows(getOperationName(), loc,
                                cast<RankedTensorType>(adaptor.getValues().getType()), {1, 2})))
    return failure();
  if (!compatibleTypes(adaptor.getValues().getType(), adaptor.getInput().getType()))
    return emitOptionalError(loc, "'", getOperationName(),
                             "' op the values must have the input's type ",
                             adaptor.getInput().getType(), ", got ", adaptor.getValues().getType());
  return inferPool2D(getOperationName(), loc, adaptor, out);
}

//===----------------------------------------------------------------------===//
// Custom gradients
//===----------------------------------------------------------------------===//

LogicalResult CustomGradientOp::verify() {
  if (getResult().getType() != getValue().getType())
    return emitOpError("result type ") << getResult().getType()
                                       << " must be the value's type " << getValue().getType();
  Block &block = getBackward().front();
  if (block.getNumArguments() != 1 || block.getArgument(0).getType() != getValue().getType())
    return emitOpError("backward region must take one cotangent of type ") << getValue().getType();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield || yield.getValues().getTypes() != getInputs().getTypes())
    return emitOpError("backward region must yield one cotangent per input, of the inputs' "
                       "types");
  return success();
}

#define GET_OP_CLASSES
#include "ember/Dialect/Ember/IR/EmberOps.cpp.inc"

std::string mlir::ember::sourcePosition(Operation *op) {
  auto loc = dyn_cast<FileLineColLoc>(op->getLoc());
  if (!loc)
    return "";
  return (loc.getFilename().getValue() + ":" + llvm::Twine(loc.getLine()) + ":" +
          llvm::Twine(loc.getColumn()))
      .str();
}
