//===- RowMajorView.cpp - a contiguous buffer seen with another shape -----===//

#include "RowMajorView.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

/// `x * y` as a constant when both are, else an arith.muli.
static OpFoldResult multiply(OpBuilder &b, Location loc, OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx * *cy);
  if (cx == 1)
    return y;
  if (cy == 1)
    return x;
  auto value = [&](OpFoldResult v) -> Value {
    if (auto constant = getConstantIntValue(v))
      return arith::ConstantIndexOp::create(b, loc, *constant);
    return cast<Value>(v);
  };
  return arith::MulIOp::create(b, loc, value(x), value(y)).getResult();
}

Value mlir::ember::rowMajorView(OpBuilder &b, Location loc, Value buffer, MemRefType type,
                                ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size());
  OpFoldResult stride = b.getIndexAttr(1);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    if (d > 0)
      stride = multiply(b, loc, stride, sizes[d]);
  }
  return memref::ReinterpretCastOp::create(b, loc, type, buffer, b.getIndexAttr(0), sizes,
                                           strides);
}
