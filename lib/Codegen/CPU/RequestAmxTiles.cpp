//===- RequestAmxTiles.cpp - ask for AMX tiles before using them ----------===//
//
// See Passes.td: public functions of a module that uses AMX tiles call
// emberrt_require_amx first.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::ember {
#define GEN_PASS_DEF_REQUESTAMXTILESPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kRequire = "emberrt_require_amx";

/// Whether `call` is one of AMX's tile intrinsics.
bool isTileIntrinsic(LLVM::CallIntrinsicOp call) {
  llvm::StringRef name = call.getIntrin();
  return name.starts_with("llvm.x86.tile") || name.starts_with("llvm.x86.tdp");
}

struct RequestAmxTilesPass : ember::impl::RequestAmxTilesPassBase<RequestAmxTilesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool usesTiles = false;
    module.walk([&](LLVM::CallIntrinsicOp call) {
      usesTiles = isTileIntrinsic(call);
      return usesTiles ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!usesTiles)
      return;
    MLIRContext *context = &getContext();
    OpBuilder builder(context);
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {});
    auto require = module.lookupSymbol<LLVM::LLVMFuncOp>(kRequire);
    if (!require) {
      builder.setInsertionPointToStart(module.getBody());
      require = LLVM::LLVMFuncOp::create(builder, module.getLoc(), kRequire, type);
    }
    for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
      LLVM::Linkage linkage = function.getLinkage();
      if (function.isExternal() || function.isPrivate() || linkage == LLVM::Linkage::Private ||
          linkage == LLVM::Linkage::Internal)
        continue;
      builder.setInsertionPointToStart(&function.getBody().front());
      LLVM::CallOp::create(builder, function.getLoc(), require, ValueRange{});
    }
  }
};
} // namespace
