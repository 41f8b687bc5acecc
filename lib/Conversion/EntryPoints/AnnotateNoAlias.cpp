//===- AnnotateNoAlias.cpp - ember's aliasing facts onto LLVM pointers ----===//

#include "ember/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::ember {
#define GEN_PASS_DEF_ANNOTATENOALIASPASS
#include "ember/Conversion/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kNoAliasMemrefs = "ember.noalias_memrefs";

struct AnnotateNoAliasPass : ember::impl::AnnotateNoAliasPassBase<AnnotateNoAliasPass> {
  void runOnOperation() override {
    UnitAttr unit = UnitAttr::get(&getContext());
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto indices = func->getAttrOfType<DenseI64ArrayAttr>(kNoAliasMemrefs);
      if (!indices)
        return;
      func->removeAttr(kNoAliasMemrefs);
      for (int64_t index : indices.asArrayRef())
        if (index >= 0 && index < static_cast<int64_t>(func.getNumArguments()) &&
            isa<LLVM::LLVMPointerType>(func.getArgument(index).getType()))
          func.setArgAttr(index, LLVM::LLVMDialect::getNoAliasAttrName(), unit);
    });
  }
};
} // namespace
