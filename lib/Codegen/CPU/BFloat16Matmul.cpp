//===- BFloat16Matmul.cpp - bfloat16 matmuls on dot-product units ---------===//
//
// x86 CPUs multiply pairs of bfloat16 and sum them into float32, which is
// what a bfloat16 matmul needs (float32 sums), without widening first:
// - AMX (amx-bf16, Sapphire Rapids and later) multiplies tiles: one
//   tdpbf16ps adds a 16x32 bfloat16 tile of A times a 32x16 tile of B to a
//   16x16 float32 tile of C (16384 flops, where an AVX-512 FMA does 32).
//   The eight tile registers hold a 32x32 block of C (four tiles) and the
//   two tiles of A and B that feed it at each step of 32 along k.
// - AVX512-BF16 (Cooper Lake, Zen 4) has vdpbf16ps: each float32 lane of a
//   vector adds the products of a pair of bfloat16 from each operand. A
//   block of 8 rows by 48 columns of C is 24 vectors; at each pair of k, A's
//   pair of each row (broadcast) meets three vectors of B's pairs.
// Both flush denormal inputs and sums to zero (as oneDNN's kernels on them).
// Both read B's pairs of rows interleaved (B[kk][c], B[kk + 1][c] side by
// side for each column c: "VNNI" order), so B is packed first, once per
// matmul, in tiles of 16 columns.
//
// The loops are emitted here on buffers inside tensor code: A and B are read
// through bufferization.to_buffer, C is a new buffer handed back with
// bufferization.to_tensor (restrict: nothing else aliases it).
//
//===----------------------------------------------------------------------===//

#include "BFloat16Matmul.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"

#include <array>

using namespace mlir;

namespace {
using mlir::ember::BFloat16Instructions;

/// 16 lanes: a tile's rows (A's and C's are 16 rows of 64 bytes), a packed
/// tile's columns of B, and a vector of float32 sums.
constexpr int64_t kLanes = 16;
/// A's padded k is a multiple of this (a tile row of A; AVX-512 steps pairs).
constexpr int64_t kDepth = 32;

/// How an instruction set blocks C.
struct Blocking {
  int64_t rows, columns;
  /// The most of k that one pass over C sums: a row block of A for the pass
  /// stays in L1 while the pass's panels of B stream past from L2.
  int64_t passDepth;
};

Blocking blockingOf(BFloat16Instructions instructions) {
  switch (instructions) {
  case BFloat16Instructions::AmxTiles:
    // 2x2 tiles; passes of 512: 32 KB of A (1024^3: 1.2-1.3x faster than one
    // pass over all of k, or than passes inside each row block, which read
    // all of B each).
    return {2 * kLanes, 2 * kLanes, 512};
  case BFloat16Instructions::Avx512Dot:
    // 8 rows of 3 vectors: 24 of the 32 registers, 3 for B, 1 for A's pair.
    return {8, 3 * kLanes, 512};
  }
  return {};
}

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// A loop from `lower` to `upper` by `step` whose body writes buffers.
scf::ForOp forEach(OpBuilder &b, Location loc, Value lower, Value upper, int64_t step,
                   function_ref<void(OpBuilder &, Value)> body) {
  Value stepValue = arith::ConstantIndexOp::create(b, loc, step);
  return scf::ForOp::create(b, loc, lower, upper, stepValue, ValueRange{},
                            [&](OpBuilder &lb, Location, Value iv, ValueRange) {
                              body(lb, iv);
                              scf::YieldOp::create(lb, loc);
                            });
}

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// What a block of C needs: A (padded), B (packed), the float32 sums, and
/// where the block and its pass are.
struct BlockOperands {
  Value a, packed, sums;
  Value i, j;       // the block's first row and column
  Value start, end; // the pass's range of k
  Value first;      // whether it is the first pass (else the sums so far)
};

/// A 32x32 block of C on AMX tiles: four tiles that sum the pass's steps of
/// 32 along k, each step two tiles of A and two of B.
void amxBlock(OpBuilder &b, Location loc, const BlockOperands &in) {
  auto index = [&](int64_t value) { return constantIndex(b, loc, value); };
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  auto aTile = amx::TileType::get({kLanes, kDepth}, bf16);
  auto cTile = amx::TileType::get({kLanes, kLanes}, f32);
  Value lowerRows = arith::AddIOp::create(b, loc, in.i, index(kLanes));
  Value tile = arith::DivUIOp::create(b, loc, in.j, index(kLanes));
  Value nextTile = arith::AddIOp::create(b, loc, tile, index(1));
  Value right = arith::AddIOp::create(b, loc, in.j, index(kLanes));
  const std::array<std::array<Value, 2>, 4> corners = {
      {{in.i, in.j}, {in.i, right}, {lowerRows, in.j}, {lowerRows, right}}};
  // Zeros on the first pass (one tilezero each: four tile registers), else
  // the sums so far.
  auto initial = scf::IfOp::create(
      b, loc, in.first,
      [&](OpBuilder &zb, Location) {
        SmallVector<Value> zeros;
        for (int t = 0; t < 4; ++t)
          zeros.push_back(amx::TileZeroOp::create(zb, loc, cTile));
        scf::YieldOp::create(zb, loc, zeros);
      },
      [&](OpBuilder &lb, Location) {
        SmallVector<Value> sofar;
        for (const auto &corner : corners)
          sofar.push_back(amx::TileLoadOp::create(lb, loc, cTile, in.sums, corner));
        scf::YieldOp::create(lb, loc, sofar);
      });
  auto steps = scf::ForOp::create(
      b, loc, in.start, in.end, index(kDepth), initial.getResults(),
      [&](OpBuilder &kb, Location, Value kk, ValueRange acc) {
        Value zero = constantIndex(kb, loc, 0);
        Value a0 = amx::TileLoadOp::create(kb, loc, aTile, in.a, ValueRange{in.i, kk});
        Value a1 = amx::TileLoadOp::create(kb, loc, aTile, in.a, ValueRange{lowerRows, kk});
        Value half = arith::DivUIOp::create(kb, loc, kk, constantIndex(kb, loc, 2));
        Value b0 = amx::TileLoadOp::create(kb, loc, aTile, in.packed, ValueRange{tile, half, zero});
        Value b1 =
            amx::TileLoadOp::create(kb, loc, aTile, in.packed, ValueRange{nextTile, half, zero});
        // C's tiles in the order of `corners`: (A's tile, B's tile) each.
        const std::array<std::pair<Value, Value>, 4> factors = {
            {{a0, b0}, {a0, b1}, {a1, b0}, {a1, b1}}};
        SmallVector<Value> next;
        for (auto [t, pair] : llvm::enumerate(factors))
          next.push_back(amx::TileMulFOp::create(kb, loc, cTile, pair.first, pair.second, acc[t]));
        scf::YieldOp::create(kb, loc, next);
      });
  for (auto [corner, value] : llvm::zip(corners, steps.getResults()))
    amx::TileStoreOp::create(b, loc, in.sums, ValueRange(corner), value);
}

/// A block of C (blocking.rows x blocking.columns) on AVX512-BF16: a vector
/// of 16 float32 sums per row and 16 columns, which vdpbf16ps adds A's pair
/// (broadcast) times B's 16 pairs to at each pair of k.
void avx512DotBlock(OpBuilder &b, Location loc, const BlockOperands &in, Blocking blocking) {
  auto index = [&](int64_t value) { return constantIndex(b, loc, value); };
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  int64_t pieces = blocking.columns / kLanes;
  auto sumType = VectorType::get({kLanes}, f32);
  auto pairsType = VectorType::get({2 * kLanes}, bf16);
  SmallVector<Value> rows, columns;
  for (int64_t r = 0; r < blocking.rows; ++r)
    rows.push_back(arith::AddIOp::create(b, loc, in.i, index(r)));
  for (int64_t v = 0; v < pieces; ++v)
    columns.push_back(arith::AddIOp::create(b, loc, in.j, index(v * kLanes)));
  Value tile = arith::DivUIOp::create(b, loc, in.j, index(kLanes));
  auto initial = scf::IfOp::create(
      b, loc, in.first,
      [&](OpBuilder &zb, Location) {
        Value zeros = arith::ConstantOp::create(
            zb, loc, DenseElementsAttr::get(sumType, zb.getZeroAttr(f32)));
        scf::YieldOp::create(zb, loc, SmallVector<Value>(rows.size() * pieces, zeros));
      },
      [&](OpBuilder &lb, Location) {
        SmallVector<Value> sofar;
        for (Value row : rows)
          for (Value column : columns)
            sofar.push_back(
                vector::LoadOp::create(lb, loc, sumType, in.sums, ValueRange{row, column}));
        scf::YieldOp::create(lb, loc, sofar);
      });
  Value firstPair = arith::DivUIOp::create(b, loc, in.start, index(2));
  Value endPair = arith::DivUIOp::create(b, loc, in.end, index(2));
  auto steps = scf::ForOp::create(
      b, loc, firstPair, endPair, index(1), initial.getResults(),
      [&](OpBuilder &kb, Location, Value half, ValueRange acc) {
        Value zero = constantIndex(kb, loc, 0);
        SmallVector<Value> bPairs;
        for (int64_t v = 0; v < pieces; ++v) {
          Value at = arith::AddIOp::create(kb, loc, tile, constantIndex(kb, loc, v));
          bPairs.push_back(
              vector::LoadOp::create(kb, loc, pairsType, in.packed, ValueRange{at, half, zero}));
        }
        Value kk = arith::MulIOp::create(kb, loc, half, constantIndex(kb, loc, 2));
        SmallVector<Value> next;
        for (auto [r, row] : llvm::enumerate(rows)) {
          // A[row][kk], A[row][kk + 1] as one 32-bit word, in every lane.
          Value pair = vector::LoadOp::create(kb, loc, VectorType::get({2}, bf16), in.a,
                                              ValueRange{row, kk});
          Value word =
              vector::BitCastOp::create(kb, loc, VectorType::get({1}, kb.getI32Type()), pair);
          Value scalar = vector::ExtractOp::create(kb, loc, word, ArrayRef<int64_t>{0});
          Value splat = vector::BroadcastOp::create(
              kb, loc, VectorType::get({kLanes}, kb.getI32Type()), scalar);
          Value aPairs = vector::BitCastOp::create(kb, loc, pairsType, splat);
          for (int64_t v = 0; v < pieces; ++v)
            next.push_back(x86vector::DotBF16Op::create(kb, loc, sumType, acc[r * pieces + v],
                                                        aPairs, bPairs[v]));
        }
        scf::YieldOp::create(kb, loc, next);
      });
  for (auto [r, row] : llvm::enumerate(rows))
    for (auto [v, column] : llvm::enumerate(columns))
      vector::StoreOp::create(b, loc, steps.getResult(r * pieces + v), in.sums,
                              ValueRange{row, column});
}
} // namespace

bool mlir::ember::suitsBFloat16Instructions(BFloat16Instructions instructions, int64_t m, int64_t n,
                                            int64_t k) {
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) || ShapedType::isDynamic(k))
    return false;
  // At least a block of columns: C2's convolution of 16 filters ran 1.4x
  // slower on tiles (half of each block padding) than widened to float32.
  Blocking blocking = blockingOf(instructions);
  return m >= blocking.rows / 2 && n >= blocking.columns && k >= kDepth && m * n * k >= (1 << 15);
}

/// Row `row` of `matrix` (rows x columns of bfloat16) from column `column`
/// as `lanes` values: zeros past the last row, masked past the last column
/// unless every read (up to `paddedColumns`) is inside the row.
static Value readRow(OpBuilder &b, Location loc, Value matrix, int64_t rows, int64_t columns,
                     int64_t paddedColumns, Value row, Value column, int64_t lanes) {
  Type bf16 = b.getBF16Type();
  auto type = VectorType::get({lanes}, bf16);
  Value lastRow = constantIndex(b, loc, rows - 1);
  Value clamped = arith::MinUIOp::create(b, loc, row, lastRow);
  Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(bf16));
  Value read = vector::TransferReadOp::create(b, loc, type, matrix, ValueRange{clamped, column},
                                              padding, ArrayRef<bool>{paddedColumns == columns});
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, row, lastRow);
  Value zeros = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, b.getZeroAttr(bf16)));
  return arith::SelectOp::create(b, loc, inside, read, zeros);
}

/// B (the bfloat16 tensor [k, n]) packed in tiles of 16 columns: a buffer
/// [nPadded / 16, kPadded / 2, 32], each row of a tile the pairs (B[2h][c],
/// B[2h + 1][c]) of its 16 columns; zeros past B's edges.
static Value packPairsOfRows(OpBuilder &b, Location loc, Value rhs, int64_t nPadded,
                             int64_t kPadded) {
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t k = rhsType.getDimSize(0), n = rhsType.getDimSize(1);
  Type bf16 = b.getBF16Type();
  auto index = [&](OpBuilder &ib, int64_t value) { return constantIndex(ib, loc, value); };
  Value zero = index(b, 0);
  Value bMatrix = bufferization::ToBufferOp::create(b, loc, MemRefType::get({k, n}, bf16), rhs,
                                                    /*read_only=*/true);
  auto packedType = MemRefType::get({nPadded / kLanes, kPadded / 2, 2 * kLanes}, bf16);
  Value packed = memref::AllocOp::create(b, loc, packedType);
  SmallVector<int64_t> interleave;
  for (int64_t c = 0; c < kLanes; ++c)
    interleave.append({c, kLanes + c});
  // Pairs of rows outermost: B is read row after row (a column of tiles
  // at a time would read each cache line twice, far apart).
  forEach(b, loc, zero, index(b, kPadded / 2), 1, [&](OpBuilder &hb, Value half) {
    Value even = arith::MulIOp::create(hb, loc, half, index(hb, 2));
    Value odd = arith::AddIOp::create(hb, loc, even, index(hb, 1));
    forEach(hb, loc, zero, index(hb, nPadded / kLanes), 1, [&](OpBuilder &pb, Value tile) {
      Value column = arith::MulIOp::create(pb, loc, tile, index(pb, kLanes));
      Value evenRow = readRow(pb, loc, bMatrix, k, n, nPadded, even, column, kLanes);
      Value oddRow = readRow(pb, loc, bMatrix, k, n, nPadded, odd, column, kLanes);
      Value pairs = vector::ShuffleOp::create(pb, loc, evenRow, oddRow, interleave);
      vector::StoreOp::create(pb, loc, pairs, packed, ValueRange{tile, half, index(pb, 0)});
    });
  });
  return packed;
}

Value mlir::ember::emitBFloat16Matmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                                      BFloat16Instructions instructions) {
  Blocking blocking = blockingOf(instructions);
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1);
  int64_t n = cast<RankedTensorType>(rhs.getType()).getDimSize(1);
  int64_t mPadded = roundUp(m, blocking.rows), nPadded = roundUp(n, blocking.columns);
  int64_t kPadded = roundUp(k, kDepth);
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  auto index = [&](OpBuilder &ib, int64_t value) { return constantIndex(ib, loc, value); };
  Value zero = index(b, 0);

  Value a = bufferization::ToBufferOp::create(b, loc, MemRefType::get({m, k}, bf16), lhs,
                                              /*read_only=*/true);
  // A in whole blocks of rows and whole steps of k: a zero-padded copy
  // where it is not (a tile reads 16 full rows of 32).
  if (m != mPadded || k != kPadded) {
    Value padded = memref::AllocOp::create(b, loc, MemRefType::get({mPadded, kPadded}, bf16));
    forEach(b, loc, zero, index(b, mPadded), 1, [&](OpBuilder &rb, Value row) {
      forEach(rb, loc, zero, index(rb, kPadded), kDepth, [&](OpBuilder &cb, Value column) {
        Value piece = readRow(cb, loc, a, m, k, kPadded, row, column, kDepth);
        vector::StoreOp::create(cb, loc, piece, padded, ValueRange{row, column});
      });
    });
    a = padded;
  }
  Value packed = packPairsOfRows(b, loc, rhs, nPadded, kPadded);

  // C in passes over k, each over C's row blocks (which threads share) and,
  // in a row block, its blocks. Between passes the sums wait in C, float32
  // in whole blocks; the caller's rounding (if any) reads its slice.
  auto sumsType = MemRefType::get({mPadded, nPadded}, f32);
  Value sums = memref::AllocOp::create(b, loc, sumsType);
  int64_t passDepth = std::min(kPadded, blocking.passDepth);
  scf::ForOp rows;
  forEach(b, loc, zero, index(b, kPadded), passDepth, [&](OpBuilder &pb, Value start) {
    Value end = arith::MinUIOp::create(
        pb, loc, arith::AddIOp::create(pb, loc, start, index(pb, passDepth)), index(pb, kPadded));
    Value first = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, start, zero);
    rows = forEach(pb, loc, zero, index(pb, mPadded), blocking.rows, [&](OpBuilder &ib, Value i) {
      forEach(ib, loc, zero, index(ib, nPadded), blocking.columns, [&](OpBuilder &jb, Value j) {
        BlockOperands in{a, packed, sums, i, j, start, end, first};
        if (instructions == BFloat16Instructions::AmxTiles)
          amxBlock(jb, loc, in);
        else
          avx512DotBlock(jb, loc, in, blocking);
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
