//===- Autodiff.cpp - reverse-mode differentiation of ember functions -----===//

#include "ember/Dialect/Ember/IR/EmberOps.h"
#include "ember/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::ember {
#define GEN_PASS_DEF_AUTODIFFPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;
using namespace mlir::ember;

namespace {
constexpr llvm::StringLiteral kDifferentiate = "ember.differentiate";
/// On a forward op: the caller has this op's result already (a GradientTape
/// recorded it while running eagerly) and passes it to the derivative as its
/// extra argument number N, after the cotangents, instead of recomputing it.
constexpr llvm::StringLiteral kForwardValue = "ember.forward_value";
/// On the function: the types of all the values the caller gives, in order.
constexpr llvm::StringLiteral kForwardValueTypes = "ember.forward_value_types";
/// On a generated derivative (what a caller's derivative calls get inlined from).
constexpr llvm::StringLiteral kDerivative = "ember.derivative";

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

Value zerosOf(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return ConstantOp::create(b, loc, DenseElementsAttr::get(tensor, b.getFloatAttr(tensor.getElementType(), 0)));
}

struct AutodiffPass : ember::impl::AutodiffPassBase<AutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseSet<Operation *> done, started;
    // Collected first: generating derivatives erases their declarations.
    SmallVector<func::FuncOp> marked;
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (func->hasAttr(kDifferentiate))
        marked.push_back(func);
    for (func::FuncOp func : marked)
      if (failed(process(module, func, done, started)))
        return signalPassFailure();
  }

  /// Differentiates `func` after the functions whose derivatives it calls (a
  /// value_and_grad traced inside it calls `<g>_vjp`, declared until g is
  /// differentiated); those calls are inlined first, so that gradients of
  /// gradients differentiate the inner derivative's ops.
  LogicalResult process(ModuleOp module, func::FuncOp func, llvm::DenseSet<Operation *> &done,
                        llvm::DenseSet<Operation *> &started) {
    if (done.contains(func))
      return success();
    if (!started.insert(func).second)
      return func.emitError("ember-autodiff: derivatives call each other in a cycle");
    SmallVector<func::CallOp> calls;
    func.walk([&](func::CallOp call) { calls.push_back(call); });
    for (func::CallOp call : calls) {
      StringRef callee = call.getCallee();
      if (!callee.ends_with("_vjp"))
        continue;
      auto inner = module.lookupSymbol<func::FuncOp>(callee.drop_back(4));
      if (inner && inner->hasAttr(kDifferentiate) && failed(process(module, inner, done, started)))
        return failure();
    }
    if (failed(inlineDerivativeCalls(module, func)) || failed(differentiate(module, func)))
      return failure();
    done.insert(func);
    return success();
  }

  /// Inlines the calls in `func` to generated derivatives (single-block
  /// functions), repeatedly, so that only ember ops remain to differentiate.
  static LogicalResult inlineDerivativeCalls(ModuleOp module, func::FuncOp func) {
    for (bool changed = true; changed;) {
      changed = false;
      SmallVector<func::CallOp> calls;
      func.walk([&](func::CallOp call) { calls.push_back(call); });
      for (func::CallOp call : calls) {
        auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal() || !callee->hasAttr(kDerivative))
          continue;
        if (!callee.getBody().hasOneBlock())
          return call.emitOpError("calls a derivative that is not a single block");
        Block &calleeBody = callee.getBody().front();
        IRMapping mapping;
        for (auto [argument, operand] : llvm::zip(calleeBody.getArguments(), call.getOperands()))
          mapping.map(argument, operand);
        OpBuilder b(call);
        for (Operation &op : calleeBody.without_terminator())
          b.clone(op, mapping);
        for (auto [result, returned] :
             llvm::zip(call.getResults(), calleeBody.getTerminator()->getOperands()))
          result.replaceAllUsesWith(mapping.lookupOrDefault(returned));
        call.erase();
        changed = true;
      }
    }
    return success();
  }

  using Adjoints = llvm::DenseMap<Value, Value>;

  /// Adds `cotangent` to the adjoint of `value` (float values only).
  static void accumulate(OpBuilder &b, Adjoints &adjoint, Value value, Value cotangent) {
    if (!cotangent || !isFloatTensor(value.getType()))
      return;
    auto [it, inserted] = adjoint.try_emplace(value, cotangent);
    if (!inserted)
      it->second = AddOp::create(b, value.getLoc(), it->second, cotangent);
  }

  /// The reverse sweep over `ops` (in program order), appending the backward
  /// ops to `block`.
  LogicalResult sweep(OpBuilder &b, Block *block, ArrayRef<Operation *> ops, Adjoints &adjoint) {
    for (Operation *op : llvm::reverse(ops)) {
      if (llvm::none_of(op->getResults(), [&](Value r) { return adjoint.count(r); }))
        continue;
      b.setInsertionPointToEnd(block);
      if (auto custom = dyn_cast<CustomGradientOp>(op)) {
        // The user's rule: the backward region, with the result's cotangent
        // as its argument, yields the inputs' cotangents. Nothing flows to
        // the ops that computed the value.
        Block &backward = custom.getBackward().front();
        IRMapping regionMapping;
        regionMapping.map(backward.getArgument(0), adjoint.lookup(custom.getResult()));
        for (Operation &inner : backward.without_terminator())
          b.clone(inner, regionMapping);
        auto yield = cast<YieldOp>(backward.getTerminator());
        for (auto [input, cotangent] : llvm::zip(custom.getInputs(), yield.getValues()))
          accumulate(b, adjoint, input, regionMapping.lookupOrDefault(cotangent));
        continue;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        if (failed(sweepIf(b, block, branch, adjoint)))
          return failure();
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (failed(sweepFor(b, block, loop, adjoint)))
          return failure();
        continue;
      }
      if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op)) {
        sweepSlice(b, op, adjoint);
        continue;
      }
      auto rule = dyn_cast<VJPOpInterface>(op);
      if (!rule) {
        if (op->getNumRegions() != 0)
          return op->emitOpError("is not differentiable by ember-autodiff yet (loops)");
        if (op->hasTrait<NoGradient>() ||
            llvm::none_of(op->getOperandTypes(), isFloatTensor))
          continue; // no gradient flows through it
        return op->emitOpError("has no gradient rule (VJPOpInterface)");
      }
      SmallVector<Value> resultCotangents;
      for (Value r : op->getResults()) {
        Value g = adjoint.lookup(r);
        resultCotangents.push_back(g                            ? g
                                   : isFloatTensor(r.getType()) ? splatLike(b, op->getLoc(), r, 0)
                                                                : Value());
      }
      SmallVector<Value> operandCotangents;
      if (failed(rule.buildVJP(b, resultCotangents, operandCotangents)))
        return op->emitOpError("failed to build its vector-Jacobian product");
      for (auto [operand, cotangent] : llvm::zip(op->getOperands(), operandCotangents))
        accumulate(b, adjoint, operand, cotangent);
    }
    return success();
  }

  /// The slices a differentiated loop stacks its iterations' state with
  /// (sweepFor), met again when that derivative is differentiated in turn
  /// (gradients of gradients through loops). An extract's cotangent goes in
  /// place into zeros of its source's shape; an insert's splits into the
  /// part its value wrote and the rest of its destination.
  static void sweepSlice(OpBuilder &b, Operation *op, Adjoints &adjoint) {
    Location loc = op->getLoc();
    auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets(), sizes = slice.getMixedSizes(),
                              strides = slice.getMixedStrides();
    Value g = adjoint.lookup(op->getResult(0));
    if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
      Value zeros = zerosOf(b, loc, extract.getSourceType());
      accumulate(b, adjoint, extract.getSource(),
                 tensor::InsertSliceOp::create(b, loc, g, zeros, offsets, sizes, strides));
      return;
    }
    auto insert = cast<tensor::InsertSliceOp>(op);
    if (isFloatTensor(insert.getSourceType()))
      accumulate(b, adjoint, insert.getSource(),
                 tensor::ExtractSliceOp::create(b, loc, insert.getSourceType(), g, offsets,
                                                sizes, strides));
    if (isFloatTensor(insert.getDestType())) {
      Value zeros = zerosOf(b, loc, insert.getSourceType());
      accumulate(b, adjoint, insert.getDest(),
                 tensor::InsertSliceOp::create(b, loc, zeros, g, offsets, sizes, strides));
    }
  }

  /// An scf.if: a backward scf.if on the same condition whose branches
  /// recompute their forward ops (values inside a branch are not visible
  /// outside it), sweep them, and yield the cotangents of the outer float
  /// values the branches use.
  LogicalResult sweepIf(OpBuilder &b, Block *block, scf::IfOp branch, Adjoints &adjoint) {
    Location loc = branch.getLoc();
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(branch->getRegions(), used);
    SmallVector<Value> captured;
    for (Value v : used)
      if (isFloatTensor(v.getType()))
        captured.push_back(v);
    SmallVector<Value> resultCotangents;
    for (Value r : branch.getResults()) {
      Value g = adjoint.lookup(r);
      resultCotangents.push_back(g                            ? g
                                 : isFloatTensor(r.getType()) ? splatLike(b, loc, r, 0)
                                                              : Value());
    }
    b.setInsertionPointToEnd(block);
    auto backward = scf::IfOp::create(b, loc, ValueRange(captured).getTypes(), branch.getCondition(),
                                      /*withElseRegion=*/true);
    for (auto [forwardRegion, backwardRegion] :
         {std::pair{&branch.getThenRegion(), &backward.getThenRegion()},
          std::pair{&branch.getElseRegion(), &backward.getElseRegion()}}) {
      if (backwardRegion->empty())
        backwardRegion->emplaceBlock();
      Block *inner = &backwardRegion->front();
      OpBuilder rb(b.getContext());
      rb.setInsertionPointToEnd(inner);
      IRMapping recompute;
      SmallVector<Operation *> clones;
      Block &forwardBlock = forwardRegion->front();
      for (Operation &op : forwardBlock.without_terminator())
        clones.push_back(rb.clone(op, recompute));
      Adjoints local;
      for (auto [yielded, cotangent] :
           llvm::zip(forwardBlock.getTerminator()->getOperands(), resultCotangents))
        accumulate(rb, local, recompute.lookupOrDefault(yielded), cotangent);
      if (failed(sweep(rb, inner, clones, local)))
        return failure();
      rb.setInsertionPointToEnd(inner);
      SmallVector<Value> yields;
      for (Value v : captured) {
        Value g = local.lookup(v);
        yields.push_back(g ? g : zerosOf(rb, loc, v.getType()));
      }
      scf::YieldOp::create(rb, loc, yields);
    }
    b.setInsertionPointToEnd(block);
    for (auto [v, g] : llvm::zip(captured, backward.getResults()))
      accumulate(b, adjoint, v, g);
    return success();
  }

  /// An scf.for with constant bounds and tensor loop variables: a second
  /// forward loop saves each iteration's variables into stacked tensors, then
  /// a reverse loop recomputes each iteration's body from its saved state and
  /// sweeps it, carrying the variables' cotangents and those of the outer
  /// float values the body uses.
  LogicalResult sweepFor(OpBuilder &b, Block *block, scf::ForOp loop, Adjoints &adjoint) {
    Location loc = loop.getLoc();
    auto lower = getConstantIntValue(loop.getLowerBound());
    auto upper = getConstantIntValue(loop.getUpperBound());
    auto step = getConstantIntValue(loop.getStep());
    if (!lower || !upper || !step || *step != 1)
      return loop.emitOpError("is differentiable by ember-autodiff only with constant bounds and step 1");
    for (Value v : loop.getInitArgs())
      if (!isa<RankedTensorType>(v.getType()))
        return loop.emitOpError("is differentiable by ember-autodiff only over tensor loop variables");
    int64_t count = std::max<int64_t>(0, *upper - *lower);
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(loop.getRegion(), used);
    SmallVector<Value> captured;
    for (Value v : used)
      if (isFloatTensor(v.getType()))
        captured.push_back(v);
    Block &body = *loop.getBody();
    auto index = [&](OpBuilder &ob, int64_t v) { return arith::ConstantIndexOp::create(ob, loc, v); };

    // 1. Forward again, stacking the state each iteration starts from.
    b.setInsertionPointToEnd(block);
    SmallVector<Value> stacks;
    for (Value v : loop.getInitArgs()) {
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape = {count};
      llvm::append_range(shape, type.getShape());
      stacks.push_back(tensor::EmptyOp::create(b, loc, shape, type.getElementType()));
    }
    SmallVector<Value> saveInits(loop.getInitArgs());
    llvm::append_range(saveInits, stacks);
    unsigned numVars = loop.getInitArgs().size();
    // The loops are created first and their bodies filled afterwards (not
    // from ForOp::create's body callback): while that callback runs, the
    // body's region has no parent op yet, and sweeping a nested scf.if or
    // scf.for there walks up the regions (getUsedValuesDefinedAbove) into
    // a null op.
    scf::ForOp saving = createLoop(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                                   loop.getStep(), saveInits);
    {
      Block *inner = saving.getBody();
      OpBuilder fb = OpBuilder::atBlockEnd(inner);
      Value iv = saving.getInductionVar();
      ValueRange args = saving.getRegionIterArgs();
      IRMapping mapping;
      mapping.map(body.getArgument(0), iv);
      for (unsigned v = 0; v < numVars; ++v)
        mapping.map(body.getArgument(1 + v), args[v]);
      Value slot = arith::SubIOp::create(fb, loc, iv, index(fb, *lower));
      SmallVector<Value> next;
      for (Operation &op : body.without_terminator())
        fb.clone(op, mapping);
      for (Value y : body.getTerminator()->getOperands())
        next.push_back(mapping.lookupOrDefault(y));
      for (unsigned v = 0; v < numVars; ++v)
        next.push_back(insertRow(fb, loc, args[v], args[numVars + v], slot));
      scf::YieldOp::create(fb, loc, next);
    }

    // 2. Backward, last iteration first.
    b.setInsertionPointAfter(saving);
    SmallVector<Value> inits;
    for (Value r : loop.getResults()) {
      Value g = adjoint.lookup(r);
      inits.push_back(g ? g : zerosOf(b, loc, r.getType()));
    }
    for (Value v : captured)
      inits.push_back(zerosOf(b, loc, v.getType()));
    scf::ForOp reverse = createLoop(b, loc, index(b, 0), index(b, count), index(b, 1), inits);
    {
      Block *inner = reverse.getBody();
      OpBuilder rb = OpBuilder::atBlockEnd(inner);
      Value t = reverse.getInductionVar();
      ValueRange carried = reverse.getRegionIterArgs();
      Value slot = arith::SubIOp::create(rb, loc, index(rb, count - 1), t);
      Value iv = arith::AddIOp::create(rb, loc, slot, index(rb, *lower));
      IRMapping recompute;
      recompute.map(body.getArgument(0), iv);
      SmallVector<Value> states;
      for (unsigned v = 0; v < numVars; ++v) {
        Value state = extractRow(rb, loc, saving.getResult(numVars + v), slot,
                                 cast<RankedTensorType>(loop.getInitArgs()[v].getType()));
        recompute.map(body.getArgument(1 + v), state);
        states.push_back(state);
      }
      SmallVector<Operation *> clones;
      for (Operation &op : body.without_terminator())
        clones.push_back(rb.clone(op, recompute));
      Adjoints local;
      for (unsigned v = 0; v < numVars; ++v)
        accumulate(rb, local, recompute.lookupOrDefault(body.getTerminator()->getOperand(v)),
                   carried[v]);
      if (failed(sweep(rb, inner, clones, local)))
        return failure();
      rb.setInsertionPointToEnd(inner);
      SmallVector<Value> next;
      for (unsigned v = 0; v < numVars; ++v) {
        Value g = local.lookup(states[v]);
        next.push_back(g ? g : zerosOf(rb, loc, states[v].getType()));
      }
      for (auto [c, v] : llvm::enumerate(captured)) {
        Value g = local.lookup(v);
        next.push_back(g ? (Value)AddOp::create(rb, loc, carried[numVars + c], g)
                         : carried[numVars + c]);
      }
      scf::YieldOp::create(rb, loc, next);
    }
    b.setInsertionPointToEnd(block);
    for (unsigned v = 0; v < numVars; ++v)
      accumulate(b, adjoint, loop.getInitArgs()[v], reverse.getResult(v));
    for (auto [c, v] : llvm::enumerate(captured))
      accumulate(b, adjoint, v, reverse.getResult(numVars + c));
    return success();
  }

  /// An scf.for with an empty body (no terminator): the caller fills it in
  /// once the loop is an operation of its own.
  static scf::ForOp createLoop(OpBuilder &b, Location loc, Value lower, Value upper, Value step,
                               ValueRange inits) {
    auto loop = scf::ForOp::create(b, loc, lower, upper, step, inits);
    Block *inner = loop.getBody();
    if (!inner->empty() && inner->back().hasTrait<OpTrait::IsTerminator>())
      inner->back().erase();
    return loop;
  }

  /// stack[slot] = value, for a stack of shape [n, value's shape...].
  static Value insertRow(OpBuilder &b, Location loc, Value value, Value stack, Value slot) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<OpFoldResult> offsets = {slot}, sizes = {b.getIndexAttr(1)}, strides(type.getRank() + 1, b.getIndexAttr(1));
    for (int64_t d : type.getShape()) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(d));
    }
    return tensor::InsertSliceOp::create(b, loc, value, stack, offsets, sizes, strides);
  }

  /// stack[slot], of `type`.
  static Value extractRow(OpBuilder &b, Location loc, Value stack, Value slot, RankedTensorType type) {
    SmallVector<OpFoldResult> offsets = {slot}, sizes = {b.getIndexAttr(1)}, strides(type.getRank() + 1, b.getIndexAttr(1));
    for (int64_t d : type.getShape()) {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(d));
    }
    return tensor::ExtractSliceOp::create(b, loc, type, stack, offsets, sizes, strides);
  }

  LogicalResult differentiate(ModuleOp module, func::FuncOp func) {
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return func.emitError("ember-autodiff needs a function with a single-block body");
    std::string name = (func.getName() + "_vjp").str();
    // Declared by a caller (value_and_grad traced inside another function):
    // generated here with the declared type.
    func::FuncOp declared;
    if (Operation *existing = module.lookupSymbol(name)) {
      declared = dyn_cast<func::FuncOp>(existing);
      if (!declared || !declared.isExternal())
        return success();
    }
    Location loc = func.getLoc();
    MLIRContext *context = &getContext();
    FunctionType type = func.getFunctionType();
    // With respect to which arguments: those listed (JAX's argnums), or
    // every float argument when the attribute is a unit.
    SmallVector<int64_t> wrt;
    if (auto listed = func->getAttrOfType<DenseI64ArrayAttr>(kDifferentiate)) {
      for (int64_t index : listed.asArrayRef()) {
        if (index < 0 || index >= static_cast<int64_t>(type.getNumInputs()))
          return func.emitError() << "ember.differentiate lists argument #" << index << " but @"
                                  << func.getName() << " has " << type.getNumInputs()
                                  << " arguments";
        if (!isFloatTensor(type.getInput(index)))
          return func.emitError() << "ember.differentiate lists argument #" << index << " of type "
                                  << type.getInput(index) << ": gradients need a float tensor";
        wrt.push_back(index);
      }
    } else {
      for (auto [index, input] : llvm::enumerate(type.getInputs()))
        if (isFloatTensor(input))
          wrt.push_back(static_cast<int64_t>(index));
    }
    SmallVector<Type> inputs(type.getInputs()), outputs(type.getResults());
    inputs.append(type.getResults().begin(), type.getResults().end()); // cotangents
    for (int64_t index : wrt)
      outputs.push_back(type.getInput(index));
    // Forward values given by the caller: numbered 0..n-1, one result each.
    // With `ember.forward_value_types` on the function the caller passes one
    // value of each listed type, whether or not its op survived the
    // clean-ups before this pass (a folded-away op's value goes unused).
    Block &original = func.getBody().front();
    auto givenTypes = func->getAttrOfType<ArrayAttr>(kForwardValueTypes);
    SmallVector<Operation *> given(givenTypes ? givenTypes.size() : 0);
    for (Operation &op : original.without_terminator()) {
      auto number = op.getAttrOfType<IntegerAttr>(kForwardValue);
      if (!number)
        continue;
      uint64_t n = number.getValue().getZExtValue();
      if (op.getNumResults() != 1 ||
          n >= (givenTypes ? givenTypes.size() : original.getOperations().size()))
        return op.emitOpError() << "has " << kForwardValue
                                << " but is not a single-result op numbered within the function";
      if (given.size() <= n)
        given.resize(n + 1);
      if (given[n])
        return op.emitOpError() << "repeats " << kForwardValue << " " << n;
      given[n] = &op;
    }
    for (auto [n, op] : llvm::enumerate(given)) {
      Type listed = givenTypes ? cast<TypeAttr>(givenTypes[n]).getValue() : Type();
      if (!op && !listed)
        return func.emitError() << kForwardValue << " " << n << " is missing";
      if (op && listed && op->getResult(0).getType() != listed)
        return op->emitOpError() << "has " << kForwardValue << " " << n << " of type "
                                 << op->getResult(0).getType() << " but the function lists "
                                 << listed;
      inputs.push_back(listed ? listed : op->getResult(0).getType());
    }

    auto vjpType = FunctionType::get(context, inputs, outputs);
    if (declared) {
      if (declared.getFunctionType() != vjpType)
        return declared.emitError() << "is declared as " << declared.getFunctionType()
                                    << " but the derivative of @" << func.getName() << " is "
                                    << vjpType;
      declared.erase();
    }
    OpBuilder b(context);
    b.setInsertionPointAfter(func);
    auto vjp = func::FuncOp::create(b, loc, name, vjpType);
    vjp->setAttr(kDerivative, b.getUnitAttr());
    if (declared) { // only wanted for its derivative: both go once inlined
      vjp.setPrivate();
      func.setPrivate();
    }
    for (NamedAttribute attr : func->getAttrs())
      if (attr.getName() != kDifferentiate && attr.getName() != kForwardValueTypes &&
          attr.getName() != func.getSymNameAttrName() &&
          attr.getName() != func.getFunctionTypeAttrName())
        vjp->setAttr(attr.getName(), attr.getValue());
    Block *body = vjp.addEntryBlock();
    b.setInsertionPointToStart(body);

    // Forward: the original ops, on the new arguments.
    IRMapping mapping;
    for (auto [from, to] : llvm::zip(original.getArguments(), body->getArguments()))
      mapping.map(from, to);
    SmallVector<Operation *> forward;
    for (Operation &op : original.without_terminator())
      forward.push_back(b.clone(op, mapping));
    auto ret = cast<func::ReturnOp>(original.getTerminator());
    SmallVector<Value> results;
    for (Value v : ret.getOperands())
      results.push_back(mapping.lookupOrDefault(v));

    // Backward: cotangents, summed where a value is used more than once.
    Adjoints adjoint;
    unsigned numArgs = type.getNumInputs();
    b.setInsertionPointToEnd(body);
    for (auto [i, result] : llvm::enumerate(results))
      accumulate(b, adjoint, result, body->getArgument(numArgs + i));
    if (failed(sweep(b, body, forward, adjoint)))
      return failure();

    b.setInsertionPointToEnd(body);
    SmallVector<Value> returned(results);
    for (int64_t index : wrt) {
      BlockArgument argument = body->getArgument(index);
      Value g = adjoint.lookup(argument);
      returned.push_back(g ? g : splatLike(b, loc, argument, 0));
    }
    func::ReturnOp::create(b, loc, returned);

    // Values the caller gives replace their forward ops, which then go away.
    unsigned firstGiven = numArgs + type.getNumResults();
    for (auto [n, op] : llvm::enumerate(given)) {
      if (!op)
        continue;
      Operation *clone = mapping.lookup(op->getResult(0)).getDefiningOp();
      clone->getResult(0).replaceAllUsesWith(body->getArgument(firstGiven + n));
      clone->erase();
    }
    return success();
  }
};
} // namespace
