//===- ReuseLoopBuffers.cpp - one buffer per loop variable ----------------===//
//
// One-shot bufferization lets a loop yield a fresh buffer each iteration;
// buffer deallocation then carries ownership flags around the loop and frees
// the previous buffer at each step. A kernel of one block (see
// ember-map-to-one-block-kernel) has a fixed set of buffers in shared
// memory instead, so in small functions every buffer carried by a loop or
// returned by a branch becomes one buffer written in place.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CUDA/Passes.h"

#include "SmallFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ember {
#define GEN_PASS_DEF_REUSELOOPBUFFERSPASS
#include "ember/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

bool isBuffer(Value value) { return isa<MemRefType>(value.getType()); }

/// Whether the buffer `value` is only read and written where it is used: no
/// user passes it on (a terminator, control flow, a call) or makes an alias
/// of it (a view, a cast), except through `allowed`.
bool staysPut(Value value, OpOperand *allowed = nullptr) {
  for (OpOperand &use : value.getUses()) {
    if (&use == allowed)
      continue;
    Operation *user = use.getOwner();
    if (user->hasTrait<OpTrait::IsTerminator>() ||
        isa<RegionBranchOpInterface, CallOpInterface>(user) ||
        llvm::any_of(user->getResultTypes(), [](Type t) { return isa<BaseMemRefType>(t); }))
      return false;
  }
  return true;
}

/// `value` as an allocation of `block` itself (not of a nested block).
memref::AllocOp allocationIn(Block *block, Value value) {
  auto alloc = value.getDefiningOp<memref::AllocOp>();
  return alloc && alloc->getBlock() == block ? alloc : memref::AllocOp();
}

/// The ops of `block` that use `value` or contain a use of it, except
/// `except`.
SmallVector<Operation *> usersIn(Block *block, Value value, Operation *except) {
  SmallVector<Operation *> users;
  for (Operation *user : value.getUsers())
    if (user != except)
      if (Operation *ancestor = block->findAncestorOpInBlock(*user))
        users.push_back(ancestor);
  return users;
}

/// How a buffer-valued iteration variable becomes one buffer.
enum class Reuse {
  InPlace, // the iteration writes into the buffer it received
  Copy,    // the yielded buffer is copied into the received one at the end
};

/// Whether `op` reads `received` and writes `yielded` element by element
/// (a copy, or a parallel generic reading `received` only at the elements
/// it writes and not reading what `yielded` held), so that it may write into
/// `received` itself.
bool isElementwise(Operation *op, Value received, Value yielded) {
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return copy.getSource() == received && copy.getTarget() == yielded;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumReductionLoops() != 0 || generic.getNumDpsInits() != 1 ||
      generic.getDpsInits()[0] != yielded)
    return false;
  OpOperand *output = generic.getDpsInitOperand(0);
  AffineMap map = generic.getMatchingIndexingMap(output);
  if (!map.isPermutation() || !generic.getMatchingBlockArgument(output).use_empty())
    return false;
  for (OpOperand *input : generic.getDpsInputOperands())
    if (input->get() == yielded ||
        (input->get() == received && generic.getMatchingIndexingMap(input) != map))
      return false;
  return llvm::is_contained(generic->getOperands(), received);
}

/// How the iteration that ends in `body` writes the buffer it yields through
/// `yielded` into the buffer it received, `received`; nullopt when that
/// buffer is not a fresh allocation of the body or either leaves it another
/// way.
std::optional<Reuse> planReuse(Block *body, Value received, OpOperand &yielded) {
  Value buffer = yielded.get();
  Operation *terminator = yielded.getOwner();
  if (!isBuffer(received) || !allocationIn(body, buffer) ||
      buffer.getType() != received.getType() ||
      llvm::count(terminator->getOperands(), buffer) != 1 || !staysPut(received) ||
      !staysPut(buffer, &yielded))
    return std::nullopt;
  // In place when every op of the body that reads the received buffer comes
  // before every op that touches the yielded one (or is one that works
  // element by element).
  SmallVector<Operation *> reads = usersIn(body, received, nullptr);
  SmallVector<Operation *> writes = usersIn(body, buffer, terminator);
  bool inPlace = llvm::all_of(reads, [&](Operation *read) {
    return llvm::all_of(writes, [&](Operation *write) {
      return read == write ? isElementwise(read, received, buffer) : read->isBeforeInBlock(write);
    });
  });
  return inPlace ? Reuse::InPlace : Reuse::Copy;
}

/// Makes the iteration write into `received` what it yielded through
/// `yielded`, and yield `received`.
void applyReuse(Value received, OpOperand &yielded, Reuse reuse) {
  Value buffer = yielded.get();
  if (reuse == Reuse::Copy) {
    OpBuilder b(yielded.getOwner());
    memref::CopyOp::create(b, buffer.getLoc(), buffer, received);
    yielded.set(received);
    return;
  }
  Operation *alloc = buffer.getDefiningOp();
  buffer.replaceAllUsesWith(received);
  alloc->erase();
  // A copy of the received buffer into the yielded one copies nothing now.
  for (Operation *user : llvm::make_early_inc_range(received.getUsers()))
    if (auto copy = dyn_cast<memref::CopyOp>(user); copy && copy.getSource() == copy.getTarget())
      copy.erase();
}

/// The buffer that `loop` may write its initial value `initial` into: the
/// value itself when it is an allocation that only ops before the loop use
/// (nothing observes it afterwards), else a new buffer with a copy of it.
Value writableInitial(Operation *loop, Value initial) {
  auto alloc = initial.getDefiningOp<memref::AllocOp>();
  bool owned = alloc && llvm::count(loop->getOperands(), initial) == 1;
  for (OpOperand &use : initial.getUses()) {
    if (!owned)
      break;
    Operation *user = use.getOwner();
    if (user == loop)
      continue;
    Operation *ancestor = loop->getBlock()->findAncestorOpInBlock(*user);
    owned = ancestor && ancestor->isBeforeInBlock(loop) &&
            !user->hasTrait<OpTrait::IsTerminator>() &&
            !isa<RegionBranchOpInterface, CallOpInterface>(user) &&
            llvm::none_of(user->getResultTypes(), [](Type t) { return isa<BaseMemRefType>(t); });
  }
  if (owned)
    return initial;
  OpBuilder b(loop);
  Value copy = memref::AllocOp::create(b, loop->getLoc(), cast<MemRefType>(initial.getType()));
  memref::CopyOp::create(b, loop->getLoc(), initial, copy);
  return copy;
}

/// Drops the iteration variables and results that canonicalization finds
/// loop-invariant or unused (those just made invariant).
void canonicalize(Operation *op) {
  RewritePatternSet patterns(op->getContext());
  if (isa<scf::ForOp>(op))
    scf::ForOp::getCanonicalizationPatterns(patterns, op->getContext());
  else if (isa<scf::WhileOp>(op))
    scf::WhileOp::getCanonicalizationPatterns(patterns, op->getContext());
  else
    scf::IfOp::getCanonicalizationPatterns(patterns, op->getContext());
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(ArrayRef<Operation *>{op}, std::move(patterns), config);
}

/// Runs the first iteration of `loop` before it; the loop starts a step
/// later.
void peelFirstIteration(scf::ForOp loop) {
  OpBuilder b(loop);
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), loop.getLowerBound());
  mapping.map(loop.getRegionIterArgs(), loop.getInitArgs());
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> next;
  for (Value yielded : body->getTerminator()->getOperands())
    next.push_back(mapping.lookupOrDefault(yielded));
  loop.getInitArgsMutable().assign(next);
  loop.setLowerBound(
      b.createOrFold<arith::AddIOp>(loop.getLoc(), loop.getLowerBound(), loop.getStep()));
}

/// Two iterations of `loop` in each of its iterations (an even trip count).
void unrollByTwo(scf::ForOp loop) {
  Block *body = loop.getBody();
  Operation *yield = body->getTerminator();
  SmallVector<Operation *> ops;
  for (Operation &op : body->without_terminator())
    ops.push_back(&op);
  OpBuilder b(yield);
  Location loc = loop.getLoc();
  IRMapping mapping;
  mapping.map(loop.getInductionVar(),
              arith::AddIOp::create(b, loc, loop.getInductionVar(), loop.getStep()).getResult());
  mapping.map(loop.getRegionIterArgs(), yield->getOperands());
  for (Operation *op : ops)
    b.clone(*op, mapping);
  SmallVector<Value> next;
  for (Value yielded : yield->getOperands())
    next.push_back(mapping.lookupOrDefault(yielded));
  yield->setOperands(next);
  OpBuilder outside(loop);
  Type type = loop.getStep().getType();
  if (std::optional<int64_t> step = getConstantIntValue(loop.getStep())) {
    loop.setStep(arith::ConstantOp::create(outside, loc, outside.getIntegerAttr(type, *step * 2)));
    return;
  }
  Value two = arith::ConstantOp::create(outside, loc, outside.getIntegerAttr(type, 2));
  loop.setStep(arith::MulIOp::create(outside, loc, loop.getStep(), two));
}

/// Makes the buffer-valued iteration variables of `loop` that yield a fresh
/// allocation of the body loop-invariant. With `mayUnroll`, a loop of
/// constant trip count whose iterations read the received buffer after
/// writing the yielded one is unrolled by two first.
void reuseLoopBuffers(scf::ForOp loop, bool mayUnroll) {
  Block *body = loop.getBody();
  Operation *yield = body->getTerminator();
  SmallVector<std::pair<unsigned, Reuse>> plans;
  bool overlapping = false;
  for (unsigned position = 0; position < loop.getNumRegionIterArgs(); ++position)
    if (std::optional<Reuse> reuse =
            planReuse(body, loop.getRegionIterArgs()[position], yield->getOpOperand(position))) {
      plans.push_back({position, *reuse});
      overlapping |= *reuse == Reuse::Copy;
    }
  if (plans.empty())
    return;
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (overlapping && mayUnroll && trips && trips->getZExtValue() >= 2) {
    // Two halves: the first reads the received buffer and writes a
    // temporary, the second reads the temporary and may write the received
    // buffer in place. An odd trip count runs its first iteration before.
    if (trips->getZExtValue() % 2 == 1)
      peelFirstIteration(loop);
    unrollByTwo(loop);
    return reuseLoopBuffers(loop, /*mayUnroll=*/false);
  }
  for (auto [position, reuse] : plans) {
    BlockArgument received = loop.getRegionIterArgs()[position];
    applyReuse(received, yield->getOpOperand(position), reuse);
    Value buffer = writableInitial(loop, loop.getInitArgs()[position]);
    loop.getInitArgsMutable()[position].assign(buffer);
    received.replaceAllUsesWith(buffer);
    loop.getResult(position).replaceAllUsesWith(buffer);
  }
  canonicalize(loop);
}

/// The same for a while loop whose condition passes each buffer on (itself,
/// or a fresh copy of it) at the position where it received it.
void reuseWhileBuffers(scf::WhileOp loop) {
  Block *before = loop.getBeforeBody(), *after = loop.getAfterBody();
  scf::ConditionOp condition = loop.getConditionOp();
  Operation *yield = loop.getYieldOp();
  if (before->getNumArguments() != condition.getArgs().size())
    return;
  bool changed = false;
  for (unsigned position = 0; position < before->getNumArguments(); ++position) {
    BlockArgument checked = before->getArgument(position);
    OpOperand &passed = condition.getArgsMutable()[position];
    if (!isBuffer(checked) || passed.get().getType() != checked.getType())
      continue;
    // The condition passes the buffer itself, or a copy that nothing else
    // writes.
    memref::CopyOp copy;
    if (passed.get() != checked) {
      Value buffer = passed.get();
      if (!allocationIn(before, buffer) || !staysPut(buffer, &passed))
        continue;
      for (Operation *user : buffer.getUsers())
        if (auto candidate = dyn_cast<memref::CopyOp>(user);
            candidate && candidate.getSource() == checked && candidate.getTarget() == buffer &&
            !copy)
          copy = candidate;
      if (!copy || std::distance(buffer.getUses().begin(), buffer.getUses().end()) != 2)
        continue;
    } else if (!staysPut(checked, &passed)) {
      continue;
    }
    if (copy && !staysPut(checked))
      continue;
    std::optional<Reuse> reuse =
        planReuse(after, after->getArgument(position), yield->getOpOperand(position));
    if (!reuse)
      continue;
    if (copy) {
      Value buffer = copy.getTarget();
      copy.erase();
      buffer.replaceAllUsesWith(checked);
      buffer.getDefiningOp()->erase();
    }
    applyReuse(after->getArgument(position), yield->getOpOperand(position), *reuse);
    Value buffer = writableInitial(loop, loop.getInits()[position]);
    loop.getInitsMutable()[position].assign(buffer);
    checked.replaceAllUsesWith(buffer);
    after->getArgument(position).replaceAllUsesWith(buffer);
    loop.getResult(position).replaceAllUsesWith(buffer);
    changed = true;
  }
  if (changed)
    canonicalize(loop);
}

/// Makes `branch`'s buffer results one buffer allocated before it, which
/// both branches write.
void reuseBranchBuffers(scf::IfOp branch) {
  bool changed = false;
  for (OpResult result : branch->getResults()) {
    auto type = dyn_cast<MemRefType>(result.getType());
    if (!type || !type.getLayout().isIdentity() || !type.hasStaticShape())
      continue;
    OpBuilder b(branch);
    Value buffer = memref::AllocOp::create(b, branch.getLoc(), type);
    for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
      Block *block = &region->front();
      auto yield = cast<scf::YieldOp>(block->getTerminator());
      unsigned position = result.getResultNumber();
      Value yielded = yield.getOperand(position);
      memref::AllocOp alloc = allocationIn(block, yielded);
      if (alloc && yielded.getType() == type && llvm::count(yield.getOperands(), yielded) == 1 &&
          staysPut(yielded, &yield->getOpOperand(position))) {
        yielded.replaceAllUsesWith(buffer);
        alloc->erase();
        continue;
      }
      OpBuilder yb(yield);
      memref::CopyOp::create(yb, yield.getLoc(), yielded, buffer);
      yield.setOperand(position, buffer);
    }
    result.replaceAllUsesWith(buffer);
    changed = true;
  }
  if (changed)
    canonicalize(branch);
}

/// The static identity-layout type of a buffer type with another layout
/// (bufferization gives the values of branches and of the loops around them
/// a fully dynamic one); null for any other type.
MemRefType identityOf(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getLayout().isIdentity() || !memref.hasStaticShape())
    return MemRefType();
  return MemRefType::get(memref.getShape(), memref.getElementType(), MemRefLayoutAttrInterface(),
                         memref.getMemorySpace());
}

/// `value` as the buffer of type `identity` it is a cast of; null if none.
Value castFrom(Value value, MemRefType identity) {
  auto cast = value.getDefiningOp<memref::CastOp>();
  return cast && cast.getSource().getType() == identity ? cast.getSource() : Value();
}

/// Gives `value` the type `identity`; its users get a cast to its old type,
/// built by `b`.
void retype(Value value, MemRefType identity, OpBuilder &b) {
  Type old = value.getType();
  value.setType(identity);
  auto cast = memref::CastOp::create(b, value.getLoc(), old, value);
  value.replaceAllUsesExcept(cast, cast);
}

/// Branch results and loop variables whose every incoming buffer is a cast
/// from the identity layout get that layout, so that they are plain
/// allocations to reuse; the casts fold into their users.
void narrowLayouts(func::FuncOp function) {
  bool changed = false;
  OpBuilder b(function.getContext());
  // Inner ops first: a branch's narrowed result is what its loop yields.
  function.walk([&](Operation *op) {
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (branch.getElseRegion().empty())
        return;
      for (OpResult result : branch->getResults()) {
        MemRefType identity = identityOf(result.getType());
        unsigned position = result.getResultNumber();
        Value fromThen = identity ? castFrom(branch.thenYield().getOperand(position), identity)
                                  : Value();
        Value fromElse = identity ? castFrom(branch.elseYield().getOperand(position), identity)
                                  : Value();
        if (!fromThen || !fromElse)
          continue;
        branch.thenYield().setOperand(position, fromThen);
        branch.elseYield().setOperand(position, fromElse);
        b.setInsertionPointAfter(branch);
        retype(result, identity, b);
        changed = true;
      }
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      Operation *yield = loop.getBody()->getTerminator();
      for (unsigned position = 0; position < loop.getNumRegionIterArgs(); ++position) {
        BlockArgument received = loop.getRegionIterArgs()[position];
        MemRefType identity = identityOf(received.getType());
        Value initial = identity ? castFrom(loop.getInitArgs()[position], identity) : Value();
        Value next = identity ? castFrom(yield->getOperand(position), identity) : Value();
        if (!initial || !next)
          continue;
        loop.getInitArgsMutable()[position].assign(initial);
        yield->setOperand(position, next);
        b.setInsertionPointToStart(loop.getBody());
        retype(received, identity, b);
        b.setInsertionPointAfter(loop);
        retype(loop.getResult(position), identity, b);
        changed = true;
      }
    }
  });
  if (!changed)
    return;
  RewritePatternSet patterns(function.getContext());
  memref::CastOp::getCanonicalizationPatterns(patterns, function.getContext());
  (void)applyPatternsGreedily(function, std::move(patterns));
}

struct ReuseLoopBuffersPass : ember::impl::ReuseLoopBuffersPassBase<ReuseLoopBuffersPass> {
  using ReuseLoopBuffersPassBase::ReuseLoopBuffersPassBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (!ember::hasSmallStaticBuffers(function, maxElements) ||
        !ember::hasControlFlowAroundWork(function))
      return;
    narrowLayouts(function);
    // Inner control flow first: its results are then plain buffers.
    SmallVector<Operation *> ops;
    function.walk([&](Operation *op) {
      if (isa<scf::ForOp, scf::WhileOp, scf::IfOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto loop = dyn_cast<scf::ForOp>(op))
        reuseLoopBuffers(loop, /*mayUnroll=*/true);
      else if (auto loop = dyn_cast<scf::WhileOp>(op))
        reuseWhileBuffers(loop);
      else
        reuseBranchBuffers(cast<scf::IfOp>(op));
    }
  }
};
} // namespace
