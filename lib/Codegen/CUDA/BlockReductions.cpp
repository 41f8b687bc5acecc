//===- BlockReductions.cpp - reductions as GPU block trees ----------------===//
//
// A linalg reduction lowered to loops reads its output, combines, and
// writes it back once per reduced element: sequential. On a GPU each output
// element gets a block instead; its threads each fold a strided share of the
// reduced elements into a private partial, and gpu.all_reduce combines the
// partials (warp shuffles, then shared memory across warps).
//
//===----------------------------------------------------------------------===//

#include "BlockReductions.h"
#include "LoopNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace {

/// What a reduction's combining op is in each of the forms a kernel uses:
/// gpu.all_reduce across a block, the atomic read-modify-write (and its
/// identity) for outputs shared by blocks, vector.reduction across lanes.
struct Combiner {
  gpu::AllReduceOperation operation;
  arith::AtomicRMWKind kind;
  vector::CombiningKind lanes;
  /// Whether `kind` lowers to one LLVM atomicrmw (NVPTX expands what PTX
  /// lacks into a compare-and-swap loop): not for products.
  bool atomic = true;
};

std::optional<Combiner> combinerOf(Operation *op) {
  using gpu::AllReduceOperation;
  using arith::AtomicRMWKind;
  using vector::CombiningKind;
  return llvm::TypeSwitch<Operation *, std::optional<Combiner>>(op)
      .Case([](arith::AddFOp) {
        return Combiner{AllReduceOperation::ADD, AtomicRMWKind::addf, CombiningKind::ADD};
      })
      .Case([](arith::AddIOp) {
        return Combiner{AllReduceOperation::ADD, AtomicRMWKind::addi, CombiningKind::ADD};
      })
      .Case([](arith::MulFOp) {
        return Combiner{AllReduceOperation::MUL, AtomicRMWKind::mulf, CombiningKind::MUL, false};
      })
      .Case([](arith::MulIOp) {
        return Combiner{AllReduceOperation::MUL, AtomicRMWKind::muli, CombiningKind::MUL, false};
      })
      .Case([](arith::MaximumFOp) {
        return Combiner{AllReduceOperation::MAXIMUMF, AtomicRMWKind::maximumf,
                        CombiningKind::MAXIMUMF};
      })
      .Case([](arith::MinimumFOp) {
        return Combiner{AllReduceOperation::MINIMUMF, AtomicRMWKind::minimumf,
                        CombiningKind::MINIMUMF};
      })
      .Case([](arith::MaxNumFOp) {
        return Combiner{AllReduceOperation::MAXNUMF, AtomicRMWKind::maxnumf,
                        CombiningKind::MAXNUMF};
      })
      .Case([](arith::MinNumFOp) {
        return Combiner{AllReduceOperation::MINNUMF, AtomicRMWKind::minnumf,
                        CombiningKind::MINNUMF};
      })
      .Case([](arith::MaxSIOp) {
        return Combiner{AllReduceOperation::MAXSI, AtomicRMWKind::maxs, CombiningKind::MAXSI};
      })
      .Case([](arith::MinSIOp) {
        return Combiner{AllReduceOperation::MINSI, AtomicRMWKind::mins, CombiningKind::MINSI};
      })
      .Case([](arith::MaxUIOp) {
        return Combiner{AllReduceOperation::MAXUI, AtomicRMWKind::maxu, CombiningKind::MAXUI};
      })
      .Case([](arith::MinUIOp) {
        return Combiner{AllReduceOperation::MINUI, AtomicRMWKind::minu, CombiningKind::MINUI};
      })
      .Case([](arith::AndIOp) {
        return Combiner{AllReduceOperation::AND, AtomicRMWKind::andi, CombiningKind::AND};
      })
      .Case([](arith::OrIOp) {
        return Combiner{AllReduceOperation::OR, AtomicRMWKind::ori, CombiningKind::OR};
      })
      .Case([](arith::XOrIOp) {
        return Combiner{AllReduceOperation::XOR, AtomicRMWKind::xori, CombiningKind::XOR};
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<int64_t> constantIndex(Value value) { return getConstantIntValue(value); }

/// About 8 blocks for each of an H100's 132 multiprocessors.
constexpr int64_t kBlocksToFillTheGpu = 1024;
/// About the threads an H100 keeps resident (132 x 2048).
constexpr int64_t kThreadsToFillTheGpu = 270336;

/// Row-major indices of `linear` in a space of `extents`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> extents) {
  SmallVector<Value> indices(extents.size());
  for (int64_t d = static_cast<int64_t>(extents.size()) - 1; d >= 0; --d) {
    Value extent = arith::ConstantIndexOp::create(b, loc, extents[d]);
    indices[d] = d == 0 ? linear : arith::RemUIOp::create(b, loc, linear, extent).getResult();
    if (d > 0)
      linear = arith::DivUIOp::create(b, loc, linear, extent);
  }
  return indices;
}

/// A matched reduction: the parallel loop over outputs (or null), the nest of
/// reduction loops, and the output's load, combining op and store.
struct Reduction {
  scf::ParallelOp outputs;
  SmallVector<scf::ForOp> loops;
  memref::LoadOp accumulator;
  Operation *combine = nullptr;
  Value element; // the value combined into the output
  memref::StoreOp store;
  Combiner combiner;
};

std::optional<Reduction> match(Operation *nest) {
  Reduction reduction;
  Operation *first = nest;
  if (auto parallel = dyn_cast<scf::ParallelOp>(nest)) {
    reduction.outputs = parallel;
    if (!ember::normalizedExtents(parallel))
      return std::nullopt;
    Block *body = parallel.getBody();
    if (!llvm::hasSingleElement(body->without_terminator()))
      return std::nullopt;
    first = &body->front();
  }
  // A perfect nest of counted loops without loop-carried values.
  for (Operation *op = first;;) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop || loop.getNumResults() ||
        !ember::normalizedExtent(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
      return std::nullopt;
    reduction.loops.push_back(loop);
    Block *body = loop.getBody();
    if (llvm::hasSingleElement(body->without_terminator()) && isa<scf::ForOp>(body->front())) {
      op = &body->front();
      continue;
    }
    break;
  }
  Block *body = reduction.loops.back().getBody();
  for (Operation &op : body->without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (reduction.store)
        return std::nullopt;
      reduction.store = store;
    } else if (op.getNumRegions() || (!isPure(&op) && !isa<memref::LoadOp>(op))) {
      return std::nullopt;
    }
  }
  if (!reduction.store)
    return std::nullopt;
  // store (combine (load out[idx]), element), out[idx], idx invariant in
  // the reduction loops.
  reduction.combine = reduction.store.getValueToStore().getDefiningOp();
  if (!reduction.combine || reduction.combine->getBlock() != body ||
      reduction.combine->getNumOperands() != 2)
    return std::nullopt;
  std::optional<Combiner> combiner = combinerOf(reduction.combine);
  if (!combiner)
    return std::nullopt;
  reduction.combiner = *combiner;
  for (unsigned side : {0u, 1u}) {
    auto load = reduction.combine->getOperand(side).getDefiningOp<memref::LoadOp>();
    if (load && load.getMemRef() == reduction.store.getMemRef() &&
        load.getIndices() == reduction.store.getIndices() && load->hasOneUse()) {
      reduction.accumulator = load;
      reduction.element = reduction.combine->getOperand(1 - side);
    }
  }
  if (!reduction.accumulator)
    return std::nullopt;
  for (Value index : reduction.store.getIndices())
    for (scf::ForOp loop : reduction.loops)
      if (loop->isAncestor(index.getParentBlock()->getParentOp()))
        return std::nullopt;
  // Nothing else reads the output inside the loop (the element must not
  // depend on it).
  for (Operation &op : body->without_terminator())
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && load != reduction.accumulator && load.getMemRef() == reduction.store.getMemRef())
      return std::nullopt;
  return reduction;
}

/// How many elements a thread reads at once (16 bytes) when every load of
/// the body runs along the innermost reduced dimension (or does not depend
/// on it) and the body is plain arithmetic; 1 otherwise.
int64_t vectorLanes(Reduction &reduction, int64_t innermostExtent) {
  Value innermost = reduction.loops.back().getInductionVar();
  Type element = reduction.element.getType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 32)
    return 1;
  int64_t lanes = 128 / element.getIntOrFloatBitWidth();
  if (innermostExtent % lanes != 0)
    return 1;
  for (Operation &op : reduction.loops.back().getBody()->without_terminator()) {
    if (&op == reduction.accumulator.getOperation() || &op == reduction.combine ||
        &op == reduction.store.getOperation())
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      MemRefType type = load.getMemRefType();
      ValueRange indices = load.getIndices();
      bool along = !indices.empty() && indices.back() == innermost;
      if (llvm::is_contained(indices.drop_back(indices.empty() ? 0 : 1), innermost) ||
          (along && (!type.getLayout().isIdentity() || !type.hasStaticShape() ||
                     type.getShape().back() % lanes != 0 ||
                     type.getElementTypeBitWidth() != element.getIntOrFloatBitWidth())))
        return 1;
      continue;
    }
    if (!isa<arith::ArithDialect>(op.getDialect()) || !op.hasTrait<OpTrait::Elementwise>() ||
        llvm::is_contained(op.getOperands(), innermost))
      return 1;
    for (Type type : llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
      if (!type.isIntOrFloat())
        return 1;
  }
  return lanes;
}

/// Whether some load of the body reads consecutive elements along the
/// innermost reduced dimension (its last index is that loop's variable).
bool readsAlongInnermost(Reduction &reduction) {
  Value innermost = reduction.loops.back().getInductionVar();
  for (Operation &op : reduction.loops.back().getBody()->without_terminator())
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && load != reduction.accumulator && !load.getIndices().empty() &&
        load.getIndices().back() == innermost)
      return true;
  return false;
}

/// Combines `total` with the output element `mapping` names: loaded,
/// combined and stored back, or, when other threads or blocks fold into the
/// same element (`shared`), one atomic read-modify-write.
void foldIntoOutput(OpBuilder &b, Location loc, Reduction &reduction, IRMapping &mapping,
                    Value total, bool shared) {
  if (shared) {
    SmallVector<Value> indices;
    for (Value i : reduction.store.getIndices())
      indices.push_back(mapping.lookupOrDefault(i));
    memref::AtomicRMWOp::create(b, loc, reduction.combiner.kind, total,
                                reduction.store.getMemRef(), indices);
    return;
  }
  Operation *initial = b.clone(*reduction.accumulator, mapping);
  IRMapping combine;
  combine.map(reduction.accumulator.getResult(), initial->getResult(0));
  combine.map(reduction.element, total);
  Operation *folded = b.clone(*reduction.combine, combine);
  IRMapping store(mapping);
  store.map(reduction.store.getValueToStore(), folded->getResult(0));
  b.clone(*reduction.store, store);
}

/// The reduction as a thread per output and share: consecutive threads take
/// consecutive outputs, so that their loads are neighbours where the reduced
/// elements of one output lie far apart (a convolution's filter gradient,
/// which sums over the batch and the image: a block per output would have a
/// warp read 32 scattered addresses). The outer reduced iterations are cut
/// into `shares` along the grid's y dimension; a thread folds its share
/// (the innermost loop whole) sequentially and adds it to the output,
/// atomically when there are several shares (split-K).
void mapToThreadShares(Reduction &reduction, ArrayRef<int64_t> outputExtents, int64_t outputs,
                       ArrayRef<int64_t> reducedExtents, int64_t threads, int64_t shares) {
  Operation *nest = reduction.outputs ? reduction.outputs.getOperation()
                                      : reduction.loops.front().getOperation();
  OpBuilder b(nest);
  Location loc = nest->getLoc();
  auto index = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
  ArrayRef<int64_t> outerExtents = reducedExtents.drop_back();
  int64_t outer = 1;
  for (int64_t extent : outerExtents)
    outer *= extent;
  int64_t perShare = (outer + shares - 1) / shares;
  Value one = index(1);
  auto launch = gpu::LaunchOp::create(b, loc, index((outputs + threads - 1) / threads),
                                      index(shares), one, index(threads), one, one);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value output = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, index(threads)),
      launch.getThreadIds().x);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, output, index(outputs));
  scf::IfOp::create(b, loc, inRange, [&](OpBuilder &ib, Location iloc) {
    IRMapping mapping;
    if (reduction.outputs)
      mapping.map(reduction.outputs.getInductionVars(),
                  delinearize(ib, iloc, output, outputExtents));
    Value begin = arith::MulIOp::create(ib, iloc, launch.getBlockIds().y,
                                        arith::ConstantIndexOp::create(ib, iloc, perShare));
    Value end = arith::MinUIOp::create(
        ib, iloc,
        arith::AddIOp::create(ib, iloc, begin, arith::ConstantIndexOp::create(ib, iloc, perShare)),
        arith::ConstantIndexOp::create(ib, iloc, outer));
    Type type = reduction.element.getType();
    Value identity = arith::ConstantOp::create(
        ib, iloc, arith::getIdentityValueAttr(reduction.combiner.kind, type, ib, iloc));
    Value c0 = arith::ConstantIndexOp::create(ib, iloc, 0);
    Value c1 = arith::ConstantIndexOp::create(ib, iloc, 1);
    scf::ForOp innermost = reduction.loops.back();
    auto folded = scf::ForOp::create(
        ib, iloc, begin, end, c1, ValueRange{identity},
        [&](OpBuilder &ob, Location oloc, Value linear, ValueRange outerPartial) {
          SmallVector<Value> ivs = delinearize(ob, oloc, linear, outerExtents);
          for (size_t i = 0; i < ivs.size(); ++i)
            mapping.map(reduction.loops[i].getInductionVar(), ivs[i]);
          auto inner = scf::ForOp::create(
              ob, oloc, c0,
              arith::ConstantIndexOp::create(ob, oloc, reducedExtents.back()), c1,
              ValueRange{outerPartial[0]},
              [&](OpBuilder &lb, Location lloc, Value iv, ValueRange partial) {
                mapping.map(innermost.getInductionVar(), iv);
                for (Operation &op : innermost.getBody()->without_terminator())
                  if (&op != reduction.accumulator && &op != reduction.combine &&
                      &op != reduction.store)
                    lb.clone(op, mapping);
                IRMapping combine;
                combine.map(reduction.combine->getOperand(0), partial[0]);
                combine.map(reduction.combine->getOperand(1),
                            mapping.lookupOrDefault(reduction.element));
                scf::YieldOp::create(lb, lloc,
                                     lb.clone(*reduction.combine, combine)->getResult(0));
              });
          scf::YieldOp::create(ob, oloc, inner.getResult(0));
        });
    foldIntoOutput(ib, iloc, reduction, mapping, folded.getResult(0), /*shared=*/shares > 1);
    scf::YieldOp::create(ib, iloc);
  });
  gpu::TerminatorOp::create(b, loc);
  nest->erase();
}

} // namespace

bool mlir::ember::mapReductionToBlocks(Operation *nest, int64_t maxThreads, int64_t minReduced) {
  std::optional<Reduction> reduction = match(nest);
  if (!reduction)
    return false;
  SmallVector<int64_t> outputExtents, reducedExtents;
  int64_t outputs = 1, reduced = 1;
  if (reduction->outputs)
    for (Value upper : reduction->outputs.getUpperBound()) {
      outputExtents.push_back(*constantIndex(upper));
      outputs *= outputExtents.back();
    }
  for (scf::ForOp loop : reduction->loops) {
    reducedExtents.push_back(*constantIndex(loop.getUpperBound()));
    reduced *= reducedExtents.back();
  }
  if (outputs <= 0)
    return false;
  // A thread per output (and share) where a block per output does not pay:
  // enough outputs to fill the GPU (a convolution's, whose reductions are
  // short), fewer than a warp's worth of elements each, or at least a warp of
  // outputs whose loads do not run along the reduced dimension, which are
  // then split into enough shares to fill the GPU (split-K; the innermost
  // loop stays whole). Each thread folds its elements in a register (the
  // loops read and wrote the output in memory at every element).
  bool manyOutputs = outputs > kThreadsToFillTheGpu;
  bool acrossOutputs =
      outputs >= 32 && reduction->combiner.atomic && !readsAlongInnermost(*reduction);
  if (manyOutputs || reduced < minReduced || acrossOutputs) {
    if (!reduction->outputs)
      return false; // one short reduction: a kernel of one thread
    int64_t threads = std::min<int64_t>(maxThreads, (outputs + 31) / 32 * 32);
    int64_t rounded = (outputs + threads - 1) / threads * threads;
    int64_t shares = 1;
    if (acrossOutputs && !manyOutputs)
      shares = std::clamp<int64_t>(kThreadsToFillTheGpu / rounded, 1,
                                   reduced / reducedExtents.back());
    mapToThreadShares(*reduction, outputExtents, outputs, reducedExtents, threads, shares);
    return true;
  }
  int64_t threads = std::min<int64_t>(maxThreads, (reduced + 31) / 32 * 32);
  // Few outputs with many elements each (a sum of 16M): several blocks per
  // output, each folding a share (at least 16 elements a thread), combined
  // into the output atomically, so that the whole GPU works on it. Only for
  // combining ops that have an atomic read-modify-write.
  int64_t blocksPerOutput = 1;
  if (reduction->combiner.atomic) {
    int64_t wanted = std::max<int64_t>(1, kBlocksToFillTheGpu / outputs);
    blocksPerOutput = std::clamp<int64_t>(reduced / (threads * 16), 1, wanted);
  }

  OpBuilder b(nest);
  Location loc = nest->getLoc();
  auto index = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
  Value one = index(1);
  auto launch = gpu::LaunchOp::create(b, loc, index(outputs * blocksPerOutput), one, one,
                                      index(threads), one, one);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value block = launch.getBlockIds().x, output = block, share = index(0);
  if (blocksPerOutput > 1) {
    output = arith::DivUIOp::create(b, loc, block, index(blocksPerOutput));
    share = arith::RemUIOp::create(b, loc, block, index(blocksPerOutput));
  }
  IRMapping mapping;
  if (reduction->outputs)
    mapping.map(reduction->outputs.getInductionVars(),
                delinearize(b, loc, output, outputExtents));
  Type type = reduction->element.getType();
  Value identity = arith::ConstantOp::create(
      b, loc, arith::getIdentityValueAttr(reduction->combiner.kind, type, b, loc));
  // Each thread folds elements t, t + stride, ... into its partial, where t
  // is its index among the output's blocksPerOutput x threads threads.
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, share, index(threads)), launch.getThreadIds().x);
  // With 16-byte reads each step covers `lanes` elements of the innermost
  // reduced dimension: loads along it become vector loads, the arithmetic
  // works on vectors, and vector.reduction folds them before the partial.
  int64_t lanes = vectorLanes(*reduction, reducedExtents.back());
  SmallVector<int64_t> steps(reducedExtents);
  steps.back() /= lanes;
  Value innermost = reduction->loops.back().getInductionVar();
  auto strided = scf::ForOp::create(
      b, loc, start, index(reduced / lanes), index(threads * blocksPerOutput),
      ValueRange{identity},
      [&](OpBuilder &lb, Location lloc, Value linear, ValueRange partial) {
        SmallVector<Value> ivs = delinearize(lb, lloc, linear, steps);
        if (lanes > 1)
          ivs.back() = arith::MulIOp::create(lb, lloc, ivs.back(), index(lanes));
        for (auto [loop, iv] : llvm::zip(reduction->loops, ivs))
          mapping.map(loop.getInductionVar(), iv);
        for (Operation &op : reduction->loops.back().getBody()->without_terminator()) {
          if (&op == reduction->accumulator || &op == reduction->combine || &op == reduction->store)
            continue;
          auto load = dyn_cast<memref::LoadOp>(op);
          bool wide = lanes > 1 &&
                      (load ? !load.getIndices().empty() && load.getIndices().back() == innermost
                            : llvm::any_of(op.getOperands(), [&](Value v) {
                                return isa<VectorType>(mapping.lookupOrDefault(v).getType());
                              }));
          if (!wide) {
            lb.clone(op, mapping);
            continue;
          }
          if (load) {
            SmallVector<Value> indices;
            for (Value i : load.getIndices())
              indices.push_back(mapping.lookupOrDefault(i));
            auto read = vector::LoadOp::create(lb, lloc, VectorType::get({lanes}, load.getType()),
                                               load.getMemRef(), indices);
            read.setAlignmentAttr(lb.getI64IntegerAttr(16));
            mapping.map(load.getResult(), read.getResult());
            continue;
          }
          ember::cloneOnVectors(lb, op, mapping, lanes);
        }
        Value element = mapping.lookupOrDefault(reduction->element);
        if (isa<VectorType>(element.getType()))
          element = vector::ReductionOp::create(lb, lloc, reduction->combiner.lanes, element);
        IRMapping combine;
        combine.map(reduction->combine->getOperand(0), partial[0]);
        combine.map(reduction->combine->getOperand(1), element);
        scf::YieldOp::create(lb, lloc, lb.clone(*reduction->combine, combine)->getResult(0));
      });
  Value total = gpu::AllReduceOp::create(
      b, loc, strided.getResult(0),
      gpu::AllReduceOperationAttr::get(b.getContext(), reduction->combiner.operation),
      b.getUnitAttr());
  // Thread 0 folds the block's total into the output (its initial value),
  // atomically when several blocks share the output.
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, launch.getThreadIds().x,
                                      index(0));
  scf::IfOp::create(b, loc, first, [&](OpBuilder &ib, Location iloc) {
    foldIntoOutput(ib, iloc, *reduction, mapping, total, /*shared=*/blocksPerOutput > 1);
    scf::YieldOp::create(ib, iloc);
  });
  gpu::TerminatorOp::create(b, loc);
  nest->erase();
  return true;
}
