//===- LoopNests.h - building and reading kernels' loop nests ---*- C++ -*-===//
//
// Shared by the CUDA codegen passes: the shape of a loop dimension, parallel
// loops over a buffer's indices, and the scalar body of an elementwise loop
// rebuilt on vectors.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_CODEGEN_CUDA_LOOPNESTS_H
#define EMBER_LIB_CODEGEN_CUDA_LOOPNESTS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace mlir::ember {

/// The trip count of a loop dimension that runs from 0 by steps of 1 to a
/// constant; nullopt for any other.
std::optional<int64_t> normalizedExtent(Value lower, Value upper, Value step);

/// The trip counts of all of `loop`'s dimensions if each is normalized (see
/// normalizedExtent); nullopt otherwise.
std::optional<SmallVector<int64_t>> normalizedExtents(scf::ParallelOp loop);

/// The number of iterations of all of `loop`'s dimensions, if their bounds
/// and steps are constants.
std::optional<int64_t> constantTripCount(scf::ParallelOp loop);

/// A parallel loop over the indices below `upper` (one iteration, with no
/// indices, when `upper` is empty: a rank-0 buffer); `body` builds the
/// iteration from the indices.
scf::ParallelOp
parallelOver(OpBuilder &b, Location loc, ValueRange upper,
             llvm::function_ref<void(OpBuilder &, Location, ValueRange)> body);

/// `value` as a vector of `lanes`: itself if it is one, else broadcast.
Value broadcastToLanes(OpBuilder &b, Location loc, Value value, int64_t lanes);

/// Rebuilds the elementwise scalar op `op` on vectors of `lanes`: its
/// operands looked up in `mapping` (scalars broadcast), its results mapped
/// to the vector results.
Operation *cloneOnVectors(OpBuilder &b, Operation &op, IRMapping &mapping, int64_t lanes);

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CUDA_LOOPNESTS_H
