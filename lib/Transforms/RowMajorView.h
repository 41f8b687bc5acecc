//===- RowMajorView.h - a contiguous buffer seen with another shape -*- C++ -*-===//
#ifndef EMBER_LIB_TRANSFORMS_ROWMAJORVIEW_H
#define EMBER_LIB_TRANSFORMS_ROWMAJORVIEW_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::ember {

/// `buffer` (contiguous, from offset 0) viewed as `type` (an identity
/// layout) with `sizes`: a memref.reinterpret_cast with their row-major
/// strides.
Value rowMajorView(OpBuilder &b, Location loc, Value buffer, MemRefType type,
                   ArrayRef<OpFoldResult> sizes);

} // namespace mlir::ember

#endif // EMBER_LIB_TRANSFORMS_ROWMAJORVIEW_H
