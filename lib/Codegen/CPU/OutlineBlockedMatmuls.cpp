//===- OutlineBlockedMatmuls.cpp - one function per kind of blocked matmul --===//

#include "Outlining.h"

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::ember {
#define GEN_PASS_DEF_OUTLINEBLOCKEDMATMULSPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
/// Whether the product's only user is a linalg.generic, directly or through
/// reshapes (an elementwise op flattens its operands) and the loops around
/// it (the loop over a matmul's row groups yields what its panel loop made),
/// which elementwise fusion may turn into an epilogue of the matmul.
bool mayGetAnEpilogue(Value product) {
  while (product.hasOneUse()) {
    OpOperand &use = *product.getUses().begin();
    Operation *user = use.getOwner();
    if (isa<linalg::GenericOp>(user))
      return true;
    if (isa<scf::YieldOp>(user) && isa<scf::ForOp>(user->getParentOp())) {
      product = user->getParentOp()->getResult(use.getOperandNumber());
    } else if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user)) {
      product = user->getResult(0);
    } else {
      return false;
    }
  }
  return false;
}

struct OutlineBlockedMatmulsPass
    : ember::impl::OutlineBlockedMatmulsPassBase<OutlineBlockedMatmulsPass> {
  using OutlineBlockedMatmulsPassBase::OutlineBlockedMatmulsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    ember::OutlinedFunctions outlined; // identical ones shared
    for (func::FuncOp func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      // Each matmul's loop over panels of columns, or its loop over rows
      // where the panel loop had one iteration and was folded away.
      llvm::SetVector<Operation *> matmuls;
      func.walk([&](scf::ForOp rows) {
        // (A matmul on AMX tiles writes a buffer: no result to outline.)
        if (!rows->hasAttr("ember.blocked_matmul_rows") || rows.getNumResults() == 0)
          return;
        Operation *panels = rows->getParentOp();
        matmuls.insert(panels->hasAttr("ember.blocked_matmul") ? panels : rows.getOperation());
      });
      if (matmuls.size() < minMatmuls)
        continue;
      for (Operation *matmul : matmuls) {
        // One whose only user is elementwise (a linalg.generic) may still
        // get it fused into its blocks (ember-fuse-matmul-epilogues): later.
        if (keepEpilogueCandidates && mayGetAnEpilogue(matmul->getResult(0)))
          continue;
        // A result of `?` dims (a batch of any size) stays inline: a called
        // function cannot return it into a caller's buffer
        // (buffer-results-to-out-params refuses dynamically shaped results).
        if (!cast<ShapedType>(matmul->getResult(0).getType()).hasStaticShape())
          continue;
        ember::outlineIntoFunction(matmul, func, "_matmul", symbols, outlined);
      }
    }
  }
};
} // namespace
