//===- StoreBFloat16AsIntegers.cpp - bf16 memory accesses as i16 -----------===//
//
// On x86 without AVX512-BF16, LLVM keeps a scalar bfloat in a float register:
// a `load bfloat` is widened and a `store bfloat` rounded back through a call
// to __truncsfbf2 (which Debian 12's libgcc does not have), even in a plain
// copy such as a broadcast. Loaded and stored as i16 (with a bitcast to the
// bf16 value where it is used), LLVM moves the bits and folds the bitcasts
// into the integer conversions of ember-cpu-lower-half-precision-conversions.
// Selects between bf16 values (where(c, a, b), which computes nothing) are
// made on their bits too: LLVM selected in float registers and rounded the
// result through the same missing call.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::ember {
#define GEN_PASS_DEF_STOREBFLOAT16ASINTEGERSPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

/// i16 for bf16 (and vectors of them), else null.
static Type asIntegers(Type type) {
  if (type.isBF16())
    return IntegerType::get(type.getContext(), 16);
  if (auto vector = dyn_cast<VectorType>(type); vector && vector.getElementType().isBF16())
    return vector.clone(IntegerType::get(type.getContext(), 16));
  return {};
}

namespace {
struct StoreBFloat16AsIntegersPass
    : ember::impl::StoreBFloat16AsIntegersPassBase<StoreBFloat16AsIntegersPass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    getOperation().walk([&](LLVM::LoadOp load) {
      Type type = load.getType(), integers = asIntegers(type);
      if (!integers)
        return;
      Value loaded = load.getResult();
      loaded.setType(integers); // the load keeps its alignment and alias info
      b.setInsertionPointAfter(load);
      auto value = LLVM::BitcastOp::create(b, load.getLoc(), type, loaded);
      loaded.replaceAllUsesExcept(value, value);
    });
    getOperation().walk([&](LLVM::StoreOp store) {
      Type integers = asIntegers(store.getValue().getType());
      if (!integers)
        return;
      b.setInsertionPoint(store);
      Value bits = LLVM::BitcastOp::create(b, store.getLoc(), integers, store.getValue());
      store.getValueMutable().assign(bits);
    });
    getOperation().walk([&](LLVM::SelectOp select) {
      Type type = select.getType(), integers = asIntegers(type);
      if (!integers)
        return;
      b.setInsertionPoint(select);
      Location loc = select.getLoc();
      Value trueBits = LLVM::BitcastOp::create(b, loc, integers, select.getTrueValue());
      Value falseBits = LLVM::BitcastOp::create(b, loc, integers, select.getFalseValue());
      Value bits = LLVM::SelectOp::create(b, loc, select.getCondition(), trueBits, falseBits);
      select.replaceAllUsesWith(LLVM::BitcastOp::create(b, loc, type, bits).getResult());
      select.erase();
    });
  }
};
} // namespace
