//===- EmitEntryPoints.cpp - one packed C entry point per function ---------===//
//
// The runtime calls every compiled function the same way: with an array of
// pointers to memref descriptors. This pass adds that entry point next to each
// `_mlir_ciface_` wrapper, so the caller needs no per-signature trampoline.
//
//===----------------------------------------------------------------------===//

#include "ember/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::ember {
#define GEN_PASS_DEF_EMITENTRYPOINTSPASS
#include "ember/Conversion/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";

struct EmitEntryPointsPass : ember::impl::EmitEntryPointsPassBase<EmitEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> wrappers;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func.getName().starts_with(kCInterfacePrefix) && !func.isExternal() &&
          isa<LLVM::LLVMVoidType>(func.getFunctionType().getReturnType()))
        wrappers.push_back(func);

    MLIRContext *context = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    auto voidType = LLVM::LLVMVoidType::get(context);
    OpBuilder builder(context);
    for (LLVM::LLVMFuncOp wrapper : wrappers) {
      std::string name =
          ("ember_entry_" + wrapper.getName().drop_front(kCInterfacePrefix.size())).str();
      if (module.lookupSymbol(name))
        continue;
      Location loc = wrapper.getLoc();
      builder.setInsertionPointToEnd(module.getBody());
      auto entry = LLVM::LLVMFuncOp::create(builder, loc, name,
                                            LLVM::LLVMFunctionType::get(voidType, {ptrType}));
      Block *body = entry.addEntryBlock(builder);
      builder.setInsertionPointToStart(body);
      SmallVector<Value> args;
      for (unsigned i = 0, e = wrapper.getNumArguments(); i < e; ++i) {
        auto slot = LLVM::GEPOp::create(builder, loc, ptrType, ptrType, body->getArgument(0),
                                        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(LLVM::LoadOp::create(builder, loc, ptrType, slot));
      }
      LLVM::CallOp::create(builder, loc, wrapper, args);
      LLVM::ReturnOp::create(builder, loc, ValueRange{});
    }
  }
};
} // namespace
