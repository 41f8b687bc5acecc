//===- BFloat16Matmul.h - bfloat16 matmuls on dot-product units -*- C++ -*-===//

#ifndef EMBER_LIB_CODEGEN_CPU_BFLOAT16MATMUL_H
#define EMBER_LIB_CODEGEN_CPU_BFLOAT16MATMUL_H

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

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CPU_BFLOAT16MATMUL_H
