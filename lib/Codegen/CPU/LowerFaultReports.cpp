//===- LowerFaultReports.cpp - ember.fault_if to runtime calls ------------===//
//
// A fault check inside loops becomes an `or` into a flag on the stack,
// reported once after the outermost loop (a call in a loop would keep LLVM
// from vectorizing it); elsewhere it is a call under an scf.if.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "ember/Conversion/Passes.h"
#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

#include <tuple>

namespace mlir::ember {
#define GEN_PASS_DEF_LOWERFAULTREPORTSPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;
using mlir::ember::FaultIfOp;

namespace {

/// The outermost scf.for around `op` reached through scf.for and scf.if
/// parents only (not out of a while loop or a parallel loop), or null.
Operation *outermostLoop(Operation *op) {
  Operation *outermost = nullptr;
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp()) {
    if (isa<scf::ForOp>(parent))
      outermost = parent;
    else if (!isa<scf::IfOp>(parent))
      break;
  }
  return outermost;
}

/// The OpenMP team whose work-sharing loop runs `loop` (an scf.for in the
/// body of a parallel loop that convert-scf-to-openmp made: omp.parallel {
/// omp.wsloop { omp.loop_nest { memref.alloca_scope { loop } } } }), and
/// that work-sharing loop; nulls for any other loop.
std::pair<omp::ParallelOp, omp::WsloopOp> teamOf(Operation *loop) {
  Operation *parent = loop->getParentOp();
  while (isa_and_nonnull<memref::AllocaScopeOp>(parent))
    parent = parent->getParentOp();
  auto nest = dyn_cast_or_null<omp::LoopNestOp>(parent);
  auto wsloop = nest ? dyn_cast<omp::WsloopOp>(nest->getParentOp()) : nullptr;
  auto team = wsloop ? dyn_cast<omp::ParallelOp>(wsloop->getParentOp()) : nullptr;
  if (!team)
    return {};
  return {team, wsloop};
}

/// if (condition) emberrt_report_fault(kind, site).
void reportIf(OpBuilder &b, Location loc, Value condition, uint32_t kind, uint32_t site) {
  Value kindValue = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(kind));
  Value siteValue = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(site));
  scf::IfOp::create(b, loc, condition, [&](OpBuilder &tb, Location tloc) {
    func::CallOp::create(tb, tloc, mlir::ember::kReportFaultFunctionName, TypeRange{},
                         ValueRange{kindValue, siteValue});
    scf::YieldOp::create(tb, tloc);
  });
}

struct LowerFaultReportsPass
    : ember::impl::LowerFaultReportsPassBase<LowerFaultReportsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<FaultIfOp> checks;
    // Not in nested symbol tables: a gpu.module's kernels report to the
    // runtime's fault word (ember-cuda-lower-fault-reports).
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != module && op->hasTrait<OpTrait::SymbolTable>())
        return WalkResult::skip();
      if (auto check = dyn_cast<FaultIfOp>(op))
        checks.push_back(check);
      return WalkResult::advance();
    });
    if (checks.empty())
      return;
    OpBuilder b(&getContext());
    if (!module.lookupSymbol(mlir::ember::kReportFaultFunctionName)) {
      b.setInsertionPointToStart(module.getBody());
      Type i32 = b.getI32Type();
      func::FuncOp::create(b, module.getLoc(), mlir::ember::kReportFaultFunctionName,
                           b.getFunctionType({i32, i32}, {}))
          .setPrivate();
    }
    // Checks inside loops, by (outermost loop, kind, site): a flag and a
    // report each. The others report in place.
    llvm::MapVector<std::tuple<Operation *, uint32_t, uint32_t>, SmallVector<FaultIfOp>> nests;
    for (FaultIfOp check : checks) {
      Operation *loop = outermostLoop(check);
      if (loop && loop->getParentOfType<func::FuncOp>()) {
        nests[{loop, check.getKind(), check.getSite()}].push_back(check);
        continue;
      }
      b.setInsertionPoint(check);
      reportIf(b, check.getLoc(), check.getCondition(), check.getKind(), check.getSite());
      check.replaceAllUsesWith(check.getValue());
      check.erase();
    }
    auto flagType = MemRefType::get({}, b.getI1Type());
    for (auto &[key, group] : nests) {
      auto [loop, kind, site] = key;
      Location loc = loop->getLoc();
      auto function = loop->getParentOfType<func::FuncOp>();
      // In a parallel loop's body (ember-cpu-parallelize's blocks of rows,
      // made OpenMP): the flag is each thread's own, on its stack (a
      // register once LLVM promotes it), and or-ed once into a shared one
      // after the work-sharing loop; the report follows the team.
      auto [team, wsloop] = teamOf(loop);
      b.setInsertionPointToStart(team ? &team.getRegion().front() : &function.getBody().front());
      Value flag = memref::AllocaOp::create(b, loc, flagType);
      if (!team) // cleared before each run of the loop nest
        b.setInsertionPoint(loop);
      memref::StoreOp::create(b, loc, arith::ConstantOp::create(b, loc, b.getBoolAttr(false)),
                              flag);
      for (FaultIfOp check : group) {
        b.setInsertionPoint(check);
        Value seen = memref::LoadOp::create(b, check.getLoc(), flag);
        Value any = arith::OrIOp::create(b, check.getLoc(), seen, check.getCondition());
        memref::StoreOp::create(b, check.getLoc(), any, flag);
        check.replaceAllUsesWith(check.getValue());
        check.erase();
      }
      if (!team) {
        b.setInsertionPointAfter(loop);
        reportIf(b, loc, memref::LoadOp::create(b, loc, flag), kind, site);
        continue;
      }
      auto i32 = b.getI32Type();
      b.setInsertionPointToStart(&function.getBody().front());
      Value shared = memref::AllocaOp::create(b, loc, MemRefType::get({}, i32));
      b.setInsertionPoint(team);
      memref::StoreOp::create(b, loc, arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)),
                              shared);
      b.setInsertionPointAfter(wsloop);
      Value seen = memref::LoadOp::create(b, loc, flag);
      scf::IfOp::create(b, loc, seen, [&](OpBuilder &tb, Location tloc) {
        Value one = arith::ConstantOp::create(tb, tloc, tb.getI32IntegerAttr(1));
        memref::AtomicRMWOp::create(tb, tloc, arith::AtomicRMWKind::ori, one, shared,
                                    ValueRange{});
        scf::YieldOp::create(tb, tloc);
      });
      b.setInsertionPointAfter(team);
      Value any = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, memref::LoadOp::create(b, loc, shared),
          arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
      reportIf(b, loc, any, kind, site);
    }
  }
};

} // namespace
