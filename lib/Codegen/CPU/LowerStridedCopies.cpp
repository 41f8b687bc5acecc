//===- LowerStridedCopies.cpp - strided memref.copy as linalg.copy ---------===//
//
// finalize-memref-to-llvm lowers a memref.copy between two contiguous
// buffers to one llvm.memcpy, and any other to a call of the runtime's
// memrefCopy (emberrt_memref_copy): one memcpy call per contiguous run (a
// row of a padded tensor, a single element of a transposed view), on one
// thread. A concatenation or a padding bufferizes to such copies into
// subviews of its result. As a linalg.copy the same copy becomes loops
// (parallel ones when large, by ember-cpu-parallelize) whose innermost dim
// LLVM vectorizes, or turns back into a memcpy per row.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

namespace mlir::ember {
#define GEN_PASS_DEF_LOWERSTRIDEDCOPIESPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

/// Whether `value` is a buffer of one contiguous block (row-major, static
/// or dynamic sizes): a copy from or to it may be a plain memcpy.
bool isContiguous(Value value) {
  auto type = cast<MemRefType>(value.getType());
  return type.getLayout().isIdentity() || memref::isStaticShapeAndContiguousRowMajor(type);
}

struct LowerStridedCopiesPass
    : ember::impl::LowerStridedCopiesPassBase<LowerStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> strided;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      // Ranked buffers of rank 1 or more with one of them strided.
      if (source && target && source.getRank() > 0 &&
          !(isContiguous(copy.getSource()) && isContiguous(copy.getTarget())))
        strided.push_back(copy);
    });
    for (memref::CopyOp copy : strided) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), ValueRange{copy.getSource()},
                             ValueRange{copy.getTarget()});
      copy.erase();
    }
  }
};

} // namespace
