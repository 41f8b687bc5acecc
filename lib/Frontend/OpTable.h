//===- OpTable.h - the ops the front end calls ------------------*- C++ -*-===//
//
// One table of the ember ops that the front end dispatches, with their
// attribute schemas; each op is one OpDef, whose address identifies it in
// the kernel cache. The table copies names and attributes from the ODS
// definitions (EmberOps.td): unittests/Frontend/OpTableTest.cpp checks it
// against the registered dialect, so the two cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_FRONTEND_OPTABLE_H
#define EMBER_LIB_FRONTEND_OPTABLE_H

#include "OpDef.h"

namespace ember::detail {

// Attribute schemas of the ops that have attributes, in the order their
// words are encoded.
inline constexpr trace::AttrSchema kCompareAttrs[] = {{"direction", trace::AttrKind::Enum32}};
inline constexpr trace::AttrSchema kTransposeAttrs[] = {
    {"permutation", trace::AttrKind::Int64Array}};
inline constexpr trace::AttrSchema kSliceAttrs[] = {{"start", trace::AttrKind::Int64Array},
                                                    {"limit", trace::AttrKind::Int64Array},
                                                    {"stride", trace::AttrKind::Int64Array}};
inline constexpr trace::AttrSchema kAxisAttrs[] = {{"axis", trace::AttrKind::Int64}};
inline constexpr trace::AttrSchema kScatterAttrs[] = {{"mode", trace::AttrKind::Enum32},
                                                      {"axis", trace::AttrKind::Int64}};
inline constexpr trace::AttrSchema kIotaAttrs[] = {{"dimension", trace::AttrKind::Int64}};
inline constexpr trace::AttrSchema kReduceAttrs[] = {{"axes", trace::AttrKind::Int64Array},
                                                     {"keepdims", trace::AttrKind::Unit}};
inline constexpr trace::AttrSchema kArgMaxAttrs[] = {{"axis", trace::AttrKind::Int64},
                                                     {"keepdims", trace::AttrKind::Unit}};
inline constexpr trace::AttrSchema kConv2DAttrs[] = {
    {"strides", trace::AttrKind::Int64Array},
    {"dilations", trace::AttrKind::Int64Array},
    {"input_dilations", trace::AttrKind::Int64Array},
    {"padding", trace::AttrKind::Int64Array}};
inline constexpr trace::AttrSchema kPool2DAttrs[] = {{"window", trace::AttrKind::Int64Array},
                                                     {"strides", trace::AttrKind::Int64Array},
                                                     {"padding", trace::AttrKind::Int64Array}};
inline constexpr trace::AttrSchema kPrintAttrs[] = {{"message", trace::AttrKind::String}};
inline constexpr trace::AttrSchema kAllReduceAttrs[] = {{"reduction", trace::AttrKind::Enum32}};

/// X(variable, op name, attribute schema) for every op of the table.
#define EMBER_FRONTEND_OPS(X)                                                                      \
  X(kAdd, "ember.add", {})                                                                         \
  X(kSub, "ember.sub", {})                                                                         \
  X(kMul, "ember.mul", {})                                                                         \
  X(kDiv, "ember.div", {})                                                                         \
  X(kFloorDiv, "ember.floordiv", {})                                                               \
  X(kMod, "ember.mod", {})                                                                         \
  X(kPow, "ember.pow", {})                                                                         \
  X(kMaximum, "ember.maximum", {})                                                                 \
  X(kMinimum, "ember.minimum", {})                                                                 \
  X(kAnd, "ember.and", {})                                                                         \
  X(kOr, "ember.or", {})                                                                           \
  X(kNot, "ember.not", {})                                                                         \
  X(kSelect, "ember.select", {})                                                                   \
  X(kNeg, "ember.neg", {})                                                                         \
  X(kAbs, "ember.abs", {})                                                                         \
  X(kExp, "ember.exp", {})                                                                         \
  X(kLog, "ember.log", {})                                                                         \
  X(kLog1p, "ember.log1p", {})                                                                     \
  X(kErf, "ember.erf", {})                                                                         \
  X(kSqrt, "ember.sqrt", {})                                                                       \
  X(kRsqrt, "ember.rsqrt", {})                                                                     \
  X(kTanh, "ember.tanh", {})                                                                       \
  X(kSigmoid, "ember.sigmoid", {})                                                                 \
  X(kRelu, "ember.relu", {})                                                                       \
  X(kSquare, "ember.square", {})                                                                   \
  X(kSign, "ember.sign", {})                                                                       \
  X(kSin, "ember.sin", {})                                                                         \
  X(kCos, "ember.cos", {})                                                                         \
  X(kAsin, "ember.asin", {})                                                                       \
  X(kAcos, "ember.acos", {})                                                                       \
  X(kAtan, "ember.atan", {})                                                                       \
  X(kCast, "ember.cast", {})                                                                       \
  X(kBroadcastTo, "ember.broadcast_to", {})                                                        \
  X(kReshape, "ember.reshape", {})                                                                 \
  X(kMatmul, "ember.matmul", {})                                                                   \
  X(kCompare, "ember.compare", kCompareAttrs)                                                      \
  X(kTranspose, "ember.transpose", kTransposeAttrs)                                                \
  X(kSlice, "ember.slice", kSliceAttrs)                                                            \
  X(kConcat, "ember.concat", kAxisAttrs)                                                           \
  X(kGather, "ember.gather", kAxisAttrs)                                                           \
  X(kScatter, "ember.scatter", kScatterAttrs)                                                      \
  X(kReduceSum, "ember.reduce_sum", kReduceAttrs)                                                  \
  X(kReduceMax, "ember.reduce_max", kReduceAttrs)                                                  \
  X(kReduceMin, "ember.reduce_min", kReduceAttrs)                                                  \
  X(kReduceProd, "ember.reduce_prod", kReduceAttrs)                                                \
  X(kReduceMean, "ember.reduce_mean", kReduceAttrs)                                                \
  X(kArgMax, "ember.argmax", kArgMaxAttrs)                                                         \
  X(kShapeOf, "ember.shape_of", {})                                                                \
  X(kIota, "ember.iota", kIotaAttrs)                                                               \
  X(kConv2D, "ember.conv2d", kConv2DAttrs)                                                         \
  X(kMaxPool2D, "ember.max_pool2d", kPool2DAttrs)                                                  \
  X(kAvgPool2D, "ember.avg_pool2d", kPool2DAttrs)                                                  \
  X(kPrint, "ember.print", kPrintAttrs)                                                            \
  X(kAllReduce, "ember.all_reduce", kAllReduceAttrs)

#define EMBER_DEFINE_OP(VAR, NAME, ATTRS) inline constexpr OpDef VAR{NAME, ATTRS};
EMBER_FRONTEND_OPS(EMBER_DEFINE_OP)
#undef EMBER_DEFINE_OP

#define EMBER_LIST_OP(VAR, NAME, ATTRS) &VAR,
inline constexpr const OpDef *kFrontendOps[] = {EMBER_FRONTEND_OPS(EMBER_LIST_OP)};
#undef EMBER_LIST_OP

/// The broadcasts of an elementwise op's operands that a trace or a tape
/// records (dispatchBroadcast): ember.broadcast_to, told apart from a
/// user's broadcast_to, whose sizes may be the user's own. A tape's
/// derivative with None dims applies them where they are used.
inline constexpr OpDef kOperandBroadcast{"ember.broadcast_to"};

/// The values of ComparisonDirection in EmberDialect.td (the compare op's
/// `direction` attribute).
enum ComparisonDirection : int64_t { kEq = 0, kNe, kLt, kLe, kGt, kGe };

/// The values of ScatterMode in EmberDialect.td (the scatter op's `mode`).
enum ScatterMode : int64_t {
  kScatterUpdate = 0,
  kScatterAdd,
  kScatterMul,
  kScatterMax,
  kScatterMin
};

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_OPTABLE_H
