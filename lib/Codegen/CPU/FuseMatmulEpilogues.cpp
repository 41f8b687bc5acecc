//===- FuseMatmulEpilogues.cpp - consumers applied to matmul blocks -------===//
//
// A blocked matmul writes each block of C from vector accumulators. When C's
// only user is an elementwise linalg.generic, that generic runs on the block
// (its body on vectors, its other inputs read block by block) before the one
// write, so the product never goes to memory and back.
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::ember {
#define GEN_PASS_DEF_FUSEMATMULEPILOGUESPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

/// How an input of the consumer is read for the block at (i, j): the
/// generic's indexing map gives, for each of the input's dims, the loop dim
/// it follows (`dims`, -1 for a broadcast size-1 dim, read at 0).
struct BlockRead {
  SmallVector<int> dims;
  AffineMap permutation; // input dims -> block dims (constant 0: broadcast)
};

std::optional<BlockRead> blockRead(AffineMap map) {
  if (map.getNumDims() != 2 || map.getNumSymbols() != 0)
    return std::nullopt;
  MLIRContext *context = map.getContext();
  BlockRead read;
  SmallVector<AffineExpr> vectorDims(2, getAffineConstantExpr(0, context));
  SmallVector<bool> found(2, false);
  for (auto [position, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      unsigned d = dim.getPosition();
      if (found[d])
        return std::nullopt; // a diagonal
      found[d] = true;
      read.dims.push_back(static_cast<int>(d));
      vectorDims[d] = getAffineDimExpr(position, context);
    } else if (auto constant = dyn_cast<AffineConstantExpr>(expr);
               constant && constant.getValue() == 0) {
      read.dims.push_back(-1);
    } else {
      return std::nullopt;
    }
  }
  read.permutation = AffineMap::get(map.getNumResults(), 0, vectorDims, context);
  return read;
}

/// Whether `generic` can run on blocks: elementwise over C's shape, one
/// result of C's type, no index ops, its output only written.
bool isFusableConsumer(linalg::GenericOp generic, Value product) {
  if (generic.getNumDpsInits() != 1 || generic.getNumResults() != 1 ||
      generic.getResult(0).getType() != product.getType() || generic.getNumLoops() != 2 ||
      generic.getNumReductionLoops() != 0)
    return false;
  OpOperand *init = generic.getDpsInitOperand(0);
  if (!generic.getIndexingMapMatchingResult(generic->getResult(0)).isIdentity() ||
      !generic.getMatchingBlockArgument(init).use_empty())
    return false;
  bool readsProduct = false;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (input->get() != product)
      continue;
    if (!generic.getMatchingIndexingMap(input).isIdentity())
      return false;
    readsProduct = true;
  }
  if (!readsProduct)
    return false;
  // Only elementwise arith and math on scalars (their vector forms are the
  // same ops), and no integer division: lanes past the edges read padding
  // zeros, and a vector division by zero traps.
  for (Operation &op : generic.getBody()->without_terminator()) {
    if (isa<arith::ConstantOp>(op))
      continue; // splatted
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
        !op.hasTrait<OpTrait::Elementwise>() || op.getNumResults() != 1 ||
        isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::FloorDivSIOp,
            arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
      return false;
    for (Type type : llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
      if (!type.isIntOrIndexOrFloat())
        return false;
  }
  return true;
}

/// A blocked matmul found from its tagged block write: the outermost op whose
/// result is the product, that result, and the operand holding C's buffer.
/// Canonicalization folds loops of one iteration (one panel when C has no
/// more columns than a panel, one block of rows), so the root is the panel
/// loop, the rows loop or the write itself.
struct BlockedMatmul {
  Operation *root;
  Value product;
  OpOperand *buffer;
};

std::optional<BlockedMatmul> blockedMatmulOf(vector::TransferWriteOp write) {
  BlockedMatmul matmul{write, write.getResult(), &write.getBaseMutable()};
  // Up through the loops that carry C: the buffer is a loop's iteration
  // argument, and the loop yields what the level below produced.
  while (auto argument = dyn_cast<BlockArgument>(matmul.buffer->get())) {
    auto loop = dyn_cast<scf::ForOp>(argument.getOwner()->getParentOp());
    if (!loop)
      return std::nullopt;
    OpOperand *init = loop.getTiedLoopInit(argument);
    if (!init)
      return std::nullopt;
    unsigned position = argument.getArgNumber() - loop.getNumInductionVars();
    if (loop.getYieldedValues()[position] != matmul.product)
      return std::nullopt;
    matmul = {loop, loop.getResult(position), init};
  }
  return matmul;
}

struct FuseMatmulEpiloguesPass
    : ember::impl::FuseMatmulEpiloguesPassBase<FuseMatmulEpiloguesPass> {
  void runOnOperation() override {
    SmallVector<vector::TransferWriteOp> writes;
    getOperation().walk([&](vector::TransferWriteOp write) {
      if (write->hasAttr("ember.matmul_block_write"))
        writes.push_back(write);
    });
    for (vector::TransferWriteOp write : writes)
      fuse(write);
  }

  void fuse(vector::TransferWriteOp write) {
    std::optional<BlockedMatmul> found = blockedMatmulOf(write);
    if (!found || write.getIndices().size() != 2)
      return;
    Operation *matmul = found->root;
    Value product = found->product;
    // Sizes read from the product (a dynamic consumer's output) are C's
    // buffer's, known before the loops.
    for (Operation *user : llvm::make_early_inc_range(product.getUsers()))
      if (auto dim = dyn_cast<tensor::DimOp>(user)) {
        OpBuilder before(found->root);
        std::optional<int64_t> d = dim.getConstantIndex();
        if (!d)
          continue;
        dim.replaceAllUsesWith(
            tensor::DimOp::create(before, dim.getLoc(), found->buffer->get(), *d).getResult());
        dim.erase();
      }
    if (!product.hasOneUse())
      return;
    auto consumer = dyn_cast<linalg::GenericOp>(*product.getUsers().begin());
    if (!consumer || !isFusableConsumer(consumer, product))
      return;
    // The consumer's other inputs are read inside the matmul's loops, and its
    // output becomes the loops' buffer: they must exist before the loops (an
    // empty output made after them moves up).
    DominanceInfo dominance(getOperation());
    SmallVector<std::optional<BlockRead>> reads;
    for (OpOperand *input : consumer.getDpsInputOperands()) {
      reads.push_back(input->get() == product ? std::nullopt
                                              : blockRead(consumer.getMatchingIndexingMap(input)));
      if (input->get() != product &&
          (!reads.back() || !dominance.properlyDominates(input->get(), matmul)))
        return;
    }
    // Scalars the body uses from outside it (constants, in practice).
    Block *body = consumer.getBody();
    for (Operation &op : body->without_terminator())
      for (Value operand : op.getOperands())
        if (operand.getParentBlock() != body && !dominance.properlyDominates(operand, matmul))
          return;
    Value yielded = body->getTerminator()->getOperand(0);
    if (yielded.getParentBlock() != body && !dominance.properlyDominates(yielded, matmul))
      return;
    Value output = consumer.getDpsInits()[0];
    auto empty = output.getDefiningOp<tensor::EmptyOp>();
    if (!dominance.properlyDominates(output, matmul) &&
        !(empty && empty->getBlock() == matmul->getBlock()))
      return;
    if (!dominance.properlyDominates(output, matmul)) {
      // An empty output made after the loops moves before them, with its
      // sizes when they are known there (C's, read from its buffer above).
      if (!llvm::all_of(empty->getOperands(),
                        [&](Value size) { return dominance.properlyDominates(size, matmul); }))
        return;
      empty->moveBefore(matmul);
    }

    Location loc = consumer.getLoc();
    OpBuilder b(write);
    auto blockType = cast<VectorType>(write.getVector().getType());
    auto vectorOf = [&](Type scalar) { return VectorType::get(blockType.getShape(), scalar); };
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    SmallVector<Value> blockIndices(write.getIndices());
    SmallVector<bool> blockInBounds(write.getInBoundsValues());
    IRMapping mapping;
    for (auto [input, read] : llvm::zip(consumer.getDpsInputOperands(), reads)) {
      BlockArgument argument = consumer.getMatchingBlockArgument(input);
      if (input->get() == product) {
        mapping.map(argument, write.getVector());
        continue;
      }
      SmallVector<Value> indices;
      SmallVector<bool> inBounds(2, true); // broadcast dims are in bounds
      for (int d : read->dims) {
        indices.push_back(d < 0 ? zero : blockIndices[d]);
        if (d >= 0)
          inBounds[d] = blockInBounds[d];
      }
      Type element = argument.getType();
      Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
      mapping.map(argument, vector::TransferReadOp::create(b, loc, vectorOf(element), input->get(),
                                                           indices, read->permutation, padding,
                                                           /*mask=*/Value(),
                                                           b.getBoolArrayAttr(inBounds)));
    }
    // The body on vectors: each op with its scalar types made block-shaped;
    // scalars from outside the body are broadcast, constants splatted.
    for (Operation &op : body->without_terminator()) {
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        auto splat = SplatElementsAttr::get(vectorOf(constant.getType()), constant.getValue());
        mapping.map(constant.getResult(), arith::ConstantOp::create(b, loc, splat));
        continue;
      }
      for (Value operand : op.getOperands())
        if (!mapping.contains(operand) && operand.getParentBlock() != body)
          mapping.map(operand,
                      vector::BroadcastOp::create(b, loc, vectorOf(operand.getType()), operand));
      Operation *clone = b.clone(op, mapping);
      for (Value result : clone->getResults())
        result.setType(vectorOf(result.getType()));
    }
    Value result = mapping.lookupOrDefault(yielded);
    if (!isa<VectorType>(result.getType())) // a value from outside the body
      result = vector::BroadcastOp::create(b, loc, vectorOf(result.getType()), result);
    write.getValueToStoreMutable().assign(result);
    write->removeAttr("ember.matmul_block_write");
    // The last pass of a matmul in passes over k reads back the blocks the
    // earlier passes wrote (tagged reads of C's buffer): it goes on reading
    // those, now that it writes the consumer's output.
    Value earlier = found->buffer->get();
    matmul->walk([&](vector::TransferReadOp read) {
      if (read->hasAttr("ember.matmul_block_read"))
        read.getBaseMutable().assign(earlier);
    });
    // C's buffer is now the consumer's output.
    found->buffer->assign(output);
    consumer.getResult(0).replaceAllUsesWith(product);
    consumer.erase();
  }
};
} // namespace
