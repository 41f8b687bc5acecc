//===- AmxMatmul.h - bfloat16 matmuls on AMX tiles --------------*- C++ -*-===//

#ifndef EMBER_LIB_CODEGEN_CPU_AMXMATMUL_H
#define EMBER_LIB_CODEGEN_CPU_AMXMATMUL_H

#include "mlir/IR/Builders.h"

namespace mlir::ember {

/// Whether A [m, k] @ B [k, n] is worth AMX tiles: static sizes, each at least
/// a tile (narrower ones would mostly multiply padding).
bool suitsAmxTiles(int64_t m, int64_t n, int64_t k);

/// A @ B for the bfloat16 tensors `lhs` [m, k] and `rhs` [k, n] (static
/// sizes, suitsAmxTiles) on AMX tiles: a float32 tensor [m, n].
Value emitAmxMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs);

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CPU_AMXMATMUL_H
