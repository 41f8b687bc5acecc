//===- AmxMatmul.cpp - bfloat16 matmuls on AMX tiles -----------------------===//
//
// Intel's AMX (amx-bf16, Sapphire Rapids and later) multiplies tiles: one
// tdpbf16ps adds a 16x32 bfloat16 tile of A times a 32x16 tile of B to a
// 16x16 float32 tile of C (512 products each of 16 rows: 16384 flops, where
// an AVX-512 FMA does 32). B's tile holds pairs of B's rows interleaved
// (row kk/2 of the tile is B[kk][c], B[kk+1][c] for each column c: "VNNI"
// order), so B is packed first, once per matmul. The eight tile registers
// hold a 32x32 block of C (four tiles) and the two tiles of A and B that
// feed it at each step of 32 along k.
//
// The loops are emitted here on buffers inside tensor code: A and B are read
// through bufferization.to_buffer, C is a new buffer handed back with
// bufferization.to_tensor (restrict: nothing else aliases it).
//
//===----------------------------------------------------------------------===//

#include "AmxMatmul.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <array>

using namespace mlir;

namespace {
/// A tile's rows (A's and C's tiles are 16 rows of 64 bytes).
constexpr int64_t kTileRows = 16;
/// The depth along k of one tile multiplication (32 bfloat16 per row of A).
constexpr int64_t kDepth = 32;
/// C is computed in blocks of 2x2 tiles.
constexpr int64_t kBlock = 2 * kTileRows;
/// The most of k that one pass over a row block of C sums.
constexpr int64_t kPassDepth = 512;
} // namespace

bool mlir::ember::suitsAmxTiles(int64_t m, int64_t n, int64_t k) {
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) || ShapedType::isDynamic(k))
    return false;
  return m >= kTileRows && n >= kTileRows && k >= kDepth && m * n * k >= (1 << 15);
}

static int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// A loop from `lower` to `upper` by `step` whose body writes buffers.
static scf::ForOp forEach(OpBuilder &b, Location loc, Value lower, Value upper, int64_t step,
                          function_ref<void(OpBuilder &, Value)> body) {
  Value stepValue = arith::ConstantIndexOp::create(b, loc, step);
  return scf::ForOp::create(b, loc, lower, upper, stepValue, ValueRange{},
                            [&](OpBuilder &lb, Location, Value iv, ValueRange) {
                              body(lb, iv);
                              scf::YieldOp::create(lb, loc);
                            });
}

Value mlir::ember::emitAmxMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1);
  int64_t n = cast<RankedTensorType>(rhs.getType()).getDimSize(1);
  int64_t mPadded = roundUp(m, kBlock), nPadded = roundUp(n, kBlock), kPadded = roundUp(k, kDepth);
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  auto index = [&](OpBuilder &ib, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, value);
  };
  Value zero = index(b, 0);
  Value bf16Zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(bf16));
  // Row `row` of `matrix` (rows x columns) from column `column` as `lanes`
  // values: zeros past the last row, masked past the last column unless the
  // columns are whole vectors.
  auto readRow = [&](OpBuilder &rb, Value matrix, int64_t rows, int64_t columns, Value row,
                     Value column, int64_t lanes) -> Value {
    auto type = VectorType::get({lanes}, bf16);
    Value lastRow = index(rb, rows - 1);
    Value clamped = arith::MinUIOp::create(rb, loc, row, lastRow);
    Value read = vector::TransferReadOp::create(rb, loc, type, matrix, ValueRange{clamped, column},
                                                bf16Zero, ArrayRef<bool>{columns % lanes == 0});
    Value inside = arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::ule, row, lastRow);
    Value zeros = arith::ConstantOp::create(rb, loc, DenseElementsAttr::get(type, rb.getZeroAttr(bf16)));
    return arith::SelectOp::create(rb, loc, inside, read, zeros);
  };

  Value a = bufferization::ToBufferOp::create(b, loc, MemRefType::get({m, k}, bf16), lhs,
                                              /*read_only=*/true);
  Value bMatrix = bufferization::ToBufferOp::create(b, loc, MemRefType::get({k, n}, bf16), rhs,
                                                    /*read_only=*/true);
  // A in whole blocks of rows and whole steps of k: a zero-padded copy
  // where it is not (tiles read 16 full rows of 32).
  if (m != mPadded || k != kPadded) {
    Value padded = memref::AllocOp::create(b, loc, MemRefType::get({mPadded, kPadded}, bf16));
    forEach(b, loc, zero, index(b, mPadded), 1, [&](OpBuilder &rb, Value row) {
      forEach(rb, loc, zero, index(rb, kPadded), kDepth, [&](OpBuilder &cb, Value column) {
        Value piece = readRow(cb, a, m, k, row, column, kDepth);
        vector::StoreOp::create(cb, loc, piece, padded, ValueRange{row, column});
      });
    });
    a = padded;
  }
  // B packed in tiles' order: [column tile, k / 2, 32], each row of a tile
  // the pairs (B[2h][c], B[2h + 1][c]) of its 16 columns; zeros past B's edges.
  auto packedType = MemRefType::get({nPadded / kTileRows, kPadded / 2, 2 * kTileRows}, bf16);
  Value packed = memref::AllocOp::create(b, loc, packedType);
  SmallVector<int64_t> interleave;
  for (int64_t c = 0; c < kTileRows; ++c)
    interleave.append({c, kTileRows + c});
  // Pairs of rows outermost: B is read row after row (a column of tiles
  // at a time would read each cache line twice, far apart).
  forEach(b, loc, zero, index(b, kPadded / 2), 1, [&](OpBuilder &hb, Value half) {
    Value even = arith::MulIOp::create(hb, loc, half, index(hb, 2));
    Value odd = arith::AddIOp::create(hb, loc, even, index(hb, 1));
    forEach(hb, loc, zero, index(hb, nPadded / kTileRows), 1, [&](OpBuilder &pb, Value tile) {
      Value column = arith::MulIOp::create(pb, loc, tile, index(pb, kTileRows));
      Value evenRow = readRow(pb, bMatrix, k, n, even, column, kTileRows);
      Value oddRow = readRow(pb, bMatrix, k, n, odd, column, kTileRows);
      Value pairs = vector::ShuffleOp::create(pb, loc, evenRow, oddRow, interleave);
      vector::StoreOp::create(pb, loc, pairs, packed, ValueRange{tile, half, index(pb, 0)});
    });
  });

  // C in passes over k of at most kPassDepth, each over C's row blocks of
  // 32 (which threads share) and, in a block, its 32x32 blocks: four tiles
  // that sum the block's steps of 32 along k. The block's rows of A for the
  // pass (32 KB) stay in L1 while the pass's panels of B (1 MB at most)
  // stream past from L2 (1024^3: 1.2-1.3x faster than one pass over all of
  // k, or than passes inside each row block, which read all of B each).
  // Between passes the sums wait in C, float32 in whole blocks.
  auto sumsType = MemRefType::get({mPadded, nPadded}, f32);
  Value sums = memref::AllocOp::create(b, loc, sumsType);
  int64_t passDepth = std::min(kPadded, kPassDepth);
  auto aTile = amx::TileType::get({kTileRows, kDepth}, bf16);
  auto cTile = amx::TileType::get({kTileRows, kTileRows}, f32);
  scf::ForOp rows;
  forEach(b, loc, zero, index(b, kPadded), passDepth, [&](OpBuilder &pb, Value start) {
    Value end = arith::MinUIOp::create(
        pb, loc, arith::AddIOp::create(pb, loc, start, index(pb, passDepth)), index(pb, kPadded));
    Value first = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, start, zero);
    rows = forEach(pb, loc, zero, index(pb, mPadded), kBlock, [&](OpBuilder &ib, Value i) {
      Value lowerRows = arith::AddIOp::create(ib, loc, i, index(ib, kTileRows));
      forEach(ib, loc, zero, index(ib, nPadded), kBlock, [&](OpBuilder &jb, Value j) {
        Value tile = arith::DivUIOp::create(jb, loc, j, index(jb, kTileRows));
        Value nextTile = arith::AddIOp::create(jb, loc, tile, index(jb, 1));
        Value right = arith::AddIOp::create(jb, loc, j, index(jb, kTileRows));
        const std::array<std::array<Value, 2>, 4> corners = {
            {{i, j}, {i, right}, {lowerRows, j}, {lowerRows, right}}};
        // Zeros on the first pass (one tilezero each: four tile registers),
        // else the sums so far.
        auto initial = scf::IfOp::create(
            jb, loc, first,
            [&](OpBuilder &zb, Location) {
              SmallVector<Value> zeros;
              for (int t = 0; t < 4; ++t)
                zeros.push_back(amx::TileZeroOp::create(zb, loc, cTile));
              scf::YieldOp::create(zb, loc, zeros);
            },
            [&](OpBuilder &lb, Location) {
              SmallVector<Value> sofar;
              for (const auto &corner : corners)
                sofar.push_back(amx::TileLoadOp::create(lb, loc, cTile, sums, corner));
              scf::YieldOp::create(lb, loc, sofar);
            });
        auto steps = scf::ForOp::create(
            jb, loc, start, end, index(jb, kDepth), initial.getResults(),
            [&](OpBuilder &kb, Location, Value kk, ValueRange acc) {
              Value a0 = amx::TileLoadOp::create(kb, loc, aTile, a, ValueRange{i, kk});
              Value a1 = amx::TileLoadOp::create(kb, loc, aTile, a, ValueRange{lowerRows, kk});
              Value half = arith::DivUIOp::create(kb, loc, kk, index(kb, 2));
              Value b0 = amx::TileLoadOp::create(kb, loc, aTile, packed,
                                                 ValueRange{tile, half, index(kb, 0)});
              Value b1 = amx::TileLoadOp::create(kb, loc, aTile, packed,
                                                 ValueRange{nextTile, half, index(kb, 0)});
              SmallVector<Value> next;
              for (auto [t, pair] : llvm::enumerate(
                       ArrayRef<std::pair<Value, Value>>{{a0, b0}, {a0, b1}, {a1, b0}, {a1, b1}}))
                next.push_back(
                    amx::TileMulFOp::create(kb, loc, cTile, pair.first, pair.second, acc[t]));
              scf::YieldOp::create(kb, loc, next);
            });
        for (auto [corner, value] : llvm::zip(corners, steps.getResults()))
          amx::TileStoreOp::create(jb, loc, sums, ValueRange(corner), value);
      });
    });
  });
  // The work ember-cpu-parallelize weighs before sharing a pass's row blocks.
  rows->setAttr("ember.blocked_matmul_rows", b.getI64IntegerAttr(m * n * k));
  Value product = bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get({mPadded, nPadded}, f32), sums, /*restrict=*/true,
      /*writable=*/true);
  if (m == mPadded && n == nPadded)
    return product;
  SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0)), strides(2, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(m), b.getIndexAttr(n)};
  return tensor::ExtractSliceOp::create(b, loc, RankedTensorType::get({m, n}, f32), product,
                                        offsets, sizes, strides);
}
