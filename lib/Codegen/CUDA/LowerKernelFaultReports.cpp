//===- LowerKernelFaultReports.cpp - ember.fault_if in kernels ------------===//
//
// Kernels cannot call the host runtime: a fault is a compare-and-swap of the
// runtime's fault word (device memory, one per process), whose address and
// the loader's tag the runtime writes into the module's globals at load.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CUDA/Passes.h"

#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::ember {
#define GEN_PASS_DEF_LOWERKERNELFAULTREPORTSPASS
#include "ember/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;
using mlir::ember::FaultIfOp;

namespace {
// The names emberrt_cuda's loader looks the globals up by.
constexpr StringLiteral kFaultWordGlobal = "__ember_fault_word";
constexpr StringLiteral kFaultTagGlobal = "__ember_fault_tag";
constexpr unsigned kGlobalAddressSpace = 1;

/// Declares `name`, an externally visible global of `type` (0 at first) in
/// global memory, unless the module has it.
void declareGlobal(OpBuilder &b, gpu::GPUModuleOp module, StringRef name, IntegerType type) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/false, LLVM::Linkage::External,
                         name, b.getIntegerAttr(type, 0), /*alignment=*/type.getWidth() / 8,
                         kGlobalAddressSpace);
}

/// The value of global `name` of `type`.
Value loadGlobal(OpBuilder &b, Location loc, StringRef name, Type type) {
  auto pointer = LLVM::LLVMPointerType::get(b.getContext(), kGlobalAddressSpace);
  Value address = LLVM::AddressOfOp::create(b, loc, pointer, name);
  return LLVM::LoadOp::create(b, loc, type, address);
}

/// if (condition && word address != 0) cmpxchg(word, 0, tag << 32 | kind << 24 | site).
void reportIf(OpBuilder &b, Location loc, Value condition, uint32_t kind, int32_t site) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  scf::IfOp::create(b, loc, condition, [&](OpBuilder &tb, Location tloc) {
    Value wordAddress = loadGlobal(tb, tloc, kFaultWordGlobal, i64);
    Value zero = arith::ConstantOp::create(tb, tloc, tb.getI64IntegerAttr(0));
    Value set = arith::CmpIOp::create(tb, tloc, arith::CmpIPredicate::ne, wordAddress, zero);
    scf::IfOp::create(tb, tloc, set, [&](OpBuilder &sb, Location sloc) {
      Value tag = arith::ExtUIOp::create(sb, sloc, i64, loadGlobal(sb, sloc, kFaultTagGlobal, i32));
      Value tagBits = arith::ShLIOp::create(
          sb, sloc, tag, arith::ConstantOp::create(sb, sloc, sb.getI64IntegerAttr(32)));
      uint64_t low = uint64_t(kind & 0xff) << 24 | (uint32_t(site) & 0xffffff);
      Value code = arith::OrIOp::create(
          sb, sloc, tagBits,
          arith::ConstantOp::create(sb, sloc, sb.getI64IntegerAttr(static_cast<int64_t>(low))));
      Value word = LLVM::IntToPtrOp::create(
          sb, sloc, LLVM::LLVMPointerType::get(sb.getContext(), kGlobalAddressSpace), wordAddress);
      // The first fault wins: later ones find the word set and leave it.
      LLVM::AtomicCmpXchgOp::create(sb, sloc, word, zero, code, LLVM::AtomicOrdering::monotonic,
                                    LLVM::AtomicOrdering::monotonic);
      scf::YieldOp::create(sb, sloc);
    });
    scf::YieldOp::create(tb, tloc);
  });
}

struct LowerKernelFaultReportsPass
    : ember::impl::LowerKernelFaultReportsPassBase<LowerKernelFaultReportsPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    SmallVector<FaultIfOp> checks;
    module.walk([&](FaultIfOp check) { checks.push_back(check); });
    if (checks.empty())
      return;
    OpBuilder b(&getContext());
    declareGlobal(b, module, kFaultWordGlobal, b.getI64Type());
    declareGlobal(b, module, kFaultTagGlobal, b.getI32Type());
    for (FaultIfOp check : checks) {
      b.setInsertionPoint(check);
      reportIf(b, check.getLoc(), check.getCondition(), check.getKind(),
               static_cast<int32_t>(check.getSite()));
      check.replaceAllUsesWith(check.getValue());
      check.erase();
    }
  }
};
} // namespace
