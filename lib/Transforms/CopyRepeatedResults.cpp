//===- CopyRepeatedResults.cpp - one buffer per returned result -----------===//
//
// A function may return one value twice (`return %x, %x`: a traced function
// returning a tensor twice, an assignment to two variables). Every result
// becomes its own caller-provided buffer (buffer-results-to-out-params), so
// each repeat gets its own copy first; upstream's pass crashes on the shared
// allocation otherwise.
//
//===----------------------------------------------------------------------===//

#include "ember/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::ember {
#define GEN_PASS_DEF_COPYREPEATEDRESULTSPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
struct CopyRepeatedResultsPass
    : ember::impl::CopyRepeatedResultsPassBase<CopyRepeatedResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 4> returned;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<MemRefType>(value.getType());
        if (returned.insert(value).second || !type || !type.hasStaticShape())
          continue;
        auto plain = MemRefType::get(type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
                                     type.getMemorySpace());
        if (plain != type)
          continue; // function boundaries use identity layouts
        Value copy = memref::AllocOp::create(b, ret.getLoc(), plain);
        memref::CopyOp::create(b, ret.getLoc(), value, copy);
        operand.set(copy);
      }
    });
  }
};
} // namespace
