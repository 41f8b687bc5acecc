//===- OpenMPNumThreads.cpp - team sizes from the runtime ------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::ember {
#define GEN_PASS_DEF_OPENMPNUMTHREADSPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {
struct OpenMPNumThreadsPass : ember::impl::OpenMPNumThreadsPassBase<OpenMPNumThreadsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<omp::ParallelOp> regions;
    module.walk([&](omp::ParallelOp region) {
      if (!region.getNumThreads())
        regions.push_back(region);
    });
    if (regions.empty())
      return;
    StringRef name = "emberrt_num_threads";
    OpBuilder b(&getContext());
    Type i32 = b.getI32Type();
    if (!SymbolTable::lookupSymbolIn(module, name)) {
      b.setInsertionPointToStart(module.getBody());
      func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType({}, {i32}))
          .setPrivate();
    }
    for (omp::ParallelOp region : regions) {
      b.setInsertionPoint(region);
      Value count = func::CallOp::create(b, region.getLoc(), name, TypeRange{i32}).getResult(0);
      region.getNumThreadsMutable().assign(count);
    }
  }
};
} // namespace
