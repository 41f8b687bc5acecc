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

#include "BlockReductions.h"
#include "LoopNests.h"
#include "TiledMatmul.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

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

/// The memory each memref lives in. Buffers are device memory when they are
/// arguments of public functions (ember's ABI) or reach a kernel; the rest
/// (the ownership flags of buffer deallocation, pointers compared on the
/// host) stay on the host. Memrefs are followed through views, casts, loops
/// and calls, so an alias of a device buffer is one too.
class DeviceMemory {
public:
  explicit DeviceMemory(ModuleOp module) {
    SymbolTable symbols(module);
    module.walk([&](Operation *op) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
        join(view.getViewSource(), op->getResult(0));
      } else if (auto cast = dyn_cast<memref::CastOp>(op)) {
        join(cast.getSource(), cast.getResult());
      } else if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
        join(metadata.getSource(), metadata.getBaseBuffer());
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        for (auto [init, argument, yielded, result] :
             llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(), loop.getYieldedValues(),
                       loop.getResults())) {
          join(init, argument);
          join(argument, result);
          join(yielded, result);
        }
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
          if (region->empty())
            continue;
          for (auto [yielded, result] :
               llvm::zip(region->front().getTerminator()->getOperands(), branch.getResults()))
            join(yielded, result);
        }
      } else if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (callee && !callee.isDeclaration())
          for (auto [operand, argument] : llvm::zip(call.getOperands(), callee.getArguments()))
            join(operand, argument);
      }
    });
  }

  void markDevice(Value value) {
    if (isa<MemRefType>(value.getType()))
      device.insert(aliases.getOrInsertLeaderValue(value));
  }
  bool isDevice(Value value) {
    return isa<MemRefType>(value.getType()) &&
           device.contains(aliases.getOrInsertLeaderValue(value));
  }

private:
  void join(Value a, Value b) {
    if (isa<MemRefType>(a.getType()) && isa<MemRefType>(b.getType()))
      aliases.unionSets(a, b);
  }
  llvm::EquivalenceClasses<Value> aliases;
  DenseSet<Value> device;
};

/// The memrefs that `op` and the ops nested in it load from or store to,
/// outside parallel loops (kernels of their own).
SmallVector<Value> accessedOutsideParallelLoops(Operation *op) {
  SmallVector<Value> accessed;
  op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (isa<scf::ParallelOp>(nested))
      return WalkResult::skip();
    if (auto load = dyn_cast<memref::LoadOp>(nested))
      accessed.push_back(load.getMemRef());
    else if (auto store = dyn_cast<memref::StoreOp>(nested))
      accessed.push_back(store.getMemRef());
    return WalkResult::advance();
  });
  return accessed;
}

/// The ops in `store`'s block that compute what it stores and where (loads
/// and pure ops, in block order): the body of a 0-d elementwise op, which
/// linalg's lowering leaves without a loop.
SmallVector<Operation *> scalarSlice(memref::StoreOp store) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> pending(store->getOperands().begin(), store->getOperands().end());
  while (!pending.empty()) {
    Operation *def = pending.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != store->getBlock() || def->getNumRegions() ||
        (!isPure(def) && !isa<memref::LoadOp>(def)) || !slice.insert(def))
      continue;
    llvm::append_range(pending, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// `memref.copy %from, %to` as a parallel loop of loads and stores (a loop of
/// one iteration for rank 0).
void copyAsLoop(memref::CopyOp copy) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(copy.getTarget().getType());
  SmallVector<Value> upper;
  for (int64_t d = 0; d < type.getRank(); ++d)
    upper.push_back(type.isDynamicDim(d)
                        ? Value(memref::DimOp::create(b, loc, copy.getTarget(), d))
                        : Value(arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))));
  ember::parallelOver(b, loc, upper, [&](OpBuilder &lb, Location lloc, ValueRange indices) {
    Value element = memref::LoadOp::create(lb, lloc, copy.getSource(), indices);
    memref::StoreOp::create(lb, lloc, element, copy.getTarget(), indices);
  });
  copy.erase();
}

/// Accesses of `vectorWidth` neighbouring elements per thread: when every
/// load and store of `loop`'s body reads along the innermost dimension (or
/// not at all: a broadcast), the body is plain arithmetic, and rows are a
/// multiple of 16 bytes, the innermost loop steps by `vectorWidth` and the
/// body works on vectors (16-byte loads and stores, ld.global.v4 for f32).
/// More bytes in flight per thread is what a memory-bound kernel needs.
/// Returns false, changing nothing, when the body does not qualify.
bool vectorizeInnermost(scf::ParallelOp loop, int64_t vectorBytes) {
  Block *body = loop.getBody();
  Value innermost = loop.getInductionVars().back();
  auto constant = [](Value v) { return getConstantIntValue(v); };
  std::optional<SmallVector<int64_t>> extents = ember::normalizedExtents(loop);
  if (!extents)
    return false;
  // Every element of one width; accesses index with plain induction
  // variables or constants; the innermost one only as the last index.
  unsigned elementBits = 0;
  auto accessQualifies = [&](MemRefType type, ValueRange indices, bool isStore) {
    unsigned bits = type.getElementTypeBitWidth();
    if (!type.getLayout().isIdentity() || !type.hasStaticShape() || type.getRank() == 0 ||
        (elementBits && bits != elementBits) || !type.getElementType().isIntOrFloat() ||
        bits < 8)
      return false;
    elementBits = bits;
    for (auto [position, index] : llvm::enumerate(indices)) {
      bool isIv = llvm::is_contained(loop.getInductionVars(), index);
      if (!isIv && !constant(index))
        return false;
      if (index == innermost && position + 1 != indices.size())
        return false;
    }
    bool alongRows = indices.back() == innermost;
    return alongRows ? type.getShape().back() * bits % (vectorBytes * 8) == 0 : !isStore;
  };
  for (Operation &op : body->without_terminator()) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (!accessQualifies(load.getMemRefType(), load.getIndices(), false))
        return false;
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (!accessQualifies(store.getMemRefType(), store.getIndices(), true))
        return false;
    } else if (!isa<arith::ArithDialect>(op.getDialect()) || op.getNumRegions() ||
               (!op.hasTrait<OpTrait::Elementwise>() && !isa<arith::ConstantOp>(op)) ||
               isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
                   arith::FloorDivSIOp, arith::CeilDivSIOp, arith::CeilDivUIOp>(op)) {
      return false;
    } else {
      for (Type type : llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
        if (!type.isIntOrFloat())
          return false;
      for (Value operand : op.getOperands())
        if (llvm::is_contained(loop.getInductionVars(), operand))
          return false;
    }
  }
  if (!elementBits)
    return false;
  int64_t width = vectorBytes * 8 / elementBits;
  if (width < 2 || extents->back() % width != 0)
    return false;

  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> steps(loop.getStep());
  steps.back() = arith::ConstantIndexOp::create(b, loc, width);
  loop.getStepMutable().assign(steps);
  b.setInsertionPoint(body->getTerminator());
  IRMapping mapping;
  IntegerAttr alignment = b.getI64IntegerAttr(vectorBytes);
  SmallVector<Operation *> scalarOps;
  for (Operation &op : body->without_terminator())
    scalarOps.push_back(&op);
  for (Operation *op : scalarOps) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (load.getIndices().back() == innermost) {
        auto vectorLoad =
            vector::LoadOp::create(b, loc, VectorType::get({width}, load.getType()),
                                   load.getMemRef(), load.getIndices());
        vectorLoad.setAlignmentAttr(alignment);
        mapping.map(load.getResult(), vectorLoad.getResult());
      } else { // the same element for the whole vector
        mapping.map(load.getResult(), b.clone(*load)->getResult(0));
      }
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      Value stored = ember::broadcastToLanes(
          b, loc, mapping.lookupOrDefault(store.getValueToStore()), width);
      auto vectorStore =
          vector::StoreOp::create(b, loc, stored, store.getMemRef(), store.getIndices());
      vectorStore.setAlignmentAttr(alignment);
    } else if (isa<arith::ConstantOp>(op)) {
      b.clone(*op, mapping);
    } else {
      ember::cloneOnVectors(b, *op, mapping, width);
    }
  }
  for (Operation *op : llvm::reverse(scalarOps))
    op->erase();
  return true;
}

/// Constant tensors live in host globals. Each use becomes a device buffer:
/// a splat filled by a kernel (a parallel loop mapped like the others), other
/// values uploaded from the global by the runtime (emberrt_cuda_upload) on
/// each call. The buffer is freed at the end of the block. Returns the
/// uploaded buffers, which only the runtime's copy writes.
SmallVector<Value> constantsToDevice(func::FuncOp function, SymbolTable &symbols) {
  SmallVector<Value> uploaded;
  SmallVector<memref::GetGlobalOp> uses;
  function.walk([&](memref::GetGlobalOp use) { uses.push_back(use); });
  for (memref::GetGlobalOp use : uses) {
    auto global = symbols.lookup<memref::GlobalOp>(use.getName());
    // Dense values or dense_resource blobs (exported weights).
    auto value = global ? dyn_cast_or_null<ElementsAttr>(global.getConstantInitValue())
                        : ElementsAttr();
    MemRefType type = use.getType();
    if (!value || !global.getConstant() || !type.getLayout().isIdentity() || !type.hasStaticShape())
      continue;
    // After the get_global: the upload reads its pointer.
    OpBuilder b(use);
    b.setInsertionPointAfter(use);
    Location loc = use.getLoc();
    Value buffer = memref::AllocOp::create(b, loc, type);
    if (auto dense = dyn_cast<DenseElementsAttr>(value); dense && dense.isSplat()) {
      Value element = arith::ConstantOp::create(b, loc, dense.getSplatValue<TypedAttr>());
      SmallVector<Value> upper;
      for (int64_t size : type.getShape())
        upper.push_back(arith::ConstantIndexOp::create(b, loc, size));
      ember::parallelOver(b, loc, upper, [&](OpBuilder &lb, Location lloc, ValueRange indices) {
        memref::StoreOp::create(lb, lloc, element, buffer, indices);
      });
      use.getResult().replaceAllUsesWith(buffer);
      use.erase();
    } else {
      ModuleOp module = function->getParentOfType<ModuleOp>();
      StringRef name = "emberrt_cuda_upload";
      Type indexType = b.getIndexType();
      if (!symbols.lookup(name)) {
        OpBuilder mb(module.getBodyRegion());
        auto declaration = func::FuncOp::create(
            mb, loc, name, mb.getFunctionType({indexType, indexType, indexType}, {}));
        declaration.setPrivate();
        symbols.insert(declaration);
      }
      Value to = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
      auto from = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, use.getResult());
      int64_t bytes = type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
      func::CallOp::create(b, loc, name, TypeRange{},
                           ValueRange{to, from, arith::ConstantIndexOp::create(b, loc, bytes)});
      uploaded.push_back(buffer);
      use.getResult().replaceAllUsesExcept(buffer, from);
    }
    OpBuilder end(buffer.getParentBlock()->getTerminator());
    memref::DeallocOp::create(end, loc, buffer);
  }
  return uploaded;
}

struct MapToGpuKernelsPass : ember::impl::MapToGpuKernelsPassBase<MapToGpuKernelsPass> {
  using MapToGpuKernelsPassBase::MapToGpuKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<ember::TensorCoreShape> forcedShape;
    if (!tensorCoreShape.empty() && !(forcedShape = ember::parseTensorCoreShape(tensorCoreShape))) {
      module.emitError("ember-map-to-gpu-kernels: tensor-core-shape '")
          << tensorCoreShape
          << "' is not WMxWN,MTxNT,STAGES,SLICEBYTES with an even NT, 2 stages or more, "
             "slices a multiple of 32 bytes and at most 16 warps";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> functions;
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isDeclaration() && !isDeallocationHelper(function))
        functions.push_back(function);
    for (func::FuncOp function : functions) {
      SmallVector<memref::CopyOp> copies;
      function.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
      for (memref::CopyOp copy : copies)
        copyAsLoop(copy);
    }

    SymbolTable symbols(module);
    SmallVector<Value> uploaded;
    for (func::FuncOp function : functions)
      llvm::append_range(uploaded, constantsToDevice(function, symbols));

    // Device memory: public functions' arguments and what linalg's parallel
    // loops touch; then, until nothing changes, what host loops and stores
    // touching device memory touch too (those run as kernels of one thread).
    DeviceMemory memory(module);
    for (Value buffer : uploaded)
      memory.markDevice(buffer);
    SmallVector<scf::ParallelOp> parallel;
    for (func::FuncOp function : functions) {
      if (function.isPublic())
        for (Value argument : function.getArguments())
          memory.markDevice(argument);
      // What kernels built already (ember-map-to-one-block-kernel) touch.
      function.walk([&](gpu::LaunchOp launch) {
        launch.walk([&](Operation *op) {
          for (Value operand : op->getOperands())
            if (!launch->isAncestor(operand.getParentBlock()->getParentOp()))
              memory.markDevice(operand);
        });
      });
      function.walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
        parallel.push_back(loop);
        loop.walk([&](Operation *op) {
          if (auto load = dyn_cast<memref::LoadOp>(op))
            memory.markDevice(load.getMemRef());
          else if (auto store = dyn_cast<memref::StoreOp>(op))
            memory.markDevice(store.getMemRef());
        });
        return WalkResult::skip();
      });
    }
    SmallVector<Operation *> sequential;
    for (bool changed = true; changed;) {
      changed = false;
      sequential.clear();
      for (func::FuncOp function : functions)
        function.walk<WalkOrder::PreOrder>([&](Operation *op) {
          if (isa<scf::ParallelOp, gpu::LaunchOp>(op))
            return WalkResult::skip();
          if (!isa<scf::ForOp, scf::WhileOp, memref::StoreOp>(op))
            return WalkResult::advance();
          SmallVector<Value> accessed = accessedOutsideParallelLoops(op);
          if (auto store = dyn_cast<memref::StoreOp>(op))
            for (Operation *computed : scalarSlice(store))
              if (auto load = dyn_cast<memref::LoadOp>(computed))
                accessed.push_back(load.getMemRef());
          if (llvm::none_of(accessed, [&](Value v) { return memory.isDevice(v); }))
            return WalkResult::advance();
          for (Value value : accessed)
            if (!memory.isDevice(value)) {
              memory.markDevice(value);
              changed = true;
            }
          sequential.push_back(op);
          return WalkResult::skip();
        });
    }

    // Matmuls get tiles of C per block (with a `?` M or N, large or small
    // ones as the sizes at the call say); reductions a block per output
    // element (with at least a warp's worth of elements to reduce); other
    // nests a thread per element.
    for (scf::ParallelOp loop : parallel)
      if (!(!forcedShape && ember::mapMatmulBySizeAtCall(loop, tensorCores, tf32)) &&
          !(tensorCores &&
            ember::mapMatmulToTensorCores(loop, tf32, forcedShape ? &*forcedShape : nullptr)) &&
          !ember::mapMatmulToTiles(loop) &&
          !ember::mapReductionToBlocks(loop, blockSize, /*minReduced=*/32) &&
          failed(mapParallel(loop)))
        return signalPassFailure();
    for (Operation *op : sequential) {
      if (isa<scf::ForOp>(op) && ember::mapReductionToBlocks(op, blockSize, /*minReduced=*/32))
        continue;
      if (op->getNumResults()) {
        op->emitError() << "'" << op->getName()
                        << "' reads device memory into host code: not supported on the GPU yet";
        return signalPassFailure();
      }
      runOnOneThread(op);
    }
    // A load of device memory left in host code: its value is needed there
    // (a branch's condition). It is copied to the host when the work queued
    // before it has finished.
    for (func::FuncOp function : functions) {
      SmallVector<memref::LoadOp> hostReads;
      function.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (isa<scf::ParallelOp, gpu::LaunchOp>(op))
          return WalkResult::skip();
        if (auto load = dyn_cast<memref::LoadOp>(op); load && memory.isDevice(load.getMemRef()))
          hostReads.push_back(load);
        return WalkResult::advance();
      });
      for (memref::LoadOp load : hostReads)
        if (failed(downloadToHost(load, symbols)))
          return signalPassFailure();
    }
    for (func::FuncOp function : functions)
      if (failed(keepHostBuffersOnTheHost(function, memory)))
        return signalPassFailure();

    // Globals left (not constant, or strided) would be read by kernels.
    WalkResult constants = module.walk([&](memref::GetGlobalOp global) {
      if (llvm::all_of(global->getUsers(), [](Operation *user) {
            return isa<memref::ExtractAlignedPointerAsIndexOp>(user);
          }))
        return WalkResult::advance();
      global.emitError() << "the host's global '" << global.getName()
                         << "' would be read by a kernel: not supported on the GPU yet";
      return WalkResult::interrupt();
    });
    if (constants.wasInterrupted())
      signalPassFailure();
  }

  /// The function buffer deallocation generates (`dealloc_helper`, for
  /// buffers whose aliasing is known only at run time: loop-carried buffers
  /// that branches may replace): it compares the buffers' base pointers and
  /// ownership flags, host values, and stays host code.
  static bool isDeallocationHelper(func::FuncOp function) {
    return function.isPrivate() && function.getName() == "dealloc_helper";
  }

  /// Replaces `load` (host code reading device memory) by a copy of the one
  /// element into a host buffer on the stack (emberrt_cuda_download, which
  /// waits for the queued work) and a load of that.
  static LogicalResult downloadToHost(memref::LoadOp load, SymbolTable &symbols) {
    MemRefType type = load.getMemRefType();
    if (!type.getLayout().isIdentity() || !type.hasStaticShape())
      return load.emitError() << "'memref.load' reads device memory of type " << type
                              << " into host code: not supported on the GPU yet";
    OpBuilder b(load);
    Location loc = load.getLoc();
    Type indexType = b.getIndexType();
    StringRef name = "emberrt_cuda_download";
    if (!symbols.lookup(name)) {
      OpBuilder mb(symbols.getOp()->getRegion(0));
      auto declaration = func::FuncOp::create(
          mb, loc, name, mb.getFunctionType({indexType, indexType, indexType}, {}));
      declaration.setPrivate();
      symbols.insert(declaration);
    }
    // The element's address: the aligned pointer plus its row-major offset.
    int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
    Value offset = arith::ConstantIndexOp::create(b, loc, 0);
    int64_t stride = 1;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      Value scaled = arith::MulIOp::create(
          b, loc, load.getIndices()[d], arith::ConstantIndexOp::create(b, loc, stride * bytes));
      offset = arith::AddIOp::create(b, loc, offset, scaled);
      stride *= type.getDimSize(d);
    }
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, load.getMemRef());
    Value source = arith::AddIOp::create(b, loc, base, offset);
    auto host = memref::AllocaOp::create(b, loc, MemRefType::get({}, type.getElementType()));
    Value destination = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, host);
    func::CallOp::create(b, loc, name, TypeRange{},
                         ValueRange{destination, source, arith::ConstantIndexOp::create(b, loc, bytes)});
    Value value = memref::LoadOp::create(b, loc, host, ValueRange{});
    load.getResult().replaceAllUsesWith(value);
    load.erase();
    return success();
  }

  /// Host buffers (small, static: the ownership flags of buffer
  /// deallocation) go on the host's stack; every other allocation becomes
  /// device memory (see ember-device-allocations).
  static LogicalResult keepHostBuffersOnTheHost(func::FuncOp function, DeviceMemory &memory) {
    SmallVector<memref::AllocOp> allocations;
    SmallVector<memref::DeallocOp> deallocations;
    function.walk([&](memref::AllocOp alloc) {
      if (!memory.isDevice(alloc.getResult()))
        allocations.push_back(alloc);
    });
    function.walk([&](memref::DeallocOp dealloc) {
      if (!memory.isDevice(dealloc.getMemref()))
        deallocations.push_back(dealloc);
    });
    for (memref::AllocOp alloc : allocations) {
      if (!alloc.getType().hasStaticShape() || alloc->getParentOfType<LoopLikeOpInterface>())
        return alloc.emitError("internal error: a host buffer of dynamic size or in a loop");
      OpBuilder b(alloc);
      auto onStack = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType());
      alloc.replaceAllUsesWith(onStack.getResult());
      alloc.erase();
    }
    for (memref::DeallocOp dealloc : deallocations)
      dealloc.erase();
    return success();
  }

  /// Linearizes `loop`, tiles it into blocks and maps it onto the grid.
  LogicalResult mapParallel(scf::ParallelOp loop) {
    IRRewriter rewriter(loop.getContext());
    if (vectorBytes > 0)
      (void)vectorizeInnermost(loop, vectorBytes);
    std::optional<int64_t> trips = ember::constantTripCount(loop);
    // Collapsing also normalizes a loop to unit steps, which the tiling's
    // bounds check below assumes (it scales the inner index by the step:
    // with a vectorized 1-D loop's step of 4 it skipped 3/4 of the elements).
    if (loop.getNumLoops() > 1 || !isConstantIntValue(loop.getStep()[0], 1)) {
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
    if (trips)
      threads = std::min<int64_t>(threads, std::max<int64_t>(32, (*trips + 31) / 32 * 32));
    auto [blocks, elements] = scf::tileParallelLoop(loop, {threads}, /*noMinMaxBounds=*/true);
    MLIRContext *context = loop.getContext();
    if (failed(gpu::setMappingAttr(blocks, {dimMapping(context, gpu::Processor::BlockX)})) ||
        failed(gpu::setMappingAttr(elements, {dimMapping(context, gpu::Processor::ThreadX)})))
      return failure();
    mapNestedSequential(elements);
    return success();
  }


  /// Wraps `op` in a kernel of one block of one thread; a store takes the
  /// scalar computation it stores along (copies of it: what the host still
  /// uses stays, what it no longer uses goes).
  static void runOnOneThread(Operation *op) {
    OpBuilder b(op);
    SmallVector<Operation *> slice;
    if (auto store = dyn_cast<memref::StoreOp>(op))
      slice = scalarSlice(store);
    auto kernel = ember::parallelOver(b, op->getLoc(), ValueRange{},
                                      [](OpBuilder &, Location, ValueRange) {});
    OpBuilder inside = OpBuilder::atBlockTerminator(kernel.getBody());
    IRMapping mapping;
    for (Operation *computed : slice)
      inside.clone(*computed, mapping);
    for (OpOperand &operand : op->getOpOperands())
      operand.set(mapping.lookupOrDefault(operand.get()));
    op->moveBefore(kernel.getBody()->getTerminator());
    for (Operation *computed : llvm::reverse(slice))
      if (computed->use_empty())
        computed->erase();
    (void)gpu::setMappingAttr(kernel, {dimMapping(op->getContext(), gpu::Processor::BlockX)});
    mapNestedSequential(kernel);
  }
};
} // namespace
