//===- TiledMatmul.h - matmuls tiled through shared memory -------*- C++ -*-===//
#ifndef EMBER_LIB_CODEGEN_CUDA_TILEDMATMUL_H
#define EMBER_LIB_CODEGEN_CUDA_TILEDMATMUL_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::ember {

/// Rewrites the loop nest of a 2-D matmul on buffers,
///   scf.parallel (i, j) { scf.for k { C[i, j] = C[i, j] + A[i, k] * B[k, j] } }
/// (f32, f64 or integers, static shapes; A as A[k, i] or B as B[j, k] too:
/// fused transposes), as a `gpu.launch` of blocks that
/// each compute a tile of C: the threads stage tiles of A and B in shared
/// memory, and each accumulates a small block of C in registers (outer
/// products of vectors read from shared memory). Small problems split the
/// reduction across blocks that add their partial tiles atomically (floats).
/// Returns false, changing nothing, for any other nest.
bool mapMatmulToTiles(scf::ParallelOp loop);

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CUDA_TILEDMATMUL_H
