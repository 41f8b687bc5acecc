//===- LowerMatmuls.cpp - matmuls shaped for CPU vector registers ---------===//
//
// convert-ember-to-linalg leaves matmuls as linalg.matmul / batch_matmul,
// the same for every target. For CPUs they become loops over vector
// registers here; GPUs generalize them and tile them through shared memory
// (Codegen/CUDA/TiledMatmul).
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "BFloat16Matmul.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <array>
#include <cstring>

namespace mlir::ember {
#define GEN_PASS_DEF_LOWERMATMULSPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

/// A new tensor of `type`; `sizes` holds one index per dynamic dim of it.
static Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type, ValueRange sizes = {}) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(), sizes);
}

/// The size of `value`'s dim `d`: a constant when it is static.
static Value sizeOf(OpBuilder &b, Location loc, Value value, int64_t d) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(d));
  return tensor::DimOp::create(b, loc, value, d);
}

/// C[b..., i, j] += A[b..., i, k] * B[b..., k, j] as a linalg.generic
/// accumulating into `init`, its loops run (b..., i, k, j): the innermost
/// loop walks rows of B and C contiguously, so it vectorizes, where
/// linalg.matmul's (i, j, k) order would reduce a strided column in the
/// innermost loop. With `reductionInnermost` they run (b..., i, j, k).
static Value emitMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs, Value init,
                        bool reductionInnermost) {
  auto resultType = cast<RankedTensorType>(init.getType());
  int64_t batch = resultType.getRank() - 2;
  int64_t i = batch, k = batch + 1, j = batch + 2, loops = batch + 3;
  if (reductionInnermost)
    std::swap(k, j);
  auto map = [&](std::initializer_list<int64_t> dims) {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < batch; ++d)
      exprs.push_back(b.getAffineDimExpr(d));
    for (int64_t d : dims)
      exprs.push_back(b.getAffineDimExpr(d));
    return AffineMap::get(loops, 0, exprs, b.getContext());
  };
  SmallVector<AffineMap> maps = {map({i, k}), map({k, j}), map({i, j})};
  SmallVector<utils::IteratorType> iterators(loops, utils::IteratorType::parallel);
  iterators[k] = utils::IteratorType::reduction;
  bool isFloat = isa<FloatType>(resultType.getElementType());
  return linalg::GenericOp::create(
             b, loc, resultType, ValueRange{lhs, rhs}, init, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value product = isFloat ? (Value)arith::MulFOp::create(nb, nloc, args[0], args[1])
                                       : (Value)arith::MulIOp::create(nb, nloc, args[0], args[1]);
               Value sum = isFloat ? (Value)arith::AddFOp::create(nb, nloc, args[2], product)
                                   : (Value)arith::AddIOp::create(nb, nloc, args[2], product);
               linalg::YieldOp::create(nb, nloc, sum);
             })
      .getResult(0);
}

/// A matrix that is a gather of another tensor, read in place: the
/// collapse of a linalg.generic that copies `source` through the affine map
/// `read` (a convolution's patches, [N, OH, OW, KH, KW, C] collapsed to
/// [N * OH * OW, KH * KW * C]). Its rows and columns are the products of
/// the generic's loops `rowDims` and `columnDims`, in order, whose sizes are
/// those of `loopSizes` (the generic's init; a `?` batch or channel count
/// is read from it).
struct Gather {
  Value source;
  AffineMap read;
  Value loopSizes;
  SmallVector<int64_t> rowDims, columnDims;
};

/// One operand of a blocked matmul: the tensor as stored, and whether it is
/// stored transposed (a transpose folded into the matmul, as the backward
/// pass's A^T @ dC and dC @ B^T are), or a gather read in place.
struct MatmulOperand {
  Value stored;
  bool transposed = false;
  std::optional<Gather> gather;
};

/// What `op` writes to each element of its init, when it has one input and
/// one init, read and written through its loops in order (all parallel, the
/// init's map the identity): the value its body yields; else null.
static Value yieldedPerElement(linalg::GenericOp op) {
  if (!op || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || !op.getIndexingMapsArray()[1].isIdentity())
    return {};
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  return yield.getValues().size() == 1 ? yield.getValues()[0] : Value();
}

/// Whether `copy` copies its one input through an affine map into its
/// init, element for element, all loops parallel: a gather.
static bool isGatheringCopy(linalg::GenericOp copy) {
  Value yielded = yieldedPerElement(copy);
  return yielded && yielded == copy.getBody()->getArgument(0);
}

/// `value` as the gather of a tensor: a 2-D collapse_shape of a
/// linalg.generic whose body yields its one input, which it reads through a
/// projected affine map, and whose loops are all parallel.
static std::optional<Gather> asGather(Value value) {
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getResultType().getRank() != 2)
    return std::nullopt;
  auto copy = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
  if (!isGatheringCopy(copy))
    return std::nullopt;
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  return Gather{copy.getDpsInputs()[0], copy.getIndexingMapsArray()[0], copy.getDpsInits()[0],
                llvm::to_vector(groups[0]), llvm::to_vector(groups[1])};
}

/// The matmul operand `value`, looking through a 2-D linalg.transpose so
/// that the matmul reads the transpose's input in place.
static MatmulOperand matmulOperand(Value value) {
  if (auto transpose = value.getDefiningOp<linalg::TransposeOp>())
    if (transpose.getPermutation() == ArrayRef<int64_t>{1, 0})
      return {transpose.getInput(), true, std::nullopt};
  return {value, false, std::nullopt};
}

/// `row` split into its coordinates along dims of `sizes` (row-major; the
/// first size is not read).
static SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value row,
                                      ArrayRef<Value> sizes) {
  SmallVector<Value> coordinates(sizes.size());
  for (int64_t d = sizes.size() - 1; d >= 0; --d) {
    coordinates[d] = d == 0 ? row : arith::RemUIOp::create(b, loc, row, sizes[d]).getResult();
    if (d > 0)
      row = arith::DivUIOp::create(b, loc, row, sizes[d]);
  }
  return coordinates;
}

/// Nested scf.for loops over `extents` carrying `inits`; `body` returns the
/// next values from the loops' indices (outer first) and the current ones.
static SmallVector<Value>
reductionLoops(OpBuilder &b, Location loc, ArrayRef<Value> extents, ValueRange inits,
               function_ref<SmallVector<Value>(OpBuilder &, ValueRange, ValueRange)> body,
               SmallVector<Value> outer = {}) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, zero, extents.front(), one, inits,
      [&](OpBuilder &lb, Location, Value iv, ValueRange args) {
        SmallVector<Value> ivs = outer;
        ivs.push_back(iv);
        SmallVector<Value> next =
            extents.size() == 1 ? body(lb, ivs, args)
                                : reductionLoops(lb, loc, extents.drop_front(), args, body, ivs);
        scf::YieldOp::create(lb, loc, next);
      });
  return SmallVector<Value>(loop.getResults());
}

/// Copies `rows` rows of B (from row `firstRow`) of the panel at column `j`,
/// `pieces` vectors of `lanes` each, into `dest` at [prefix..., row, 0]:
/// vector copies, masked past B's last column unless `wholeColumns`.
static Value copyPanelRows(OpBuilder &b, Location loc, Value rhs, Value firstRow, Value rows,
                           Value j, int64_t pieces, int64_t lanes, bool wholeColumns, Value dest,
                           ValueRange prefix = {}) {
  auto element = cast<ShapedType>(rhs.getType()).getElementType();
  auto vectorType = VectorType::get({lanes}, element);
  Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  auto index = [&](OpBuilder &ob, int64_t v) { return arith::ConstantIndexOp::create(ob, loc, v); };
  auto copy = scf::ForOp::create(
      b, loc, index(b, 0), rows, index(b, 1), ValueRange{dest},
      [&](OpBuilder &cb, Location, Value kk, ValueRange copyArgs) {
        Value row = arith::AddIOp::create(cb, loc, firstRow, kk);
        Value written = copyArgs[0];
        for (int64_t v = 0; v < pieces; ++v) {
          Value column = arith::AddIOp::create(cb, loc, j, index(cb, v * lanes));
          Value piece = vector::TransferReadOp::create(cb, loc, vectorType, rhs,
                                                       ValueRange{row, column}, padding,
                                                       ArrayRef<bool>{wholeColumns});
          SmallVector<Value> at(prefix);
          at.append({kk, index(cb, v * lanes)});
          written = vector::TransferWriteOp::create(cb, loc, piece, written, at,
                                                    ArrayRef<bool>{true})
                        .getResult();
        }
        scf::YieldOp::create(cb, loc, written);
      });
  return copy.getResult(0);
}

/// One k step of a register block: acc[r * pieces + v] + A[r] * B[v] for
/// each of `rows` rows (A[r] from `aValue`, broadcast) and vector piece v of
/// B's row (`bRow`), as fused multiply-adds for floats, multiplies and adds
/// for integers.
static SmallVector<Value> multiplyAddRows(OpBuilder &b, Location loc, int64_t rows,
                                          function_ref<Value(int64_t)> aValue,
                                          ArrayRef<Value> bRow, ValueRange acc) {
  auto vectorType = cast<VectorType>(bRow.front().getType());
  bool isFloat = isa<FloatType>(vectorType.getElementType());
  SmallVector<Value> next;
  for (int64_t r = 0; r < rows; ++r) {
    Value aSplat = vector::BroadcastOp::create(b, loc, vectorType, aValue(r));
    for (auto [v, bPiece] : llvm::enumerate(bRow)) {
      Value sum = acc[r * bRow.size() + v];
      next.push_back(isFloat ? Value(vector::FMAOp::create(b, loc, aSplat, bPiece, sum))
                             : Value(arith::AddIOp::create(
                                   b, loc, sum, arith::MulIOp::create(b, loc, aSplat, bPiece))));
    }
  }
  return next;
}

/// The rows x (pieces x lanes) block of C from its accumulators, one vector
/// of `lanes` per row and piece.
static Value blockOf(OpBuilder &b, Location loc, ArrayRef<Value> sums, Value blockZeros,
                     int64_t rows, int64_t pieces, int64_t lanes) {
  Value block = blockZeros;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < pieces; ++v)
      block = vector::InsertStridedSliceOp::create(b, loc, sums[r * pieces + v], block,
                                                   ArrayRef<int64_t>{r, v * lanes},
                                                   ArrayRef<int64_t>{1});
  return block;
}

/// The depth of each pass over k of a k-blocked matmul: a divisor of `k`
/// from 512 down to 256 (a panel of B that deep, 96 KB at most, streams
/// from L2 while A's rows stay in L1), or 0 when `k` has none or needs
/// fewer than two passes.
static int64_t passDepth(int64_t k) {
  for (int64_t depth = std::min<int64_t>(512, k / 2); depth >= 256; --depth)
    if (k % depth == 0)
      return depth;
  return 0;
}

/// A large matmul in passes over k, GotoBLAS's way (the blocked kernel of
/// emitBlockedMatmul, 8 rows x 3 vectors, AVX-512). The columns are split
/// into blocks of panels, one block per task of the parallel loop; for each
/// block, each pass packs its `depth` rows of B's panels (512 KB at most,
/// kept in L2) and runs every block of 8 rows of A over them, panel after
/// panel, so that those rows' `depth` columns (16 KB) stay in L1 and A comes
/// from memory once per block rather than once per panel. Passes after the
/// first add to C's blocks. (SGEMM 4096 on one Ice Lake core, 40 rounds
/// taking turns in one process: 11% faster than one pass over all of k.)
static Value emitPassBlockedMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                                   RankedTensorType resultType, int64_t lanes, int64_t depth) {
  Type element = resultType.getElementType();
  int64_t m = resultType.getDimSize(0), n = resultType.getDimSize(1);
  int64_t k = cast<RankedTensorType>(lhs.getType()).getDimSize(1);
  const int64_t kRows = 8, pieces = 3, columns = pieces * lanes;
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t panels = (n + columns - 1) / columns;
  // Blocks of panels: at most 512 KB of packed B each (with 768 KB, 4096^3
  // on 2 threads ran 1.73x as fast as on 1, with 512 KB 1.83-1.97x), and a
  // multiple of 4 of them with as even a share of panels as can be, so that
  // 2 or 4 threads split them evenly.
  int64_t perBlock = std::max<int64_t>(1, (512 << 10) / (depth * columns * elementBytes));
  int64_t blocks = std::min(panels, ((panels + perBlock - 1) / perBlock + 3) / 4 * 4);
  int64_t mostPanels = (panels + blocks - 1) / blocks;
  bool isFloat = isa<FloatType>(element);
  bool wholeRows = m % kRows == 0, wholeColumns = n % columns == 0;
  auto index = [&](OpBuilder &ob, int64_t v) { return arith::ConstantIndexOp::create(ob, loc, v); };
  auto vectorType = VectorType::get({lanes}, element);
  auto blockType = VectorType::get({kRows, columns}, element);
  auto packType = RankedTensorType::get({mostPanels, depth, columns}, element);
  TypedAttr zeroAttr = b.getZeroAttr(element);
  Value padding = arith::ConstantOp::create(b, loc, zeroAttr);
  Value zeros = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vectorType, zeroAttr));
  Value blockZeros = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(blockType, zeroAttr));
  // One pass: k in [pc, pc + depth), C written (the first) or added to. The
  // last one's block writes are where ember-fuse-matmul-epilogues applies
  // a consumer (its reads of C then keep reading the earlier passes' C).
  auto pass = [&](OpBuilder &pb, Value pc, Value cInit, bool first, bool last) {
    auto blockLoop = scf::ForOp::create(
        pb, loc, index(pb, 0), index(pb, blocks), index(pb, 1), ValueRange{cInit},
        [&](OpBuilder &bb, Location, Value blk, ValueRange blockArgs) {
          auto panelOf = [&](Value at) {
            return arith::DivUIOp::create(
                bb, loc, arith::MulIOp::create(bb, loc, at, index(bb, panels)), index(bb, blocks));
          };
          Value lo = panelOf(blk);
          Value hi = panelOf(arith::AddIOp::create(bb, loc, blk, index(bb, 1)));
          // The block's panels of B, rows [pc, pc + depth): [panel, k, column].
          auto pack = scf::ForOp::create(
              bb, loc, lo, hi, index(bb, 1), ValueRange{emptyTensor(bb, loc, packType)},
              [&](OpBuilder &qb, Location, Value q, ValueRange packArgs) {
                Value local = arith::SubIOp::create(qb, loc, q, lo);
                Value j = arith::MulIOp::create(qb, loc, q, index(qb, columns));
                scf::YieldOp::create(qb, loc,
                                     copyPanelRows(qb, loc, rhs, pc, index(qb, depth), j, pieces,
                                                   lanes, wholeColumns, packArgs[0], {local}));
              });
          Value packed = pack.getResult(0);
          auto rowBlocks = scf::ForOp::create(
              bb, loc, index(bb, 0), index(bb, m), index(bb, kRows), ValueRange{blockArgs[0]},
              [&](OpBuilder &ib, Location, Value i, ValueRange rowArgs) {
                Value lastRow = index(ib, m - 1);
                SmallVector<Value> rowIndex;
                for (int64_t r = 0; r < kRows; ++r) // rows past the end read the last
                  rowIndex.push_back(arith::MinSIOp::create(
                      ib, loc, arith::AddIOp::create(ib, loc, i, index(ib, r)), lastRow));
                auto panelLoop = scf::ForOp::create(
                    ib, loc, lo, hi, index(ib, 1), rowArgs,
                    [&](OpBuilder &jb, Location, Value q, ValueRange panelArgs) {
                      Value local = arith::SubIOp::create(jb, loc, q, lo);
                      Value j = arith::MulIOp::create(jb, loc, q, index(jb, columns));
                      SmallVector<Value> accInit(kRows * pieces, zeros);
                      SmallVector<Value> sums = reductionLoops(
                          jb, loc, {index(jb, depth)}, accInit,
                          [&](OpBuilder &kb, ValueRange ivs, ValueRange acc) {
                            Value kk = ivs.front();
                            Value kAt = arith::AddIOp::create(kb, loc, pc, kk);
                            SmallVector<Value> bRow;
                            for (int64_t v = 0; v < pieces; ++v)
                              bRow.push_back(vector::TransferReadOp::create(
                                  kb, loc, vectorType, packed,
                                  ValueRange{local, kk, index(kb, v * lanes)}, padding,
                                  ArrayRef<bool>{true}));
                            return multiplyAddRows(
                                kb, loc, kRows,
                                [&](int64_t r) -> Value {
                                  return tensor::ExtractOp::create(kb, loc, lhs,
                                                                   ValueRange{rowIndex[r], kAt});
                                },
                                bRow, acc);
                          });
                      Value block = blockOf(jb, loc, sums, blockZeros, kRows, pieces, lanes);
                      SmallVector<bool> inBounds = {wholeRows, wholeColumns};
                      if (!first) {
                        auto old = vector::TransferReadOp::create(
                            jb, loc, blockType, panelArgs[0], ValueRange{i, j}, padding, inBounds);
                        old->setAttr("ember.matmul_block_read", jb.getUnitAttr());
                        block = isFloat ? Value(arith::AddFOp::create(jb, loc, block, old))
                                        : Value(arith::AddIOp::create(jb, loc, block, old));
                      }
                      auto write = vector::TransferWriteOp::create(
                          jb, loc, block, panelArgs[0], ValueRange{i, j},
                          AffineMap::getMultiDimIdentityMap(2, jb.getContext()), inBounds);
                      if (last)
                        write->setAttr("ember.matmul_block_write", jb.getUnitAttr());
                      scf::YieldOp::create(jb, loc, write.getResult());
                    });
                // C's blocks, last touched a pass ago, are fetched early
                // (ember-cpu-prefetch-matmul-blocks, after bufferization).
                if (!first)
                  panelLoop->setAttr("ember.matmul_adds_to_blocks", ib.getUnitAttr());
                scf::YieldOp::create(ib, loc, panelLoop.getResult(0));
              });
          scf::YieldOp::create(bb, loc, rowBlocks.getResult(0));
        });
    // ember-cpu-parallelize splits the blocks among the threads.
    blockLoop->setAttr("ember.blocked_matmul_rows", pb.getI64IntegerAttr(m * n * depth));
    return blockLoop.getResult(0);
  };
  Value c = pass(b, index(b, 0), emptyTensor(b, loc, resultType), /*first=*/true, false);
  if (k > 2 * depth) {
    auto passes = scf::ForOp::create(
        b, loc, index(b, depth), index(b, k - depth), index(b, depth), ValueRange{c},
        [&](OpBuilder &pb, Location, Value pc, ValueRange args) {
          scf::YieldOp::create(pb, loc, pass(pb, pc, args[0], false, false));
        });
    c = passes.getResult(0);
  }
  return pass(b, index(b, k - depth), c, false, /*last=*/true);
}

/// The values of a constant matrix (a layer's weights), seen through
/// reshapes (which keep the elements' order); null if it is not one.
static DenseElementsAttr constantValues(Value value) {
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  DenseElementsAttr values;
  if (!matchPattern(value, m_Constant(&values)) ||
      values.getElementType().getIntOrFloatBitWidth() % 8)
    return {};
  return values;
}

/// The panels [count, k, columns] of a constant B of k x n values (stored
/// n x k when `transposed`), packed while compiling: panel p's row kk holds
/// B[kk, p * columns + c]; columns past the end are zeros (masked when C is
/// written).
static DenseElementsAttr packedPanels(DenseElementsAttr values, bool transposed, int64_t k,
                                      int64_t n, RankedTensorType panelsType) {
  if (values.isSplat())
    return DenseElementsAttr::get(panelsType, values.getSplatValue<Attribute>());
  int64_t count = panelsType.getDimSize(0), columns = panelsType.getDimSize(2);
  size_t size = values.getElementType().getIntOrFloatBitWidth() / 8;
  ArrayRef<char> from = values.getRawData();
  std::vector<char> panels(static_cast<size_t>(count * k * columns) * size, 0);
  for (int64_t p = 0; p < count; ++p)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t c = 0, column = p * columns; c < columns && column < n; ++c, ++column) {
        int64_t at = transposed ? column * k + kk : kk * n + column;
        std::memcpy(&panels[((p * k + kk) * columns + c) * size], &from[at * size], size);
      }
  return DenseElementsAttr::getFromRawBuffer(panelsType, panels);
}

/// A register-blocked matmul for larger sizes (floats with fused
/// multiply-adds, integers with multiplies and adds). The columns of C are
/// walked in panels of `columns` (two or three vectors); for each panel
/// every block of kRows rows keeps kRows rows of vector accumulators over k
/// (C[i+r, j:j+columns] += A[i+r, k] * B[k, j:j+columns]) and writes them
/// once. Panel-outer order keeps B's panel in cache while A's rows pass
/// over it; tall matmuls of several panels run in groups of rows, every
/// panel passing over one group before the next. A transposed A is read in
/// place (A[i, k] = At[k, i]), and so is a gathered one; a transposed B, one
/// whose columns do not fill whole panels, or one whose panels are larger
/// than L1 is first packed into a contiguous k x columns panel, so that
/// every read of B is a plain (unmasked) vector load from one stream.
/// Transfers past the edges are masked (rows past the end read A's last
/// row), so any size works. The loops stay on tensors; bufferization makes
/// them write C in place. Sizes known only at run time (`?` dims) take
/// the choices that suit large ones: packed panels, no row groups or passes
/// over k.
static Value emitBlockedMatmul(OpBuilder &b, Location loc, MatmulOperand lhs, MatmulOperand rhs,
                               RankedTensorType resultType, unsigned vectorBits) {
  Type element = resultType.getElementType();
  int64_t m = resultType.getDimSize(0), n = resultType.getDimSize(1);
  int64_t k = cast<RankedTensorType>(lhs.stored.getType()).getDimSize(lhs.transposed ? 0 : 1);
  bool dynamicM = ShapedType::isDynamic(m), dynamicN = ShapedType::isDynamic(n),
       dynamicK = ShapedType::isDynamic(k);
  bool tall = dynamicM || m >= 128;
  // Panels of two vectors, or of one when C is no wider than one (a
  // convolution with 16 filters): no lanes masked off in every block.
  int64_t lanes = std::max<int64_t>(1, vectorBits / element.getIntOrFloatBitWidth());
  // On AVX-512, tall matmuls take panels of three vectors and blocks of 8
  // rows (24 accumulators of 32 registers): A, read once per panel, is read
  // a third less often than with two, and each k step loads 11 values for
  // 24 FMAs rather than 14 (SGEMM 4096, one process taking turns with
  // OpenBLAS: about 4% faster), unless C's width leaves more than 4% of the
  // last panel's columns idle (n = 256: a third of a panel).
  int64_t wideColumns = 3 * lanes;
  int64_t widePadded = (n + wideColumns - 1) / wideColumns * wideColumns;
  bool wide =
      vectorBits >= 512 && tall && !dynamicN && n > wideColumns && widePadded * 25 <= n * 26;
  int64_t columns = !dynamicN && n <= lanes ? lanes : wide ? wideColumns : 2 * lanes;
  // 6 rows of two registers: 12 accumulators, two B vectors and a broadcast
  // of A fit the 16 registers of AVX2. Panels of one vector, and on AVX-512
  // (32 registers) tall matmuls of two-vector panels, take 12 rows: each B
  // vector loaded serves twice the FMAs (SGEMM 1024 and 4096: 0.94x and
  // 0.89x OpenBLAS -> 0.97x).
  int64_t kRows = wide ? 8 : columns == lanes || (vectorBits >= 512 && tall) ? 12 : 6;
  // Short ones on AVX-512 take 7-row blocks where those compute fewer rows
  // than 6-row ones: a block reaching past the last row costs as much as a
  // full one. ResNet-18's 7x7 convolutions (m = 49) run 9% faster so, its
  // 14x14 ones (m = 196) 0-8%. (Measured there: 8-row blocks 10% slower than
  // 6-row ones, and 12-row blocks for m = 48 4% slower; taller ones are left
  // to tall matmuls.)
  if (vectorBits >= 512 && !tall && !dynamicM && columns == 2 * lanes) {
    auto rowsComputed = [&](int64_t rows) { return (m + rows - 1) / rows * rows; };
    if (rowsComputed(7) < rowsComputed(kRows))
      kRows = 7;
  }
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  bool dynamic = dynamicM || dynamicN || dynamicK;
  // Large ones run in passes over k when k is long (1024^3, 2048x1024x2048:
  // 8-10% faster than row groups, on 1 and 2 threads) or B outgrows the
  // last-level cache (where row groups stop); at k = 512 the two are even.
  int64_t depth = dynamic ? 0 : passDepth(k);
  if (wide && depth && !lhs.transposed && !lhs.gather && !rhs.transposed &&
      (k >= 1024 || k * n * elementBytes > (8 << 20)) && m >= 2 * kRows)
    return emitPassBlockedMatmul(b, loc, lhs.stored, rhs.stored, resultType, lanes, depth);
  // A panel row is `pieces` vectors of `lanes`, each its own value (a
  // vector three registers wide would be legalized by LLVM as four).
  int64_t pieces = columns / lanes;
  auto vectorType = VectorType::get({lanes}, element);
  auto blockType = VectorType::get({kRows, columns}, element);
  auto panelType = RankedTensorType::get({k, columns}, element);
  auto index = [&](OpBuilder &ob, int64_t v) { return arith::ConstantIndexOp::create(ob, loc, v); };
  Value zero = index(b, 0);
  Value mSize = sizeOf(b, loc, lhs.stored, lhs.transposed ? 1 : 0);
  Value nSize = sizeOf(b, loc, rhs.stored, rhs.transposed ? 0 : 1);
  Value kSize = sizeOf(b, loc, lhs.stored, lhs.transposed ? 0 : 1);
  // A gathered A's row and column loops: their sizes (constants, or a `?`
  // batch or channel count read at run time), whose products are M and K
  // (not read from the gathered copy, which then goes unused).
  SmallVector<Value> gatherRowSizes, gatherColumnSizes;
  if (lhs.gather) {
    auto product = [&](ArrayRef<int64_t> dims, SmallVector<Value> &sizes) {
      Value total = index(b, 1);
      for (int64_t d : dims) {
        sizes.push_back(sizeOf(b, loc, lhs.gather->loopSizes, d));
        total = arith::MulIOp::create(b, loc, total, sizes.back());
      }
      return total;
    };
    Value rows = product(lhs.gather->rowDims, gatherRowSizes);
    Value depth = product(lhs.gather->columnDims, gatherColumnSizes);
    if (dynamicM)
      mSize = rows;
    if (dynamicK)
      kSize = depth;
  }
  SmallVector<Value> panelSizes; // a packed panel's k, when it is dynamic
  if (dynamicK)
    panelSizes.push_back(kSize);
  bool wholeRows = !dynamicM && m % kRows == 0, wholeColumns = !dynamicN && n % columns == 0;
  TypedAttr zeroAttr = b.getZeroAttr(element);
  Value padding = arith::ConstantOp::create(b, loc, zeroAttr);
  Value zeros = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vectorType, zeroAttr));
  Value blockZeros = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(blockType, zeroAttr));
  SmallVector<Value> resultSizes;
  if (dynamicM)
    resultSizes.push_back(mSize);
  if (dynamicN)
    resultSizes.push_back(nSize);
  Value init = emptyTensor(b, loc, resultType, resultSizes);
  // B's panel is packed into a contiguous k x columns tensor when B is
  // transposed, when the last panel is partial, or when a panel would not
  // stay in L1 (its rows are a row of B apart: packing makes it one
  // contiguous stream; a panel as wide as B is one already). Columns past
  // the end repeat B's last row; they are masked when written.
  int64_t panelBytes = dynamicK ? std::numeric_limits<int64_t>::max() : k * columns * elementBytes;
  bool packed = rhs.transposed || !wholeColumns || (panelBytes > (16 << 10) && n != columns);
  auto packPanel = [&](OpBuilder &jb, Value j) {
    Value panel;
    if (!rhs.transposed) { // row by row, vector copies
      panel = copyPanelRows(jb, loc, rhs.stored, index(jb, 0), kSize, j, pieces, lanes,
                            wholeColumns, emptyTensor(jb, loc, panelType, panelSizes));
    } else { // B^T: element by element
      Value lastColumn = arith::SubIOp::create(jb, loc, nSize, index(jb, 1));
      SmallVector<AffineMap> maps = {jb.getMultiDimIdentityMap(2)};
      SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
      panel =
          linalg::GenericOp::create(
              jb, loc, panelType, ValueRange{}, emptyTensor(jb, loc, panelType, panelSizes), maps,
              iterators,
              [&](OpBuilder &pb, Location, ValueRange) {
                Value kk = linalg::IndexOp::create(pb, loc, 0);
                Value c = linalg::IndexOp::create(pb, loc, 1);
                Value column = arith::MinSIOp::create(pb, loc, arith::AddIOp::create(pb, loc, j, c),
                                                      lastColumn);
                Value element = tensor::ExtractOp::create(pb, loc, rhs.stored,
                                                          rhs.transposed ? ValueRange{column, kk}
                                                                         : ValueRange{kk, column});
                linalg::YieldOp::create(pb, loc, element);
              })
              .getResult(0);
    }
    return panel;
  };
  // Row groups: a group's rows of A (1 MB) stay in L2 while every panel of
  // B passes over them, so A comes from memory once, not once per panel.
  // Only with several panels (A is read once per panel), while a panel of B
  // (read once per group) is small enough to stay in L2 beside them, and
  // while all of B (read once per group) stays in the last-level cache: at
  // 4096x1024x4096 (B 16 MB) groups ran at 0.93x OpenBLAS, without them
  // 1.00x; at 4096x512x4096 (8 MB) 0.99x with them, 0.93x without. Threads
  // split each group's panels (splitting the groups instead was slower: 5
  // groups on 2 threads at 1024). A group's rows are as even as whole
  // blocks allow: no short last group.
  int64_t groupRows =
      dynamic ? 0 : ((1 << 20) / std::max<int64_t>(k * elementBytes, 1)) / kRows * kRows;
  bool grouped = !dynamic && n > columns && groupRows >= 2 * kRows && m > groupRows &&
                 panelBytes <= (256 << 10) && k * n * elementBytes <= (8 << 20);
  if (grouped) {
    int64_t groups = (m + groupRows - 1) / groupRows;
    groupRows = ((m + groups - 1) / groups + kRows - 1) / kRows * kRows;
  }
  // The multiply-adds of the whole matmul: how much work
  // ember-cpu-parallelize would split.
  // Unknown (0) with dynamic sizes: ember-cpu-parallelize then shares the
  // panels or the row blocks whatever their number turns out to be.
  auto work = [&](OpBuilder &b) { return b.getI64IntegerAttr(dynamic ? 0 : m * n * k); };
  // B packed once, all panels [panel, k, columns]; and the slice of it that
  // is the panel at column `j`.
  Value prepacked;
  int64_t panelCount = dynamicN ? 0 : (n + columns - 1) / columns;
  auto panelsType = RankedTensorType::get({panelCount, k, columns}, element);
  // A constant B (a layer's weights: a convolution's filters) is packed
  // while compiling; a call reads its panels and copies nothing (ResNet-18's
  // last convolutions copied 9 MB of filters a call for 49 rows of A). Any
  // M, a `?` batch's included.
  if (packed && !dynamicN && !dynamicK)
    if (DenseElementsAttr values = constantValues(rhs.stored))
      prepacked =
          arith::ConstantOp::create(b, loc, packedPanels(values, rhs.transposed, k, n, panelsType));
  struct Slice {
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };
  auto panelSlice = [&](OpBuilder &b, Value j) {
    Value p = arith::DivUIOp::create(b, loc, j, index(b, columns));
    return Slice{{p, b.getIndexAttr(0), b.getIndexAttr(0)},
                 {b.getIndexAttr(1), b.getIndexAttr(k), b.getIndexAttr(columns)},
                 SmallVector<OpFoldResult>(3, b.getIndexAttr(1))};
  };
  auto buildPanels = [&](OpBuilder &b, Value rowStart, Value rowEnd, Value cInit) {
    auto panels = scf::ForOp::create(
        b, loc, index(b, 0), nSize, index(b, columns), ValueRange{cInit},
        [&](OpBuilder &jb, Location, Value j, ValueRange panelArgs) {
          // B's panel: read in place, or packed (once for all row groups when
          // there are several).
          Value panel;
          if (prepacked) {
            Slice slice = panelSlice(jb, j);
            panel = tensor::ExtractSliceOp::create(jb, loc, panelType, prepacked, slice.offsets,
                                                   slice.sizes, slice.strides);
          } else if (packed) {
            panel = packPanel(jb, j);
          }
          auto rows = scf::ForOp::create(
              jb, loc, rowStart, rowEnd, index(jb, kRows), ValueRange{panelArgs[0]},
              [&](OpBuilder &ib, Location, Value i, ValueRange rowArgs) {
                SmallVector<Value> accInit(kRows * pieces, zeros);
                SmallVector<Value> rowIndex;
                // A gathered A's rows as coordinates of its copy's loops.
                SmallVector<SmallVector<Value>> rowCoordinates;
                Value lastRow = arith::SubIOp::create(ib, loc, mSize, index(ib, 1));
                for (int64_t r = 0; r < kRows; ++r) {
                  rowIndex.push_back(arith::MinSIOp::create(
                      ib, loc, arith::AddIOp::create(ib, loc, i, index(ib, r)), lastRow));
                  if (lhs.gather)
                    rowCoordinates.push_back(delinearize(ib, loc, rowIndex.back(), gatherRowSizes));
                }
                // A gathered A's k runs as its copy's column loops (a
                // convolution's KH, KW, C): no division in the loop.
                SmallVector<Value> kLoops =
                    lhs.gather ? gatherColumnSizes : SmallVector<Value>{kSize};
                SmallVector<Value> sums = reductionLoops(
                    ib, loc, kLoops, accInit, [&](OpBuilder &kb, ValueRange ivs, ValueRange acc) {
                      Value kk = ivs.front();
                      for (size_t d = 1; d < ivs.size(); ++d)
                        kk = arith::AddIOp::create(
                            kb, loc, arith::MulIOp::create(kb, loc, kk, kLoops[d]), ivs[d]);
                      // In bounds: whole panels of B, or the packed panel.
                      SmallVector<Value> bRow;
                      for (int64_t v = 0; v < pieces; ++v) {
                        Value offset = index(kb, v * lanes);
                        Value column = packed ? offset : arith::AddIOp::create(kb, loc, j, offset);
                        bRow.push_back(vector::TransferReadOp::create(
                            kb, loc, vectorType, packed ? panel : rhs.stored,
                            ValueRange{kk, column}, padding, ArrayRef<bool>{true}));
                      }
                      return multiplyAddRows(
                          kb, loc, kRows,
                          [&](int64_t r) -> Value {
                            if (lhs.gather) {
                              SmallVector<Value> at = rowCoordinates[r];
                              at.append(ivs.begin(), ivs.end());
                              std::optional<SmallVector<Value>> indices =
                                  affine::expandAffineMap(kb, loc, lhs.gather->read, at);
                              return tensor::ExtractOp::create(kb, loc, lhs.gather->source,
                                                               *indices);
                            }
                            return tensor::ExtractOp::create(kb, loc, lhs.stored,
                                                             lhs.transposed
                                                                 ? ValueRange{kk, rowIndex[r]}
                                                                 : ValueRange{rowIndex[r], kk});
                          },
                          bRow, acc);
                    });
                Value block = blockOf(ib, loc, sums, blockZeros, kRows, pieces, lanes);
                // Rows past the end are skipped (a branch per row, no masks);
                // columns are masked only when the last panel is partial.
                auto write = vector::TransferWriteOp::create(
                    ib, loc, block, rowArgs[0], ValueRange{i, j},
                    AffineMap::getMultiDimIdentityMap(2, ib.getContext()),
                    ArrayRef<bool>{wholeRows, wholeColumns});
                // Where ember-fuse-matmul-epilogues applies a consumer.
                write->setAttr("ember.matmul_block_write", ib.getUnitAttr());
                Value written = write.getResult();
                scf::YieldOp::create(ib, loc, written);
              });
          rows->setAttr("ember.blocked_matmul_rows", work(jb));
          scf::YieldOp::create(jb, loc, rows.getResult(0));
        });
    // Where ember-outline-blocked-matmuls finds them: the rows loop is marked
    // too, since canonicalization folds away a loop over one panel.
    panels->setAttr("ember.blocked_matmul", work(b));
    return panels;
  };
  if (!grouped)
    return buildPanels(b, zero, mSize, init).getResult(0);
  if (packed && !prepacked) { // every panel once, [panel, k, columns]
    auto allType = panelsType;
    if (!rhs.transposed && n % columns == 0) {
      // A copy through an affine map: a linalg op, which
      // ember-cpu-parallelize splits among the threads.
      MLIRContext *context = b.getContext();
      AffineExpr p, kk, c;
      // Loops (k, panel, column): B read row after row, contiguously.
      bindDims(context, kk, p, c);
      SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {kk, p * columns + c}, context),
                                     AffineMap::get(3, 0, {p, kk, c}, context)};
      SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
      prepacked = linalg::GenericOp::create(
                      b, loc, allType, rhs.stored, emptyTensor(b, loc, allType), maps,
                      iterators,
                      [](OpBuilder &nb, Location nloc, ValueRange args) {
                        linalg::YieldOp::create(nb, nloc, args[0]);
                      })
                      .getResult(0);
    } else {
      auto all = scf::ForOp::create(
          b, loc, zero, index(b, n), index(b, columns), ValueRange{emptyTensor(b, loc, allType)},
          [&](OpBuilder &pb, Location, Value j, ValueRange args) {
            Slice slice = panelSlice(pb, j);
            Value inserted = tensor::InsertSliceOp::create(pb, loc, packPanel(pb, j), args[0],
                                                           slice.offsets, slice.sizes,
                                                           slice.strides);
            scf::YieldOp::create(pb, loc, inserted);
          });
      prepacked = all.getResult(0);
    }
  }
  auto groups = scf::ForOp::create(
      b, loc, zero, index(b, m), index(b, groupRows), ValueRange{init},
      [&](OpBuilder &gb, Location, Value g, ValueRange groupArgs) {
        Value end = arith::MinSIOp::create(
            gb, loc, arith::AddIOp::create(gb, loc, g, index(gb, groupRows)), index(gb, m));
        scf::YieldOp::create(gb, loc, buildPanels(gb, g, end, groupArgs[0]).getResult(0));
      });
  return groups.getResult(0);
}

/// A matmul with short rows and a short reduction (n, k <= 16: power(x, n)
/// on 10x10 matrices) as one vector of C's row per row of A: the k
/// products of A[i, kk] with B's rows summed in registers, unrolled, and
/// written once. LLVM's own vectorization of the loop nest depended on
/// unrolling heuristics and chose masked gathers on AVX-512.
static Value emitRowVectorMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                                 RankedTensorType resultType) {
  Type element = resultType.getElementType();
  int64_t m = resultType.getDimSize(0), n = resultType.getDimSize(1);
  int64_t k = cast<RankedTensorType>(lhs.getType()).getDimSize(1);
  bool isFloat = isa<FloatType>(element);
  auto rowType = VectorType::get({n}, element);
  auto index = [&](OpBuilder &ob, int64_t v) { return arith::ConstantIndexOp::create(ob, loc, v); };
  Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  Value zeros = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(rowType, b.getZeroAttr(element)));
  // A `?` M (a convolution's rows on a `?` batch) is read from A.
  Value mSize = sizeOf(b, loc, lhs, 0);
  SmallVector<Value> sizes;
  if (ShapedType::isDynamic(m))
    sizes.push_back(mSize);
  auto rows = scf::ForOp::create(
      b, loc, index(b, 0), mSize, index(b, 1), ValueRange{emptyTensor(b, loc, resultType, sizes)},
      [&](OpBuilder &rb, Location, Value i, ValueRange args) {
        Value acc = zeros;
        for (int64_t kk = 0; kk < k; ++kk) {
          Value a = tensor::ExtractOp::create(rb, loc, lhs, ValueRange{i, index(rb, kk)});
          Value splat = vector::BroadcastOp::create(rb, loc, rowType, a);
          Value bRow = vector::TransferReadOp::create(rb, loc, rowType, rhs,
                                                      ValueRange{index(rb, kk), index(rb, 0)},
                                                      padding, ArrayRef<bool>{true});
          acc = isFloat ? Value(vector::FMAOp::create(rb, loc, splat, bRow, acc))
                        : Value(arith::AddIOp::create(rb, loc, acc,
                                                      arith::MulIOp::create(rb, loc, splat, bRow)));
        }
        Value written = vector::TransferWriteOp::create(rb, loc, acc, args[0],
                                                        ValueRange{i, index(rb, 0)},
                                                        ArrayRef<bool>{true})
                            .getResult();
        scf::YieldOp::create(rb, loc, written);
      });
  // A matmul's loop over rows, as the blocked ones mark theirs: a long chain
  // of them (power(x, 100)) is outlined into one shared function, rather
  // than bufferized and compiled 100 times over.
  rows->setAttr("ember.blocked_matmul_rows",
                b.getI64IntegerAttr(ShapedType::isDynamic(m) ? 0 : m * n * k));
  return rows.getResult(0);
}

/// A batch of large matmuls (static sizes): a loop over the batch, each
/// one's 2-D slices multiplied by a blocked matmul and inserted into C (a
/// transformer's attention scores: [heads, 128, 32] x [heads, 32, 128]).
static Value emitBatchOfBlockedMatmuls(OpBuilder &b, Location loc, Value lhs, Value rhs,
                                       RankedTensorType type, unsigned vectorBits) {
  Type element = type.getElementType();
  auto index = [&](OpBuilder &ob, int64_t v) { return arith::ConstantIndexOp::create(ob, loc, v); };
  Value init = emptyTensor(b, loc, type);
  auto loop = scf::ForOp::create(
      b, loc, index(b, 0), index(b, type.getDimSize(0)), index(b, 1), ValueRange{init},
      [&](OpBuilder &nb, Location nl, Value batch, ValueRange carried) {
        // Matrix `batch` of a [batch, rows, columns] tensor, as offsets, sizes and strides.
        auto matrixOf = [&](RankedTensorType t) {
          return std::array<SmallVector<OpFoldResult>, 3>{
              SmallVector<OpFoldResult>{batch, nb.getIndexAttr(0), nb.getIndexAttr(0)},
              SmallVector<OpFoldResult>{nb.getIndexAttr(1), nb.getIndexAttr(t.getDimSize(1)),
                                        nb.getIndexAttr(t.getDimSize(2))},
              SmallVector<OpFoldResult>(3, nb.getIndexAttr(1))};
        };
        auto extract = [&](Value t) {
          auto tType = cast<RankedTensorType>(t.getType());
          auto [offsets, sizes, strides] = matrixOf(tType);
          auto matrix = RankedTensorType::get({tType.getDimSize(1), tType.getDimSize(2)}, element);
          return tensor::ExtractSliceOp::create(nb, nl, matrix, t, offsets, sizes, strides)
              .getResult();
        };
        auto product = RankedTensorType::get({type.getDimSize(1), type.getDimSize(2)}, element);
        Value c = emitBlockedMatmul(nb, nl, matmulOperand(extract(lhs)),
                                    matmulOperand(extract(rhs)), product, vectorBits);
        auto [offsets, sizes, strides] = matrixOf(type);
        Value updated =
            tensor::InsertSliceOp::create(nb, nl, c, carried[0], offsets, sizes, strides);
        scf::YieldOp::create(nb, nl, updated);
      });
  return loop.getResult(0);
}

/// Whether `init` is a tensor filled with zeros: the matmul then computes
/// A @ B alone, which the rewrites below compute without reading `init`.
static bool isZeroFilled(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Value value = fill.getInputs()[0];
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// Whether `op` is a matmul or batch matmul on tensors that computes A @ B
/// alone: default indexing maps (no transposed or broadcast operands), one
/// element type, a zero-filled accumulator.
static bool isPlainMatmul(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || !isZeroFilled(op.getDpsInits()[0]))
    return false;
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!llvm::all_of(op.getDpsInputs(),
                    [&](Value input) { return getElementTypeOrSelf(input.getType()) == element; }))
    return false;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
    return matmul.getIndexingMapsArray() == linalg::MatmulOp::getDefaultIndexingMaps(op.getContext());
  if (auto batch = dyn_cast<linalg::BatchMatmulOp>(op.getOperation()))
    return batch.getIndexingMapsArray() ==
           linalg::BatchMatmulOp::getDefaultIndexingMaps(op.getContext());
  return false;
}

/// The CPU form of the matmul `op` (A @ B into a zero-filled `init`).
static Value lowerMatmul(OpBuilder &b, linalg::LinalgOp op, unsigned vectorBits) {
  Location loc = op.getLoc();
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto type = cast<RankedTensorType>(init.getType());
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t k = lhsType.getDimSize(lhsType.getRank() - 1);
  if (!type.hasStaticShape() || ShapedType::isDynamic(k)) {
    // Sizes known at run time: blocked, unless short rows and a short
    // reduction are known (a convolution's first layer on a `?` batch):
    // then vectors along the rows, any number of rows.
    int64_t n = type.getDimSize(type.getRank() - 1);
    bool shortAndNarrow = !ShapedType::isDynamic(k) && k <= 16 && !ShapedType::isDynamic(n) &&
                          n >= 1 && n <= 16; // (no vector of 0 lanes)
    if (type.getRank() == 2 && shortAndNarrow)
      return emitRowVectorMatmul(b, loc, lhs, rhs, type);
    if (type.getRank() == 2) {
      MatmulOperand a = matmulOperand(lhs);
      a.gather = asGather(lhs);
      return emitBlockedMatmul(b, loc, a, matmulOperand(rhs), type, vectorBits);
    }
  } else if (type.getRank() == 2 && k <= 16 && type.getDimSize(1) <= 16 &&
             type.getNumElements() * k >= 512) {
    // Short rows and a short reduction (power(x, n) on 10x10): vectors.
    return emitRowVectorMatmul(b, loc, lhs, rhs, type);
  } else if (type.getRank() == 2 && type.getNumElements() * k >= (1 << 15)) {
    // Large ones (f32, f64, i32, i64) are blocked for the CPU's registers.
    MatmulOperand a = matmulOperand(lhs);
    a.gather = asGather(lhs);
    return emitBlockedMatmul(b, loc, a, matmulOperand(rhs), type, vectorBits);
  } else if (type.getRank() == 3 && type.getDimSize(1) * type.getDimSize(2) * k >= (1 << 15)) {
    // A batch of large ones: each blocked.
    return emitBatchOfBlockedMatmuls(b, loc, lhs, rhs, type, vectorBits);
  }
  // Others (small, small batched ones, `?` batches) stay one loop nest. A short reduction
  // goes innermost, as a hand-written loop has it: LLVM unrolls it fully and
  // vectorizes the contiguous j loop around it. With j innermost instead, j
  // was unrolled and the k loop vectorized with masked gathers down B's
  // columns on AVX-512 (4x slower).
  return emitMatmul(b, loc, lhs, rhs, init, /*reductionInnermost=*/k <= 16);
}

/// Whether `op` is a linalg.generic that copies its one input through
/// `cast` (an arith op of one operand) and does nothing else, element by
/// element: convert-ember-to-linalg's castElements.
template <typename Cast> static bool isElementCast(linalg::GenericOp op) {
  Value yielded = yieldedPerElement(op);
  if (!yielded || !op.getIndexingMapsArray()[0].isIdentity())
    return false;
  auto cast = yielded.getDefiningOp<Cast>();
  return cast && cast->getOperand(0) == op.getBody()->getArgument(0);
}

/// Whether the float32 tensor `value` holds bfloat16 values widened: a
/// widening copy (castElements) of a bfloat16 tensor, or what reshapes,
/// transposes, zero fills, insertions and gathering copies (a convolution's
/// padding and patches) make of such values. narrowToBFloat16 rebuilds it in bfloat16.
static bool isWidenedBFloat16(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op || !cast<ShapedType>(value.getType()).hasStaticShape())
    return false;
  if (auto copy = dyn_cast<linalg::GenericOp>(op)) {
    if (isElementCast<arith::ExtFOp>(copy))
      return getElementTypeOrSelf(copy.getDpsInputs()[0].getType()).isBF16();
    return isGatheringCopy(copy) && isWidenedBFloat16(copy.getDpsInputs()[0]);
  }
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return isWidenedBFloat16(insert.getSource()) && isWidenedBFloat16(insert.getDest());
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, linalg::TransposeOp>(op))
    return isWidenedBFloat16(op->getOperand(0));
  return false;
}

/// The bfloat16 tensor whose values the float32 `value` holds
/// (isWidenedBFloat16), built anew in bfloat16 from the narrow tensors it
/// was widened from; the float32 ops are left for canonicalization to drop.
static Value narrowToBFloat16(OpBuilder &b, Value value) {
  Operation *op = value.getDefiningOp();
  Location loc = op->getLoc();
  Type bf16 = b.getBF16Type();
  auto narrowType = cast<RankedTensorType>(value.getType()).clone(bf16);
  if (auto copy = dyn_cast<linalg::GenericOp>(op)) {
    if (isElementCast<arith::ExtFOp>(copy))
      return copy.getDpsInputs()[0];
    // A gathering copy (a convolution's patches): the same copy of the
    // narrow input.
    Value input = narrowToBFloat16(b, copy.getDpsInputs()[0]);
    return linalg::GenericOp::create(b, loc, narrowType, input, emptyTensor(b, loc, narrowType),
                                     copy.getIndexingMapsArray(), copy.getIteratorTypesArray(),
                                     [](OpBuilder &nb, Location nloc, ValueRange args) {
                                       linalg::YieldOp::create(nb, nloc, args[0]);
                                     })
        .getResult(0);
  }
  if (isa<linalg::FillOp>(op)) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(bf16));
    return linalg::FillOp::create(b, loc, zero, emptyTensor(b, loc, narrowType)).getResult(0);
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return tensor::InsertSliceOp::create(
        b, loc, narrowToBFloat16(b, insert.getSource()), narrowToBFloat16(b, insert.getDest()),
        insert.getMixedOffsets(), insert.getMixedSizes(), insert.getMixedStrides());
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op))
    return linalg::TransposeOp::create(b, loc, narrowToBFloat16(b, transpose.getInput()),
                                       emptyTensor(b, loc, narrowType), transpose.getPermutation())
        ->getResult(0);
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
    return tensor::CollapseShapeOp::create(b, loc, narrowType,
                                           narrowToBFloat16(b, collapse.getSrc()),
                                           collapse.getReassociationIndices());
  auto expand = cast<tensor::ExpandShapeOp>(op);
  return tensor::ExpandShapeOp::create(b, loc, narrowType, narrowToBFloat16(b, expand.getSrc()),
                                       expand.getReassociationIndices());
}

namespace {
struct LowerMatmulsPass : mlir::ember::impl::LowerMatmulsPassBase<LowerMatmulsPass> {
  using LowerMatmulsPassBase::LowerMatmulsPassBase;
  void runOnOperation() override {
    std::optional<ember::BFloat16Instructions> instructions;
    if (bf16Instructions == "amx")
      instructions = ember::BFloat16Instructions::AmxTiles;
    else if (bf16Instructions == "avx512bf16")
      instructions = ember::BFloat16Instructions::Avx512Dot;
    else if (bf16Instructions != "none") {
      getOperation().emitError("ember-cpu-lower-matmuls: unknown bf16-instructions '")
          << bf16Instructions << "' (expected none, avx512bf16 or amx)";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isPlainMatmul(op))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : matmuls) {
      rewriter.setInsertionPoint(op);
      if (instructions && lowerOnBFloat16Instructions(rewriter, op, *instructions))
        continue;
      rewriter.replaceOp(op, lowerMatmul(rewriter, op, vectorBits));
    }
  }

  /// A bfloat16 matmul or convolution (its operands widened to float32) on
  /// `instructions`, which read bfloat16 operands: whether it was.
  bool lowerOnBFloat16Instructions(IRRewriter &rewriter, linalg::LinalgOp op,
                                   ember::BFloat16Instructions instructions) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
    // A transposed A stays widened: the blocked float32 loops read it in
    // place, where tiles would need a transposed copy (a gradient's patches^T
    // @ dY: a strided copy as large as the patches).
    auto widen = lhs.getDefiningOp<linalg::GenericOp>();
    Value unwidened = isElementCast<arith::ExtFOp>(widen) ? widen.getDpsInputs()[0] : lhs;
    if (type.getRank() != 2 || !type.getElementType().isF32() ||
        unwidened.getDefiningOp<linalg::TransposeOp>() || !isWidenedBFloat16(lhs) ||
        !isWidenedBFloat16(rhs) ||
        !ember::suitsBFloat16Instructions(instructions, type.getDimSize(0), type.getDimSize(1),
                                          cast<RankedTensorType>(lhs.getType()).getDimSize(1)))
      return false;
    // A convolution's patches read in place from its input, on tiles.
    if (instructions == ember::BFloat16Instructions::AmxTiles)
      if (std::optional<Gather> gather = asGather(lhs))
        if (gather->rowDims == ArrayRef<int64_t>{0, 1, 2} &&
            gather->columnDims == ArrayRef<int64_t>{3, 4, 5}) {
          auto loopsType = cast<RankedTensorType>(gather->loopSizes.getType());
          ember::ConvolutionPatches patches{gather->source, gather->read,
                                            llvm::to_vector(loopsType.getShape())};
          if (loopsType.hasStaticShape() &&
              ember::suitsAmxConvolution(patches, type.getDimSize(1))) {
            patches.input = narrowToBFloat16(rewriter, gather->source);
            rewriter.replaceOp(op, ember::emitAmxConvolution(rewriter, op.getLoc(), patches,
                                                             narrowToBFloat16(rewriter, rhs)));
            return true;
          }
        }
    // (A convolution's patches are copied in bfloat16, half the bytes.)
    lhs = narrowToBFloat16(rewriter, lhs);
    rhs = narrowToBFloat16(rewriter, rhs);
    rewriter.replaceOp(op,
                       ember::emitBFloat16Matmul(rewriter, op.getLoc(), lhs, rhs, instructions));
    return true;
  }
};
} // namespace
