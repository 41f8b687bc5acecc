//===- BFloat16Matmul.h - bfloat16 matmuls on dot-product units -*- C++ -*-===//

#ifndef EMBER_LIB_CODEGEN_CPU_BFLOAT16MATMUL_H
#define EMBER_LIB_CODEGEN_CPU_BFLOAT16MATMUL_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace mlir::ember {

/// The x86 instructions that multiply pairs of bfloat16 and sum in float32.
enum class BFloat16Instructions {
  /// AMX tiles (amx-tile, amx-bf16: Sapphire Rapids and later): tdpbf16ps.
  AmxTiles,
  /// AVX-512 vectors (avx512bf16: Cooper Lake, Zen 4 and later): vdpbf16ps.
  Avx512Dot,
};

/// Whether A [m, k] @ B [k, n] is worth `instructions`: static sizes, at
/// least a block of columns, half a block of rows and a step of 32 along k
/// (narrower ones would mostly multiply padding).
bool suitsBFloat16Instructions(BFloat16Instructions instructions, int64_t m, int64_t n, int64_t k);

/// A @ B for the bfloat16 tensors `lhs` [m, k] and `rhs` [k, n] (static
/// sizes that suit `instructions`), summed in float32 on `instructions`: a
/// float32 tensor [m, n].
Value emitBFloat16Matmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         BFloat16Instructions instructions);

/// A convolution's patches, read in place: the patch matrix's element
/// [(n, oh, ow), (kh, kw, c)] is input[read(n, oh, ow, kh, kw, c)], with
/// `read` moving along the input's W by one for one step of ow.
struct ConvolutionPatches {
  Value input;            // bfloat16 [N, H, W, C], padded
  AffineMap read;         // (n, oh, ow, kh, kw, c) -> input's indices
  SmallVector<int64_t> loops; // N, OH, OW, KH, KW, C
};

/// Whether `patches` @ B (F columns) can multiply on AMX tiles in place: C a
/// multiple of 32, F at least 32, static sizes, unit steps along W.
bool suitsAmxConvolution(const ConvolutionPatches &patches, int64_t columns);

/// The patches of `patches` @ `rhs` (bfloat16 [KH * KW * C, F]) on AMX tiles,
/// each tile of A one strided load from the input (an implicit GEMM: no
/// patch matrix): a float32 tensor [N * OH * OW, F].
Value emitAmxConvolution(OpBuilder &b, Location loc, const ConvolutionPatches &patches,
                         Value rhs);

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CPU_BFLOAT16MATMUL_H
