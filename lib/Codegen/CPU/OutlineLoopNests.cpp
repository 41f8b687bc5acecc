//===- OutlineLoopNests.cpp - one function per loop nest of big functions ---===//

#include "Outlining.h"

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::ember {
#define GEN_PASS_DEF_OUTLINELOOPNESTSPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

bool isOutlinable(Operation &op) {
  return isa<scf::ForOp, scf::ParallelOp>(op) && op.getNumResults() == 0;
}

/// The buffer a memref value views (through subviews, reshapes, casts).
Value rootOf(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Indices of the arguments of `function` that its body writes to.
llvm::SmallDenseSet<unsigned> writtenArguments(func::FuncOp function) {
  llvm::SmallDenseSet<unsigned> written;
  function.walk([&](MemoryEffectOpInterface op) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    op.getEffects(effects);
    for (auto &effect : effects)
      if (isa<MemoryEffects::Write>(effect.getEffect()) && effect.getValue())
        if (auto argument = dyn_cast<BlockArgument>(rootOf(effect.getValue())))
          if (argument.getOwner() == &function.getBody().front())
            written.insert(argument.getArgNumber());
  });
  return written;
}

/// True if at this call every written argument's buffer is passed nowhere
/// else, so that the callee may treat it as not aliasing the others.
bool writtenBuffersAreExclusive(ValueRange operands, const llvm::SmallDenseSet<unsigned> &written) {
  for (unsigned w : written)
    for (unsigned i = 0; i < operands.size(); ++i)
      if (i != w && rootOf(operands[w]) == rootOf(operands[i]))
        return false;
  return true;
}

struct OutlineLoopNestsPass
    : ember::impl::OutlineLoopNestsPassBase<OutlineLoopNestsPass> {
  using OutlineLoopNestsPassBase::OutlineLoopNestsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Outlined functions, to share identical ones.
    ember::OutlinedFunctions outlined;
    // Per outlined function: its written arguments, and whether every call
    // so far passed them exclusive buffers.
    llvm::DenseMap<Operation *, std::pair<llvm::SmallDenseSet<unsigned>, bool>> exclusive;
    for (func::FuncOp func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      SmallVector<Operation *> nests;
      for (Operation &op : func.getBody().front())
        if (isOutlinable(op))
          nests.push_back(&op);
      if (nests.size() < minLoopNests)
        continue;
      for (Operation *nest : nests) {
        auto [callee, arguments] = ember::outlineIntoFunction(nest, func, "_nest", symbols, outlined);
        auto [it, inserted] = exclusive.try_emplace(callee, writtenArguments(callee), true);
        it->second.second &= writtenBuffersAreExclusive(arguments, it->second.first);
      }
    }
    // Written buffers no call shares with another argument are `noalias`:
    // LLVM can then keep values in registers and vectorize without overlap
    // checks, as it does for the same loops before outlining.
    // The facts are recorded as the lowered pointer positions of those
    // arguments (a memref of rank r lowers to 2 pointers + 1 + 2r integers);
    // ember-annotate-noalias applies them once the function is in LLVM form.
    for (auto &[op, info] : exclusive) {
      if (!info.second || info.first.empty())
        continue;
      auto callee = cast<func::FuncOp>(op);
      SmallVector<int64_t> pointers;
      int64_t position = 0;
      for (auto [index, type] : llvm::enumerate(callee.getArgumentTypes())) {
        auto memref = dyn_cast<MemRefType>(type);
        if (memref && info.first.contains(index)) {
          pointers.push_back(position);
          pointers.push_back(position + 1);
        }
        position += memref ? 3 + 2 * memref.getRank() : 1;
      }
      callee->setAttr("ember.noalias_memrefs",
                      DenseI64ArrayAttr::get(&getContext(), pointers));
    }
  }

};
} // namespace
