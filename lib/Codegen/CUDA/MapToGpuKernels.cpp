//===- MapToGpuKernels.cpp - host loop nests onto blocks and threads ------===//
//
// After bufferization every linalg op is a loop nest in a host function.
// Each becomes a kernel: parallel nests are linearized (coalesced accesses
// whatever the rank), tiled into blocks of threads and mapped; sequential
// nests run on one thread; copies become copy loops. The buffers are device
// memory, so nothing that touches them may stay on the host.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

namespace mlir::ember {
#define GEN_PASS_DEF_MAPTOGPUKERNELSPASS
#include "ember/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

gpu::ParallelLoopDimMappingAttr dimMapping(MLIRContext *context, gpu::Processor processor) {
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  return gpu::ParallelLoopDimMappingAttr::get(context, processor, identity, identity);
}

/// Marks every dimension of the parallel loops nested in `root` sequential
/// (they run inside one thread of a kernel).
void mapNestedSequential(Operation *root) {
  root->walk([&](scf::ParallelOp nested) {
    if (nested == root || nested->hasAttr(gpu::getMappingAttrName()))
      return;
    SmallVector<gpu::ParallelLoopDimMappingAttr> mapping(
        nested.getNumLoops(), dimMapping(nested.getContext(), gpu::Processor::Sequential));
    (void)gpu::setMappingAttr(nested, mapping);
  });
}

/// Whether `op`, or an op nested in it outside any parallel loop, reads or
/// writes memory.
bool touchesMemoryOutsideParallelLoops(Operation *op) {
  WalkResult result = op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (isa<scf::ParallelOp>(nested))
      return WalkResult::skip();
    if (isa<memref::LoadOp, memref::StoreOp>(nested))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// `memref.copy %from, %to` as a parallel loop of loads and stores (a loop of
/// one iteration for rank 0).
void copyAsLoop(memref::CopyOp copy) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(copy.getTarget().getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lower, upper, steps;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    lower.push_back(zero);
    upper.push_back(memref::DimOp::create(b, loc, copy.getTarget(), d));
    steps.push_back(one);
  }
  if (type.getRank() == 0) {
    lower = {zero};
    upper = {one};
    steps = {one};
  }
  scf::ParallelOp::create(b, loc, lower, upper, steps,
                          [&](OpBuilder &lb, Location lloc, ValueRange ivs) {
                            ValueRange indices = type.getRank() ? ivs : ValueRange{};
                            Value element =
                                memref::LoadOp::create(lb, lloc, copy.getSource(), indices);
                            memref::StoreOp::create(lb, lloc, element, copy.getTarget(), indices);
                          });
  copy.erase();
}

struct MapToGpuKernelsPass : ember::impl::MapToGpuKernelsPassBase<MapToGpuKernelsPass> {
  using MapToGpuKernelsPassBase::MapToGpuKernelsPassBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isDeclaration() || function->getParentOfType<gpu::GPUModuleOp>())
      return;
    SmallVector<memref::CopyOp> copies;
    function.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies)
      copyAsLoop(copy);

    // Outermost parallel loops become kernels of many threads; sequential
    // loops that touch memory on their own, kernels of one thread.
    SmallVector<scf::ParallelOp> parallel;
    SmallVector<Operation *> sequential;
    function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        parallel.push_back(loop);
        return WalkResult::skip();
      }
      // (a store on its own: the initial value of a reduction to a scalar)
      if ((isa<scf::ForOp, scf::WhileOp>(op) && touchesMemoryOutsideParallelLoops(op)) ||
          isa<memref::StoreOp>(op)) {
        sequential.push_back(op);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    for (scf::ParallelOp loop : parallel)
      if (failed(mapParallel(loop)))
        return signalPassFailure();
    for (Operation *op : sequential) {
      if (op->getNumResults()) {
        op->emitError() << "'" << op->getName()
                        << "' with results touches device memory from the host: not supported "
                           "on the GPU yet";
        return signalPassFailure();
      }
      runOnOneThread(op);
    }

    // Anything else touching buffers would run on the host.
    WalkResult left = function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto loop = dyn_cast<scf::ParallelOp>(op); loop && loop->hasAttr(gpu::getMappingAttrName()))
        return WalkResult::skip();
      if (isa<memref::LoadOp, memref::StoreOp, memref::GetGlobalOp>(op)) {
        op->emitError() << "'" << op->getName()
                        << "' would run on the host, where buffers are device memory: "
                        << (isa<memref::GetGlobalOp>(op)
                                ? "constant tensors other than splats are not supported on the "
                                  "GPU yet"
                                : "this op is not supported on the GPU yet");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }

  /// Linearizes `loop`, tiles it into blocks and maps it onto the grid.
  LogicalResult mapParallel(scf::ParallelOp loop) {
    IRRewriter rewriter(loop.getContext());
    if (loop.getNumLoops() > 1) {
      Operation *next = loop->getNextNode();
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
      loop = dyn_cast_or_null<scf::ParallelOp>(next->getPrevNode());
      if (!loop)
        return emitError(next->getLoc(), "internal error: collapsing a parallel loop failed");
    }
    // Small loops get one block just large enough (whole warps).
    int64_t threads = blockSize;
    if (std::optional<int64_t> trips = constantTripCount(loop))
      threads = std::min<int64_t>(threads, std::max<int64_t>(32, (*trips + 31) / 32 * 32));
    auto [blocks, elements] = scf::tileParallelLoop(loop, {threads}, /*noMinMaxBounds=*/true);
    MLIRContext *context = loop.getContext();
    if (failed(gpu::setMappingAttr(blocks, {dimMapping(context, gpu::Processor::BlockX)})) ||
        failed(gpu::setMappingAttr(elements, {dimMapping(context, gpu::Processor::ThreadX)})))
      return failure();
    mapNestedSequential(elements);
    return success();
  }

  static std::optional<int64_t> constantTripCount(scf::ParallelOp loop) {
    auto lower = getConstantIntValue(loop.getLowerBound()[0]);
    auto upper = getConstantIntValue(loop.getUpperBound()[0]);
    auto step = getConstantIntValue(loop.getStep()[0]);
    if (!lower || !upper || !step || *step <= 0)
      return std::nullopt;
    return (*upper - *lower + *step - 1) / *step;
  }

  /// Wraps `op` in a kernel of one block of one thread.
  static void runOnOneThread(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto kernel = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one},
                                          ValueRange{one});
    op->moveBefore(kernel.getBody()->getTerminator());
    (void)gpu::setMappingAttr(kernel, {dimMapping(op->getContext(), gpu::Processor::BlockX)});
    mapNestedSequential(kernel);
  }
};
} // namespace
