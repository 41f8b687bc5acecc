//===- LimitLoopUnrolling.cpp - compile time before unrolled loops --------===//
//
// CompileOptions::unrolling = Unrolling::CompileTimeFirst (the JIT's choice,
// which ember-compile offers as --unroll=compile-time-first).
//
//===----------------------------------------------------------------------===//

#include "LLVMModuleSteps.h"

#include "ember/Compiler/Compiler.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

#include <optional>

using namespace ember::compiler;

namespace {

/// The trip count of `loop` as MLIR lowers an scf.for with constant bounds:
/// a header phi from a constant, stepped by a constant, compared with a
/// constant bound (slt/ult, or ne); nothing otherwise.
std::optional<int64_t> constantTripCount(const llvm::Loop &loop) {
  llvm::BasicBlock *header = loop.getHeader();
  for (llvm::PHINode &phi : header->phis()) {
    if (phi.getNumIncomingValues() != 2 || !phi.getType()->isIntegerTy())
      continue;
    llvm::ConstantInt *start = nullptr;
    llvm::BinaryOperator *next = nullptr;
    for (unsigned i = 0; i < 2; ++i) {
      llvm::Value *incoming = phi.getIncomingValue(i);
      if (loop.contains(phi.getIncomingBlock(i)))
        next = llvm::dyn_cast<llvm::BinaryOperator>(incoming);
      else
        start = llvm::dyn_cast<llvm::ConstantInt>(incoming);
    }
    if (!start || !next || next->getOpcode() != llvm::Instruction::Add ||
        next->getOperand(0) != &phi)
      continue;
    auto *step = llvm::dyn_cast<llvm::ConstantInt>(next->getOperand(1));
    if (!step || step->getSExtValue() <= 0)
      continue;
    for (llvm::User *user : phi.users()) {
      auto *compare = llvm::dyn_cast<llvm::ICmpInst>(user);
      if (!compare || compare->getOperand(0) != &phi)
        continue;
      auto *bound = llvm::dyn_cast<llvm::ConstantInt>(compare->getOperand(1));
      if (!bound || (compare->getPredicate() != llvm::ICmpInst::ICMP_SLT &&
                     compare->getPredicate() != llvm::ICmpInst::ICMP_ULT))
        continue;
      int64_t span = bound->getSExtValue() - start->getSExtValue();
      return span <= 0 ? 0 : (span + step->getSExtValue() - 1) / step->getSExtValue();
    }
  }
  return std::nullopt;
}

} // namespace

/// Kernels have small constant trip counts that LLVM's O3 would fully
/// unroll, nest after nest, which made compile time grow with the tensor size
/// (5 ms at 7 elements, 25 ms at 105). Only tiny innermost loops stay
/// eligible for unrolling (a 10-wide matmul row becomes 8 + 2 SLP-vectorized
/// lanes with the accumulators in registers): every other loop gets
/// `llvm.loop.unroll.disable`, and the tiny ones `llvm.loop.unroll.runtime
/// .disable`. Loop metadata, not LLVM's process-wide unroll options, so a
/// program embedding ember next to other LLVM users keeps their settings.
/// (It replaced -unroll-threshold=64 -unroll-runtime=false
/// -unroll-allow-partial=false; callgrind then measured about -27%
/// instructions per elementwise compile.)
void ember::compiler::limitLoopUnrolling(llvm::Module &module) {
  // Unrolled size allowed, in IR instructions before optimization (which
  // removes about half of a loop body's: address arithmetic, casts).
  constexpr int64_t kMaxUnrolledInstructions = 128;
  llvm::LLVMContext &context = module.getContext();
  auto loopMetadata = [&](llvm::StringRef property) {
    llvm::MDNode *property_ = llvm::MDNode::get(context, llvm::MDString::get(context, property));
    return property_;
  };
  forEachLoop(module, [&](llvm::Loop &loop) {
    int64_t instructions = 0;
    for (llvm::BasicBlock *block : loop.blocks())
      instructions += static_cast<int64_t>(block->size());
    std::optional<int64_t> trips = constantTripCount(loop);
    bool tiny = loop.isInnermost() && trips && *trips * instructions <= kMaxUnrolledInstructions;
    addLoopProperty(
        loop, loopMetadata(tiny ? "llvm.loop.unroll.runtime.disable" : "llvm.loop.unroll.disable"));
  });
}
