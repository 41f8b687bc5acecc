//===- AlignWorkgroupBuffers.cpp - 16-byte aligned shared memory ----------===//
//
// Shared-memory buffers become globals aligned as the attribution says
// (`llvm.align`), else as their elements. Vectorized accesses need 16.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::ember {
#define GEN_PASS_DEF_ALIGNWORKGROUPBUFFERSPASS
#include "ember/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
/// The widest access a thread makes: a 16-byte vector (ld.shared.v4.b32).
constexpr int64_t kSharedAlignment = 16;

struct AlignWorkgroupBuffersPass
    : ember::impl::AlignWorkgroupBuffersPassBase<AlignWorkgroupBuffersPass> {
  void runOnOperation() override {
    StringRef alignName = LLVM::LLVMDialect::getAlignAttrName();
    getOperation().walk([&](gpu::GPUFuncOp kernel) {
      Builder b(kernel.getContext());
      for (unsigned i = 0, e = kernel.getNumWorkgroupAttributions(); i < e; ++i)
        if (!kernel.getWorkgroupAttributionAttr(i, alignName))
          kernel.setWorkgroupAttributionAttr(i, alignName, b.getI64IntegerAttr(kSharedAlignment));
    });
  }
};
} // namespace
