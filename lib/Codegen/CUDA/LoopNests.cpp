//===- LoopNests.cpp - building and reading kernels' loop nests -----------===//

#include "LoopNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;

std::optional<int64_t> mlir::ember::normalizedExtent(Value lower, Value upper, Value step) {
  if (getConstantIntValue(lower) != 0 || getConstantIntValue(step) != 1)
    return std::nullopt;
  return getConstantIntValue(upper);
}

std::optional<SmallVector<int64_t>> mlir::ember::normalizedExtents(scf::ParallelOp loop) {
  SmallVector<int64_t> extents;
  for (unsigned d = 0; d < loop.getNumLoops(); ++d) {
    std::optional<int64_t> extent =
        normalizedExtent(loop.getLowerBound()[d], loop.getUpperBound()[d], loop.getStep()[d]);
    if (!extent)
      return std::nullopt;
    extents.push_back(*extent);
  }
  return extents;
}

std::optional<int64_t> mlir::ember::constantTripCount(scf::ParallelOp loop) {
  int64_t trips = 1;
  for (unsigned d = 0; d < loop.getNumLoops(); ++d) {
    auto lower = getConstantIntValue(loop.getLowerBound()[d]);
    auto upper = getConstantIntValue(loop.getUpperBound()[d]);
    auto step = getConstantIntValue(loop.getStep()[d]);
    if (!lower || !upper || !step || *step <= 0)
      return std::nullopt;
    trips *= std::max<int64_t>(0, (*upper - *lower + *step - 1) / *step);
  }
  return trips;
}

scf::ParallelOp
mlir::ember::parallelOver(OpBuilder &b, Location loc, ValueRange upper,
                          llvm::function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  if (upper.empty())
    return scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one}, ValueRange{one},
                                   [&](OpBuilder &lb, Location lloc, ValueRange) {
                                     body(lb, lloc, ValueRange{});
                                   });
  SmallVector<Value> lower(upper.size(), zero), steps(upper.size(), one);
  return scf::ParallelOp::create(b, loc, lower, upper, steps, body);
}

Value mlir::ember::broadcastToLanes(OpBuilder &b, Location loc, Value value, int64_t lanes) {
  if (isa<VectorType>(value.getType()))
    return value;
  return vector::BroadcastOp::create(b, loc, VectorType::get({lanes}, value.getType()), value);
}

Operation *mlir::ember::cloneOnVectors(OpBuilder &b, Operation &op, IRMapping &mapping,
                                       int64_t lanes) {
  Location loc = op.getLoc();
  SmallVector<Value> operands;
  for (Value operand : op.getOperands())
    operands.push_back(broadcastToLanes(b, loc, mapping.lookupOrDefault(operand), lanes));
  SmallVector<Type> types;
  for (Type type : op.getResultTypes())
    types.push_back(VectorType::get({lanes}, type));
  Operation *vectorOp =
      b.create(loc, op.getName().getIdentifier(), operands, types, op.getAttrs());
  mapping.map(op.getResults(), vectorOp->getResults());
  return vectorOp;
}
