//===- MapToOneBlockKernel.cpp - a small function as one kernel -----------===//
//
// A traced loop around small loop nests launches a kernel per nest and per
// iteration, and a chain of small nests (a loop in C++, traced unrolled) a
// kernel per nest: microseconds of launch for nanoseconds of work each. When all
// of a function's buffers are small and static, its whole body runs as one
// kernel of one block instead: the nests are spread over the block's
// threads, control flow stays control flow (the same for every thread), and
// barriers order the steps. Temporaries live in shared memory.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CUDA/Passes.h"

#include "LoopNests.h"
#include "SmallFunctions.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::ember {
#define GEN_PASS_DEF_MAPTOONEBLOCKKERNELPASS
#include "ember/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

/// Static shared memory a block may have without opting in to more.
constexpr int64_t kSharedMemoryBytes = 48 * 1024;

/// What one op of the function becomes in the kernel.
enum class Step {
  Distributed, // a parallel nest or a copy: its iterations over the threads
  ControlFlow, // control flow around distributed steps: kept, its blocks mapped
  OneThread,   // writes memory outside nests: thread 0, then a barrier
  Everywhere,  // computes values (reading memory at most): every thread
};

/// Whether `op` or an op nested in it has a memory effect of kind `Effect`
/// (or unknown effects).
template <typename Effect> bool hasNestedEffect(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested))
      return effects.hasEffect<Effect>() ? WalkResult::interrupt() : WalkResult::advance();
    return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ? WalkResult::advance()
                                                                  : WalkResult::interrupt();
  });
  return result.wasInterrupted();
}

/// The buffers that `op` and the ops nested in it read (`writes` false) or
/// write; nullopt when some effect names no buffer.
std::optional<SmallVector<Value>> buffersAccessed(Operation *op, bool writes) {
  SmallVector<Value> buffers;
  bool known = true;
  op->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      known &= nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (MemoryEffects::EffectInstance &instance : instances) {
      bool matches = writes ? isa<MemoryEffects::Write>(instance.getEffect())
                            : isa<MemoryEffects::Read>(instance.getEffect());
      if (!matches)
        continue;
      if (Value value = instance.getValue(); value && isa<BaseMemRefType>(value.getType()))
        buffers.push_back(value);
      else
        known = false;
    }
  });
  if (!known)
    return std::nullopt;
  return buffers;
}

Step classify(Operation *op) {
  if (isa<scf::ParallelOp, memref::CopyOp>(op))
    return Step::Distributed;
  if (op->getNumRegions()) {
    WalkResult distributed = op->walk([](Operation *nested) {
      return isa<scf::ParallelOp, memref::CopyOp>(nested) ? WalkResult::interrupt()
                                                          : WalkResult::advance();
    });
    if (distributed.wasInterrupted())
      return Step::ControlFlow;
  }
  return hasNestedEffect<MemoryEffects::Write>(op) ? Step::OneThread : Step::Everywhere;
}

/// The ops a kernel of one block can run; anything else (calls, buffers
/// carried by control flow, allocations inside nests, parallel loops with
/// results) leaves the function to ember-map-to-gpu-kernels.
bool isSupported(Operation *op, bool inNest) {
  auto isBuffer = [](Type type) { return isa<BaseMemRefType>(type); };
  if (isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::YieldOp, scf::ConditionOp>(op)) {
    if (llvm::any_of(op->getResultTypes(), isBuffer))
      return false;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (llvm::any_of(block.getArgumentTypes(), isBuffer))
          return false;
    return !isa<scf::YieldOp, scf::ConditionOp>(op) ||
           llvm::none_of(op->getOperandTypes(), isBuffer);
  }
  if (auto loop = dyn_cast<scf::ParallelOp>(op))
    return loop.getNumResults() == 0;
  if (isa<scf::ReduceOp>(op))
    return op->getNumOperands() == 0;
  if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp, memref::GetGlobalOp,
          memref::CopyOp>(op))
    return !inNest;
  if (isa<memref::LoadOp, memref::StoreOp, memref::SubViewOp, memref::CastOp,
          memref::CollapseShapeOp, memref::ExpandShapeOp, memref::ReinterpretCastOp,
          memref::ExtractStridedMetadataOp, memref::DimOp>(op))
    return true;
  if (isa<arith::ArithDialect, math::MathDialect, affine::AffineDialect>(op->getDialect()))
    return isMemoryEffectFree(op) && op->getNumRegions() == 0;
  return isa<func::ReturnOp>(op);
}

/// The buffer a memref is a view of (itself if none).
Value rootOf(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  if (auto metadata = memref.getDefiningOp<memref::ExtractStridedMetadataOp>())
    return rootOf(metadata.getSource());
  return memref;
}

bool isWorkgroup(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  return type && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

/// Whether two buffers may share memory: the same buffer, or two of global
/// memory neither of which the function allocated (arguments and constants
/// may alias each other).
bool mayAlias(Value a, Value b) {
  a = rootOf(a);
  b = rootOf(b);
  if (a == b)
    return true;
  if (isWorkgroup(a) || isWorkgroup(b))
    return false;
  return !a.getDefiningOp<memref::AllocOp>() && !b.getDefiningOp<memref::AllocOp>();
}

/// One load or store of a distributed nest.
struct Access {
  Value memref;
  bool write;
  bool atOwnIndex; // indexed by the nest's induction variables, in order
};

/// The iterations and accesses of a distributed nest, to decide whether the
/// barrier after it may be left out before the next.
struct NestFootprint {
  SmallVector<int64_t> extents; // empty: not known
  SmallVector<Access> accesses;
};

NestFootprint footprintOf(scf::ParallelOp loop) {
  NestFootprint footprint;
  std::optional<SmallVector<int64_t>> extents = ember::normalizedExtents(loop);
  if (!extents)
    return footprint;
  SmallVector<Value> ivs(loop.getInductionVars());
  bool known = true;
  loop.walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      footprint.accesses.push_back({load.getMemRef(), false, llvm::equal(load.getIndices(), ivs)});
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      footprint.accesses.push_back({store.getMemRef(), true, llvm::equal(store.getIndices(), ivs)});
    else if (!isMemoryEffectFree(op) && !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      known = false;
  });
  if (known)
    footprint.extents = std::move(*extents);
  return footprint;
}

/// Whether every thread touches only its own elements of what either nest
/// writes and the other touches: both run over the same iterations, and
/// such accesses are all at the nest's own indices (of the same buffer), so
/// no barrier is needed between them.
bool onlyOwnElements(const NestFootprint &first, const NestFootprint &second) {
  if (first.extents.empty() || first.extents != second.extents)
    return false;
  for (const Access &a : first.accesses)
    for (const Access &b : second.accesses)
      if ((a.write || b.write) && mayAlias(a.memref, b.memref) &&
          (a.memref != b.memref || !a.atOwnIndex || !b.atOwnIndex))
        return false;
  return true;
}

/// In each sequential loop of `root` that loads one element of a workgroup
/// buffer, combines and stores it back (a matmul's accumulation), the element
/// stays in a register: loaded before the loop, carried, stored after. Only
/// when nothing else in the loop touches that buffer, which no other buffer
/// can alias.
void keepAccumulatorsInRegisters(Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) { loops.push_back(loop); });
  IRRewriter rewriter(root->getContext());
  for (scf::ForOp loop : loops) {
    memref::LoadOp load;
    memref::StoreOp store;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (auto candidate = dyn_cast<memref::StoreOp>(op);
          candidate && isWorkgroup(candidate.getMemRef()) && !store)
        store = candidate;
    }
    if (!store || !isa<BlockArgument>(store.getMemRef()))
      continue;
    Value buffer = store.getMemRef();
    bool alone = true;
    loop.walk([&](Operation *op) {
      for (Value operand : op->getOperands()) {
        if (!isa<BaseMemRefType>(operand.getType()) || rootOf(operand) != buffer)
          continue;
        auto candidate = dyn_cast<memref::LoadOp>(op);
        if (op == store)
          continue;
        if (candidate && !load && candidate->getBlock() == loop.getBody() && operand == buffer)
          load = candidate;
        else
          alone = false;
      }
    });
    if (!alone || !load || !llvm::equal(load.getIndices(), store.getIndices()) ||
        !load->isBeforeInBlock(store) || llvm::any_of(store.getIndices(), [&](Value index) {
          return !loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    rewriter.setInsertionPoint(loop);
    Value initial = memref::LoadOp::create(rewriter, load.getLoc(), buffer, load.getIndices());
    Value stored = store.getValueToStore();
    FailureOr<LoopLikeOpInterface> carried = loop.replaceWithAdditionalYields(
        rewriter, ValueRange{initial}, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) { return SmallVector<Value>{stored}; });
    if (failed(carried))
      continue;
    auto newLoop = cast<scf::ForOp>(carried->getOperation());
    rewriter.replaceAllUsesWith(load.getResult(), newLoop.getRegionIterArgs().back());
    rewriter.setInsertionPointAfter(newLoop);
    memref::StoreOp::create(rewriter, store.getLoc(), newLoop.getResults().back(), buffer,
                            store.getIndices());
    rewriter.eraseOp(store);
    rewriter.eraseOp(load);
  }
}

/// `loop` as nested sequential loops.
void sequentialize(scf::ParallelOp loop) {
  OpBuilder b(loop);
  scf::buildLoopNest(b, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
                     [&](OpBuilder &nb, Location, ValueRange ivs) {
                       IRMapping mapping;
                       mapping.map(loop.getInductionVars(), ivs);
                       for (Operation &op : loop.getBody()->without_terminator())
                         nb.clone(op, mapping);
                     });
  loop.erase();
}

/// `memref.copy` as a parallel loop of loads and stores.
scf::ParallelOp copyAsLoop(memref::CopyOp copy) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(copy.getTarget().getType());
  SmallVector<Value> upper;
  for (int64_t size : type.getShape())
    upper.push_back(arith::ConstantIndexOp::create(b, loc, size));
  scf::ParallelOp loop =
      ember::parallelOver(b, loc, upper, [&](OpBuilder &lb, Location lloc, ValueRange indices) {
        Value element = memref::LoadOp::create(lb, lloc, copy.getSource(), indices);
        memref::StoreOp::create(lb, lloc, element, copy.getTarget(), indices);
      });
  copy.erase();
  return loop;
}


/// Builds the kernel's body from the function's ops.
class OneBlockBuilder {
public:
  OneBlockBuilder(gpu::LaunchOp launch, int64_t threads)
      : launch(launch), threads(threads), thread(launch.getThreadIds().x) {}

  /// Maps the ops of `block` (the launch's body or a block of control flow
  /// inside it) to the kernel, with barriers between steps.
  void mapBlock(Block &block) {
    // The buffers every thread read since the last barrier: a barrier must
    // come before anything that may write them.
    SmallVector<Value> pendingReads;
    bool unknownReads = false;
    auto waitForReads = [&](Operation *step) {
      if (pendingReads.empty() && !unknownReads)
        return;
      std::optional<SmallVector<Value>> written = buffersAccessed(step, /*writes=*/true);
      bool conflict = unknownReads || !written;
      for (Value buffer : written ? *written : SmallVector<Value>{})
        conflict |= llvm::any_of(pendingReads, [&](Value read) { return mayAlias(read, buffer); });
      if (conflict)
        barrierBefore(step);
      pendingReads.clear();
      unknownReads = false;
    };
    gpu::BarrierOp lastBarrier; // right after the last distributed nest...
    // ... and the nests since the last barrier that was kept: a barrier is
    // left out only if the next nest touches just its own elements of what
    // each of them wrote (pairwise with the previous one alone, a third nest
    // read a first one's writes with no barrier in between: a race on the
    // H100, power(x, 100) traced unrolled).
    SmallVector<NestFootprint> unfenced;
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    for (Operation *op : ops) {
      switch (classify(op)) {
      case Step::Distributed: {
        auto loop = dyn_cast<scf::ParallelOp>(op);
        if (!loop)
          loop = copyAsLoop(cast<memref::CopyOp>(op));
        NestFootprint footprint = footprintOf(loop);
        if (lastBarrier && !unfenced.empty() &&
            llvm::all_of(unfenced, [&](const NestFootprint &earlier) {
              return onlyOwnElements(earlier, footprint);
            })) {
          lastBarrier.erase();
        } else {
          unfenced.clear();
        }
        waitForReads(loop);
        Operation *distributed = distribute(loop);
        lastBarrier = barrierAfter(distributed);
        unfenced.push_back(std::move(footprint));
        break;
      }
      case Step::ControlFlow:
        // Inside, anything may be written first.
        if (!pendingReads.empty() || unknownReads)
          barrierBefore(op);
        pendingReads.clear();
        unknownReads = false;
        for (Region &region : op->getRegions())
          for (Block &nested : region)
            mapBlock(nested);
        lastBarrier = {};
        unfenced.clear();
        break;
      case Step::OneThread: {
        waitForReads(op);
        OpBuilder b(op);
        Value first = arith::CmpIOp::create(b, op->getLoc(), arith::CmpIPredicate::eq, thread,
                                            arith::ConstantIndexOp::create(b, op->getLoc(), 0));
        auto only = scf::IfOp::create(b, op->getLoc(), first, /*withElseRegion=*/false);
        op->moveBefore(only.thenBlock()->getTerminator());
        barrierAfter(only);
        lastBarrier = {};
        unfenced.clear();
        break;
      }
      case Step::Everywhere:
        if (std::optional<SmallVector<Value>> read = buffersAccessed(op, /*writes=*/false)) {
          if (read->empty())
            break;
          llvm::append_range(pendingReads, *read);
        } else {
          unknownReads = true;
        }
        lastBarrier = {};
        unfenced.clear();
        break;
      }
    }
    // What every thread read is read before any thread goes on to write it
    // (the next iteration, the loop's body after its condition, the code
    // after a branch).
    if ((!pendingReads.empty() || unknownReads) && block.getParentOp() != launch)
      barrierBefore(block.getTerminator());
  }

private:
  void barrierBefore(Operation *op) {
    if (isa_and_nonnull<gpu::BarrierOp>(op->getPrevNode()))
      return;
    OpBuilder b(op);
    gpu::BarrierOp::create(b, op->getLoc());
  }
  gpu::BarrierOp barrierAfter(Operation *op) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    return gpu::BarrierOp::create(b, op->getLoc());
  }

  /// Runs `loop`'s iterations over the threads: thread t takes the
  /// iterations whose row-major linear index is t modulo the threads, so
  /// that neighbouring threads touch neighbouring elements. Nested parallel
  /// loops run sequentially in each thread.
  Operation *distribute(scf::ParallelOp loop) {
    SmallVector<scf::ParallelOp> nested;
    loop.walk([&](scf::ParallelOp inner) {
      if (inner != loop)
        nested.push_back(inner);
    });
    for (scf::ParallelOp inner : nested)
      sequentialize(inner);
    keepAccumulatorsInRegisters(loop);

    OpBuilder b(loop);
    Location loc = loop.getLoc();
    auto index = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
    SmallVector<Value> extents;
    for (unsigned d = 0; d < loop.getNumLoops(); ++d) {
      Value lower = loop.getLowerBound()[d], upper = loop.getUpperBound()[d],
            step = loop.getStep()[d];
      if (std::optional<int64_t> extent = ember::normalizedExtent(lower, upper, step)) {
        extents.push_back(index(*extent));
        continue;
      }
      // ceil((upper - lower) / step), at least 0.
      Value span = arith::SubIOp::create(b, loc, upper, lower);
      Value rounded =
          arith::AddIOp::create(b, loc, span, arith::SubIOp::create(b, loc, step, index(1)));
      Value count = arith::DivSIOp::create(b, loc, rounded, step);
      extents.push_back(arith::MaxSIOp::create(b, loc, count, index(0)));
    }
    auto body = [&](OpBuilder &ib, Location iloc, Value linear) {
      IRMapping mapping;
      for (int64_t d = loop.getNumLoops() - 1; d >= 0; --d) {
        Value position = linear;
        if (d > 0) {
          position = arith::RemUIOp::create(ib, iloc, linear, extents[d]);
          linear = arith::DivUIOp::create(ib, iloc, linear, extents[d]);
        }
        Value iv = position;
        if (!ember::normalizedExtent(loop.getLowerBound()[d], loop.getUpperBound()[d],
                                     loop.getStep()[d]))
          iv = arith::AddIOp::create(ib, iloc, loop.getLowerBound()[d],
                                     arith::MulIOp::create(ib, iloc, position, loop.getStep()[d]));
        mapping.map(loop.getInductionVars()[d], iv);
      }
      for (Operation &op : loop.getBody()->without_terminator())
        ib.clone(op, mapping);
    };
    Operation *distributed;
    std::optional<int64_t> trips = ember::constantTripCount(loop);
    if (trips && *trips <= threads) {
      // At most one iteration a thread.
      Value active =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, thread, index(*trips));
      auto guarded = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
      OpBuilder ib = OpBuilder::atBlockTerminator(guarded.thenBlock());
      body(ib, loc, thread);
      distributed = guarded;
    } else {
      Value total = extents.front();
      for (Value extent : ArrayRef<Value>(extents).drop_front())
        total = arith::MulIOp::create(b, loc, total, extent);
      distributed = scf::ForOp::create(b, loc, thread, total, index(threads), ValueRange{},
                                       [&](OpBuilder &ib, Location iloc, Value linear, ValueRange) {
                                         body(ib, iloc, linear);
                                         scf::YieldOp::create(ib, iloc);
                                       });
    }
    loop.erase();
    return distributed;
  }

  gpu::LaunchOp launch;
  int64_t threads;
  Value thread;
};

/// Gives `value` (a buffer now in `space`) and the views of it that space.
void moveToMemorySpace(Value value, Attribute space) {
  auto type = cast<MemRefType>(value.getType());
  value.setType(MemRefType::Builder(type).setMemorySpace(space));
  for (Operation *user : value.getUsers())
    for (Value result : user->getResults())
      if (auto resultType = dyn_cast<MemRefType>(result.getType());
          resultType && resultType.getMemorySpace() != space)
        moveToMemorySpace(result, space);
}

struct MapToOneBlockKernelPass : ember::impl::MapToOneBlockKernelPassBase<MapToOneBlockKernelPass> {
  using MapToOneBlockKernelPassBase::MapToOneBlockKernelPassBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isDeclaration() || function.getNumResults() != 0 ||
        !function.getBody().hasOneBlock() || !ember::hasSmallStaticBuffers(function, maxElements) ||
        !ember::worthOneKernel(function))
      return;
    WalkResult unsupported = function.walk([&](Operation *op) {
      bool inNest = op->getParentOfType<scf::ParallelOp>() != nullptr;
      if (op == function || isSupported(op, inNest))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return;
    // Thread 0 runs what writes memory outside the nests; values it would
    // compute there are not shared.
    WalkResult sharedValues = function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<scf::ParallelOp>(op))
        return WalkResult::skip();
      if (op->getParentOp() == function || classify(op->getParentOp()) == Step::ControlFlow)
        if (classify(op) == Step::OneThread && op->getNumResults())
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (sharedValues.wasInterrupted())
      return;
    buildKernel(function);
  }

  void buildKernel(func::FuncOp function) {
    Block &entry = function.getBody().front();
    MLIRContext *context = &getContext();
    // The block's threads: enough for the largest nest (whole warps).
    int64_t largest = 0;
    bool unknown = false;
    function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        if (std::optional<int64_t> trips = ember::constantTripCount(loop))
          largest = std::max(largest, *trips);
        else
          unknown = true;
        return WalkResult::skip();
      }
      if (auto copy = dyn_cast<memref::CopyOp>(op))
        largest = std::max(largest, cast<MemRefType>(copy.getTarget().getType()).getNumElements());
      return WalkResult::advance();
    });
    int64_t threads =
        unknown ? maxThreads : std::clamp<int64_t>((largest + 31) / 32 * 32, 32, maxThreads);

    // Allocations in shared memory while they fit, else on the device
    // (allocated before the launch, freed after it); constants are read
    // from device buffers made before it (see ember-map-to-gpu-kernels).
    SmallVector<Operation *> shared, device, constants, deallocations;
    int64_t sharedBytes = 0;
    function.walk([&](Operation *op) {
      if (isa<memref::GetGlobalOp>(op)) {
        constants.push_back(op);
      } else if (isa<memref::DeallocOp>(op)) {
        deallocations.push_back(op);
      } else if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
        auto type = cast<MemRefType>(op->getResult(0).getType());
        int64_t bytes = (type.getNumElements() * type.getElementTypeBitWidth() + 7) / 8;
        bytes = (bytes + 15) / 16 * 16;
        if (sharedBytes + bytes <= kSharedMemoryBytes) {
          sharedBytes += bytes;
          shared.push_back(op);
        } else {
          device.push_back(op);
        }
      }
    });
    for (Operation *deallocation : deallocations)
      deallocation->erase();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = function.getLoc();
    auto workgroup = gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
    SmallVector<Type> sharedTypes;
    for (Operation *alloc : shared)
      sharedTypes.push_back(MemRefType::Builder(cast<MemRefType>(alloc->getResult(0).getType()))
                                .setMemorySpace(workgroup));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value blockSize = arith::ConstantIndexOp::create(b, loc, threads);
    auto launch = gpu::LaunchOp::create(b, loc, one, one, one, blockSize, one, one,
                                        /*dynamicSharedMemorySize=*/Value(),
                                        /*asyncTokenType=*/Type(), ValueRange{}, sharedTypes);
    Block &body = launch.getBody().front();
    OpBuilder inside = OpBuilder::atBlockEnd(&body);
    gpu::TerminatorOp::create(inside, loc);
    for (Operation *op : constants)
      op->moveBefore(launch);
    // The function's ops (but the launch and what it needs) move inside.
    SmallVector<Operation *> moved;
    for (Operation &op : llvm::make_range(std::next(launch->getIterator()), entry.end()))
      if (!op.hasTrait<OpTrait::IsTerminator>())
        moved.push_back(&op);
    for (Operation *op : moved)
      op->moveBefore(body.getTerminator());
    OpBuilder after(entry.getTerminator());
    for (Operation *alloc : device) {
      // Device buffers live across the launch (an alloca would be the
      // host's stack).
      OpBuilder ab(launch);
      Value buffer = memref::AllocOp::create(ab, alloc->getLoc(),
                                             cast<MemRefType>(alloc->getResult(0).getType()));
      alloc->getResult(0).replaceAllUsesWith(buffer);
      alloc->erase();
      memref::DeallocOp::create(after, loc, buffer);
    }
    for (auto [alloc, attribution] : llvm::zip(shared, launch.getWorkgroupAttributions())) {
      moveToMemorySpace(alloc->getResult(0), workgroup);
      alloc->getResult(0).replaceAllUsesWith(attribution);
      alloc->erase();
    }
    OneBlockBuilder(launch, threads).mapBlock(body);
    // Nothing to wait for at the end.
    if (auto last = dyn_cast_or_null<gpu::BarrierOp>(body.getTerminator()->getPrevNode()))
      last.erase();
  }
};
} // namespace
