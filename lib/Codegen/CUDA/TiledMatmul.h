//===- TiledMatmul.h - matmuls tiled through shared memory -------*- C++ -*-===//
#ifndef EMBER_LIB_CODEGEN_CUDA_TILEDMATMUL_H
#define EMBER_LIB_CODEGEN_CUDA_TILEDMATMUL_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::ember {

/// C[i, j] = C[i, j] + A[i, k] * B[k, j], found in a parallel loop nest of
/// buffers with identity layouts, whose M, N and K may be `?` (a batch, a
/// gradient's reduction over it); A and B may be 16-bit floats that a
/// float32 C sums (each widened as it is read).
struct MatmulNest {
  Value a, b, c;
  int64_t m, n, k;              // ShapedType::kDynamic where `?`
  Value mValue, nValue, kValue; // the sizes as values before the nest (the loops' bounds)
  bool isFloat;
  // A read as A[k, i] / B as B[j, k]: a transpose fused into the matmul
  // (the backward pass's x^T @ dz and dz @ w^T).
  bool aTransposed = false, bTransposed = false;
  Type elementA() const { return cast<MemRefType>(a.getType()).getElementType(); }
  Type elementB() const { return cast<MemRefType>(b.getType()).getElementType(); }
  Type elementC() const { return cast<MemRefType>(c.getType()).getElementType(); }
};

/// The matmul that `loop` computes, if it is exactly one:
///   scf.parallel (i, j) { scf.for k { C[i, j] = C[i, j] + A[i, k] * B[k, j] } }
std::optional<MatmulNest> matchMatmulNest(scf::ParallelOp loop);

/// Rewrites the loop nest of a 2-D matmul on buffers,
///   scf.parallel (i, j) { scf.for k { C[i, j] = C[i, j] + A[i, k] * B[k, j] } }
/// (f32, f64 or integers of one type, or 16-bit floats widened to a float32
/// C as they are staged; `?` sizes too, whose tiles are counted at the call;
/// A as A[k, i] or B as B[j, k] too: fused transposes),
/// as a `gpu.launch` of blocks that each compute a tile of C: the threads
/// stage tiles of A and B in shared memory, and each accumulates a small
/// block of C in registers (outer products of vectors read from shared
/// memory). Small problems split the reduction across blocks that add their
/// partial tiles atomically (floats). Returns false, changing nothing, for
/// any other nest.
/// `large`: 128 x 128 tiles (8 x 8 a thread) or 64 x 64 (4 x 4); by
/// default large where M and N are static and at least 1024.
bool mapMatmulToTiles(scf::ParallelOp loop, std::optional<bool> large = std::nullopt);

/// Rewrites the loop nest of a matmul of float16 or bfloat16 operands into
/// a float32 C (or, with `allowTF32`, of float32 operands rounded to TF32)
/// as a `gpu.launch` on tensor cores (`mma.sync` m16n8k16 or m16n8k8, sm_80
/// and later): slices of A and B staged in shared memory by `cp.async`,
/// stages - 1 in flight, read into fragments by `ldmatrix`; each warp holds a block of
/// C in registers. Rows of A and B (as stored) must be multiples of 16
/// bytes, so N and K must be static (M may be `?`). Returns false, changing
/// nothing, for any other nest.
bool mapMatmulToTensorCores(scf::ParallelOp loop, bool allowTF32,
                            const struct TensorCoreShape *forcedShape = nullptr);

/// How a tensor-core matmul is blocked: warpsM x warpsN warps, each
/// computing mTiles x nTiles tiles of 16 x 8 elements of C, `stages` slices
/// of A and B in shared memory (all but one in flight), each `sliceBytes`
/// of the reduction deep.
struct TensorCoreShape {
  int64_t warpsM, warpsN, mTiles, nTiles, stages, sliceBytes;
  int64_t bm() const { return warpsM * mTiles * 16; }
  int64_t bn() const { return warpsN * nTiles * 8; }
  int64_t threads() const { return 32 * warpsM * warpsN; }
};

/// The blocks a tensor-core matmul takes where M and N are at least 1024,
/// and otherwise.
inline constexpr TensorCoreShape kLargeTensorCoreBlocks{2, 2, 4, 8, 4, 64};
inline constexpr TensorCoreShape kSmallTensorCoreBlocks{2, 2, 2, 4, 3, 64};

/// A matmul nest with a `?` M or N: both kernels (mapMatmulToTensorCores,
/// where it takes the nest, else mapMatmulToTiles), large blocks and small,
/// under an scf.if that chooses at the call (M and N at least 1024: large).
/// Returns false, changing nothing, where the sizes decide already (M and N
/// static, or one of them static and below 1024).
bool mapMatmulBySizeAtCall(scf::ParallelOp loop, bool tensorCores, bool allowTF32);

/// Parses "WMxWN,MTxNT,STAGES,SLICEBYTES" (e.g. "2x2,4x8,4,64"); nullopt
/// for anything else or a shape the kernel cannot take.
std::optional<TensorCoreShape> parseTensorCoreShape(llvm::StringRef text);

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CUDA_TILEDMATMUL_H
