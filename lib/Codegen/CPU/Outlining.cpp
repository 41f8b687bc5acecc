//===- Outlining.cpp - ops moved into functions, identical ones shared ----===//

#include "Outlining.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

size_t mlir::ember::OutlinedFunctions::hashOf(func::FuncOp function) {
  llvm::hash_code hash = hash_value(function.getFunctionType());
  function.getBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(
        hash, OperationEquivalence::computeHash(op, OperationEquivalence::ignoreHashValue,
                                                OperationEquivalence::ignoreHashValue,
                                                OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

func::FuncOp mlir::ember::OutlinedFunctions::findOrAdd(func::FuncOp function) {
  SmallVector<func::FuncOp, 1> &candidates = byHash_[hashOf(function)];
  for (func::FuncOp known : candidates)
    if (known.getFunctionType() == function.getFunctionType() &&
        OperationEquivalence::isRegionEquivalentTo(&known.getBody(), &function.getBody(),
                                                   OperationEquivalence::IgnoreLocations))
      return known;
  candidates.push_back(function);
  return function;
}

std::pair<func::FuncOp, SmallVector<Value>>
mlir::ember::outlineIntoFunction(Operation *op, func::FuncOp parent, StringRef suffix,
                                 SymbolTable &symbols, OutlinedFunctions &outlined) {
  MLIRContext *context = op->getContext();
  Location loc = op->getLoc();
  llvm::SetVector<Value> captured(op->operand_begin(), op->operand_end());
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  SmallVector<Value> arguments;
  SmallVector<Operation *> constants;
  for (Value value : captured) {
    Operation *def = value.getDefiningOp();
    // Constants, and statically shaped empty tensors (a result's initial
    // value): the callee makes its own, and returns its result.
    if (def && (def->hasTrait<OpTrait::ConstantLike>() ||
                (isa<tensor::EmptyOp>(def) && def->getNumOperands() == 0)))
      constants.push_back(def);
    else
      arguments.push_back(value);
  }

  OpBuilder builder(context);
  builder.setInsertionPointToEnd(parent->getBlock());
  auto function = func::FuncOp::create(
      builder, loc, "outlined",
      FunctionType::get(context, ValueRange(arguments).getTypes(), op->getResultTypes()));
  Block *entry = function.addEntryBlock();
  IRMapping mapping;
  for (auto [value, argument] : llvm::zip(arguments, entry->getArguments()))
    mapping.map(value, argument);
  builder.setInsertionPointToStart(entry);
  for (Operation *constant : constants)
    builder.clone(*constant, mapping);
  Operation *clone = builder.clone(*op, mapping);
  func::ReturnOp::create(builder, loc, clone->getResults());

  func::FuncOp callee = outlined.findOrAdd(function);
  if (callee != function) {
    function.erase();
  } else {
    function.setPrivate();
    // Kept out of line in LLVM (func-to-llvm passes `passthrough` on).
    function->setAttr("passthrough",
                      ArrayAttr::get(context, {StringAttr::get(context, "noinline")}));
    function.setName((parent.getName() + suffix).str());
    symbols.insert(function); // renames it uniquely
  }
  builder.setInsertionPoint(op);
  auto call = func::CallOp::create(builder, loc, callee, arguments);
  op->replaceAllUsesWith(call.getResults());
  op->erase();
  return {callee, arguments};
}
