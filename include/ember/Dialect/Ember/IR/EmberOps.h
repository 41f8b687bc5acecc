//===- EmberOps.h - the ember dialect and its operations --------*- C++ -*-===//
#ifndef EMBER_DIALECT_EMBER_IR_EMBEROPS_H
#define EMBER_DIALECT_EMBER_IR_EMBEROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::ember {
/// See Ember_NoGradient in EmberDialect.td.
template <typename ConcreteType>
class NoGradient : public OpTrait::TraitBase<ConcreteType, NoGradient> {};
/// See Ember_Elementwise in EmberDialect.td.
template <typename ConcreteType>
class Elementwise : public OpTrait::TraitBase<ConcreteType, Elementwise> {};
} // namespace mlir::ember

#include "ember/Dialect/Ember/IR/EmberEnums.h.inc"
#include "ember/Dialect/Ember/IR/EmberInterfaces.h.inc"
#include "ember/Dialect/Ember/IR/EmberOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "ember/Dialect/Ember/IR/EmberOps.h.inc"

namespace mlir::ember {
/// True for the element types of ember's dtypes: f32, f64, f16, bf16, i1, i32, i64.
bool isEmberElementType(Type type);
/// f32, f64, f16 or bf16.
bool isEmberFloatType(Type type);
/// Largest constant (in elements) that folders will create.
constexpr int64_t kMaxFoldElements = 1 << 16;
/// A float tensor of `like`'s type filled with `value`: a constant, or for
/// `?` dims a scalar constant broadcast to `like`'s run-time sizes (the
/// derivatives of functions with `?` dims make these).
Value splatLike(OpBuilder &b, Location loc, Value like, double value);
/// `x` broadcast to `type`, whose `?` dims take `like`'s run-time sizes
/// (`like` has `type`'s shape).
Value broadcastLike(OpBuilder &b, Location loc, Value x, RankedTensorType type, Value like);
/// A slice's bounds along a `?` dim of size n (see SliceOp): the start and
/// the limit each counted from the beginning or (`...FromEnd`, then <= 0)
/// from the end; the result's size is `size`, or with `sizeFromDim` n plus
/// `size`; the slice needs n >= `leastSize`.
struct DynamicSliceBounds {
  int64_t start = 0, limit = 0, stride = 1;
  bool startFromEnd = false, limitFromEnd = false;
  int64_t size = 0;
  bool sizeFromDim = false;
  int64_t leastSize = 0;
  /// The whole dim (start 0, to the end, stride 1).
  bool whole() const {
    return !startFromEnd && start == 0 && limitFromEnd && limit == 0 && stride == 1;
  }
};
/// The bounds of a slice `start:limit:stride` along a `?` dim, or an error
/// message (bounds it cannot take) in `error`.
std::optional<DynamicSliceBounds> dynamicSliceBounds(int64_t start, int64_t limit, int64_t stride,
                                                     std::string &error);
/// The product of `type`'s known dims (a `?` counts 1): the elements of a
/// reshape's side, per unit of its `?` dims.
int64_t knownElements(RankedTensorType type);
/// Where `op` was written, as an error message starts: "file:line:col"
/// (empty when its location is not a file position).
std::string sourcePosition(Operation *op);
} // namespace mlir::ember

#endif // EMBER_DIALECT_EMBER_IR_EMBEROPS_H
