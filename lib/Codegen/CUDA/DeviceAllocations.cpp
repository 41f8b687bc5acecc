//===- DeviceAllocations.cpp - host allocations from the device allocator -===//
//
// The memref lowering allocates with malloc/aligned_alloc and frees with
// free. In GPU host code those buffers must be device memory, so the calls
// go to ember's runtime instead, which recycles device blocks.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::ember {
#define GEN_PASS_DEF_DEVICEALLOCATIONSPASS
#include "ember/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
struct DeviceAllocationsPass : ember::impl::DeviceAllocationsPassBase<DeviceAllocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    static const std::pair<StringRef, StringRef> kRenames[] = {
        {"malloc", "emberrt_cuda_host_malloc"},
        {"aligned_alloc", "emberrt_cuda_aligned_alloc"},
        {"free", "emberrt_cuda_free_any"}};
    // Only the host module's own symbol table: a gpu.module has its own.
    SymbolTable symbols(module);
    for (auto [from, to] : kRenames) {
      auto declaration = symbols.lookup<LLVM::LLVMFuncOp>(from);
      if (!declaration)
        continue;
      if (symbols.lookup(to)) {
        declaration.emitError() << "cannot rename '" << from << "': '" << to << "' exists";
        return signalPassFailure();
      }
      if (failed(symbols.rename(declaration, StringAttr::get(&getContext(), to))))
        return signalPassFailure();
    }
  }
};
} // namespace
