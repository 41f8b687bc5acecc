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

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/Matchers.h"

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

/// Four tilezero, one each: four tile registers for a 32x32 block of sums.
SmallVector<Value> zeroTiles(OpBuilder &b, Location loc) {
  auto cTile = amx::TileType::get({kLanes, kLanes}, b.getF32Type());
  SmallVector<Value> zeros;
  for (int t = 0; t < 4; ++t)
    zeros.push_back(amx::TileZeroOp::create(b, loc, cTile));
  return zeros;
}

/// One step of 32 along k of a 32x32 block on tiles: A's tiles `a0`, `a1`
/// (the block's two 16-row halves) times B's packed tiles `tile` and
/// `tile + 1` at pair row `half`, added to `sums` (the block's four tiles:
/// top left, top right, bottom left, bottom right).
SmallVector<Value> multiplyTiles(OpBuilder &b, Location loc, Value a0, Value a1, Value packed,
                                 Value tile, Value half, ValueRange sums) {
  auto bTile = amx::TileType::get({kLanes, kDepth}, b.getBF16Type());
  auto cTile = amx::TileType::get({kLanes, kLanes}, b.getF32Type());
  Value zero = constantIndex(b, loc, 0);
  Value nextTile = arith::AddIOp::create(b, loc, tile, constantIndex(b, loc, 1));
  Value b0 = amx::TileLoadOp::create(b, loc, bTile, packed, ValueRange{tile, half, zero});
  Value b1 = amx::TileLoadOp::create(b, loc, bTile, packed, ValueRange{nextTile, half, zero});
  const std::array<std::pair<Value, Value>, 4> factors = {{{a0, b0}, {a0, b1}, {a1, b0}, {a1, b1}}};
  SmallVector<Value> next;
  for (auto [t, pair] : llvm::enumerate(factors))
    next.push_back(amx::TileMulFOp::create(b, loc, cTile, pair.first, pair.second, sums[t]));
  return next;
}

/// A 32x32 block of C on AMX tiles: four tiles that sum the pass's steps of
/// 32 along k, each step two tiles of A and two of B.
void amxBlock(OpBuilder &b, Location loc, const BlockOperands &in) {
  auto index = [&](int64_t value) { return constantIndex(b, loc, value); };
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  auto aTile = amx::TileType::get({kLanes, kDepth}, bf16);
  auto cTile = amx::TileType::get({kLanes, kLanes}, f32);
  Value lowerRows = arith::AddIOp::create(b, loc, in.i, index(kLanes));
  Value tile = arith::DivUIOp::create(b, loc, in.j, index(kLanes));
  Value right = arith::AddIOp::create(b, loc, in.j, index(kLanes));
  const std::array<std::array<Value, 2>, 4> corners = {
      {{in.i, in.j}, {in.i, right}, {lowerRows, in.j}, {lowerRows, right}}};
  // Zeros on the first pass, else the sums so far.
  auto initial = scf::IfOp::create(
      b, loc, in.first,
      [&](OpBuilder &zb, Location) { scf::YieldOp::create(zb, loc, zeroTiles(zb, loc)); },
      [&](OpBuilder &lb, Location) {
        SmallVector<Value> sofar;
        for (const auto &corner : corners)
          sofar.push_back(amx::TileLoadOp::create(lb, loc, cTile, in.sums, corner));
        scf::YieldOp::create(lb, loc, sofar);
      });
  auto steps = scf::ForOp::create(
      b, loc, in.start, in.end, index(kDepth), initial.getResults(),
      [&](OpBuilder &kb, Location, Value kk, ValueRange acc) {
        Value a0 = amx::TileLoadOp::create(kb, loc, aTile, in.a, ValueRange{in.i, kk});
        Value a1 = amx::TileLoadOp::create(kb, loc, aTile, in.a, ValueRange{lowerRows, kk});
        Value half = arith::DivUIOp::create(kb, loc, kk, constantIndex(kb, loc, 2));
        scf::YieldOp::create(kb, loc, multiplyTiles(kb, loc, a0, a1, in.packed, tile, half, acc));
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

bool mlir::ember::suitsAmxConvolution(const ConvolutionPatches &patches, int64_t columns) {
  const SmallVector<int64_t> &loops = patches.loops;
  if (loops.size() != 6 || patches.read.getNumDims() != 6 || patches.read.getNumResults() != 4 ||
      patches.read.getNumSymbols() != 0 ||
      llvm::any_of(loops, [](int64_t size) { return size <= 0; }) ||
      !cast<ShapedType>(patches.input.getType()).hasStaticShape())
    return false;
  // Each index as its loops' coefficients and a constant; a mod or a
  // floordiv adds local columns, which no tile load can follow.
  std::vector<SmallVector<int64_t, 8>> flat;
  if (failed(getFlattenedAffineExprs(patches.read, &flat)) ||
      llvm::any_of(flat, [](const SmallVector<int64_t, 8> &row) { return row.size() != 7; }))
    return false;
  enum { N, OH, OW, KH, KW, C };
  enum { BATCH, H, W, CHANNEL };
  auto coefficient = [&](unsigned index, unsigned d) { return flat[index][d]; };
  // Whether `index` moves with the loop `d` alone.
  auto only = [&](unsigned index, unsigned d) {
    for (unsigned other = 0; other < 6; ++other)
      if (other != d && coefficient(index, other) != 0)
        return false;
    return true;
  };
  // H and W grow with every loop (the last pixel's last tap reads furthest).
  for (unsigned index : {H, W})
    for (unsigned d = 0; d < 6; ++d)
      if (coefficient(index, d) < 0)
        return false;
  // Along W one step of ow is one element of the input (so that a tile's
  // 16 rows, 16 output pixels of a row, are one strided load); channels
  // innermost, alone and one by one; n only in the first index.
  return loops[C] % kDepth == 0 && columns >= 2 * kLanes && coefficient(W, OW) == 1 &&
         coefficient(W, C) == 0 && coefficient(W, OH) == 0 && coefficient(W, N) == 0 &&
         coefficient(W, KH) == 0 && only(CHANNEL, C) && coefficient(CHANNEL, C) == 1 &&
         only(BATCH, N) && coefficient(H, OW) == 0 && coefficient(H, C) == 0 &&
         coefficient(H, N) == 0;
}

Value mlir::ember::emitAmxConvolution(OpBuilder &b, Location loc, const ConvolutionPatches &patches,
                                      Value rhs) {
  enum { N, OH, OW, KH, KW, C };
  const SmallVector<int64_t> &loops = patches.loops;
  int64_t f = cast<RankedTensorType>(rhs.getType()).getDimSize(1);
  int64_t k = loops[KH] * loops[KW] * loops[C];
  // Output pixels in blocks of 32 along each row (the rows past OW are
  // computed and dropped), or, where rows have no more than 16 pixels, of two
  // rows of 16 (8x14x14x256 -> 256: 1.7x faster than blocks of 32 mostly
  // dropped); filters in blocks of 32.
  bool pairRows = loops[OW] <= kLanes;
  int64_t owPadded = pairRows ? kLanes : roundUp(loops[OW], 2 * kLanes);
  int64_t ohPadded = pairRows ? roundUp(loops[OH], 2) : loops[OH];
  int64_t fPadded = roundUp(f, 2 * kLanes);
  Type bf16 = b.getBF16Type(), f32 = b.getF32Type();
  auto index = [&](OpBuilder &ib, int64_t value) { return constantIndex(ib, loc, value); };
  Value zero = index(b, 0);

  // The input with room below and on the right for the dropped pixels'
  // reads: up to the last padded pixel's last tap.
  auto inputType = cast<RankedTensorType>(patches.input.getType());
  SmallVector<int64_t> shape(inputType.getShape());
  SmallVector<int64_t> lastIndices = {loops[N] - 1,  ohPadded - 1,  owPadded - 1,
                                      loops[KH] - 1, loops[KW] - 1, loops[C] - 1};
  SmallVector<AffineExpr> lastExprs;
  for (int64_t v : lastIndices)
    lastExprs.push_back(b.getAffineConstantExpr(v));
  // (Coefficients of at least 0 along H and W (suitsAmxConvolution), so the
  // last pixel's last tap reads furthest.)
  auto extentAlong = [&](unsigned d) {
    auto last = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(patches.read.getResult(d).replaceDims(lastExprs), 6, 0));
    return std::max(shape[d], last ? last.getValue() + 1 : shape[d]);
  };
  SmallVector<int64_t> wider = shape;
  wider[1] = extentAlong(1);
  wider[2] = extentAlong(2);
  Value input = patches.input;
  if (wider != shape) {
    Value zeros = linalg::FillOp::create(
                      b, loc, ValueRange{arith::ConstantOp::create(b, loc, b.getZeroAttr(bf16))},
                      ValueRange{tensor::EmptyOp::create(b, loc, wider, bf16)})
                      .getResult(0);
    // A padded input (the convolution's own padding: an insertion into
    // zeros) goes straight into the wider zeros: one copy of it, not two.
    auto padding = input.getDefiningOp<tensor::InsertSliceOp>();
    auto fill = padding ? padding.getDest().getDefiningOp<linalg::FillOp>() : linalg::FillOp();
    if (fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat())) {
      input = tensor::InsertSliceOp::create(b, loc, padding.getSource(), zeros,
                                            padding.getMixedOffsets(), padding.getMixedSizes(),
                                            padding.getMixedStrides());
    } else {
      SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0)), strides(4, b.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes;
      for (int64_t size : shape)
        sizes.push_back(b.getIndexAttr(size));
      input = tensor::InsertSliceOp::create(b, loc, input, zeros, offsets, sizes, strides);
    }
    shape = wider;
  }
  Value source = bufferization::ToBufferOp::create(b, loc, MemRefType::get(shape, bf16), input,
                                                   /*read_only=*/true);
  Value packed = packPairsOfRows(b, loc, rhs, fPadded, k);

  // Sums [N, OH, owPadded, fPadded]; each (n, oh) a row block of threads.
  auto sumsType = MemRefType::get({loops[N], ohPadded, owPadded, fPadded}, f32);
  Value sums = memref::AllocOp::create(b, loc, sumsType);
  auto aTile = amx::TileType::get({kLanes, kDepth}, bf16);
  auto rows = forEach(
      b, loc, zero, index(b, loops[N] * ohPadded), pairRows ? 2 : 1, [&](OpBuilder &rb, Value row) {
        Value n = arith::DivUIOp::create(rb, loc, row, index(rb, ohPadded));
        Value oh = arith::RemUIOp::create(rb, loc, row, index(rb, ohPadded));
        Value oh1 = pairRows ? arith::AddIOp::create(rb, loc, oh, index(rb, 1)).getResult() : oh;
        forEach(
            rb, loc, zero, index(rb, owPadded), pairRows ? kLanes : 2 * kLanes,
            [&](OpBuilder &pb, Value ow) {
              // The second tile's 16 pixels: the next row's, or the next 16.
              Value ow1 = pairRows ? ow : arith::AddIOp::create(pb, loc, ow, index(pb, kLanes));
              forEach(pb, loc, zero, index(pb, fPadded), 2 * kLanes, [&](OpBuilder &jb, Value j) {
                Value tile = arith::DivUIOp::create(jb, loc, j, index(jb, kLanes));
                Value j1 = arith::AddIOp::create(jb, loc, j, index(jb, kLanes));
                SmallVector<Value> zeros = zeroTiles(jb, loc);
                // k as (tap, step of 32 channels): the taps' loops outside.
                auto taps = scf::ForOp::create(
                    jb, loc, zero, index(jb, loops[KH] * loops[KW]), index(jb, 1), zeros,
                    [&](OpBuilder &tb, Location, Value tap, ValueRange acc) {
                      Value kh = arith::DivUIOp::create(tb, loc, tap, index(tb, loops[KW]));
                      Value kw = arith::RemUIOp::create(tb, loc, tap, index(tb, loops[KW]));
                      Value base = arith::MulIOp::create(tb, loc, tap, index(tb, loops[C]));
                      auto steps = scf::ForOp::create(
                          tb, loc, zero, index(tb, loops[C]), index(tb, kDepth), acc,
                          [&](OpBuilder &kb, Location, Value c, ValueRange sofar) {
                            auto at = [&](Value outputRow, Value pixel) {
                              return *affine::expandAffineMap(
                                  kb, loc, patches.read,
                                  ValueRange{n, outputRow, pixel, kh, kw, c});
                            };
                            Value a0 = amx::TileLoadOp::create(kb, loc, aTile, source, at(oh, ow));
                            Value a1 =
                                amx::TileLoadOp::create(kb, loc, aTile, source, at(oh1, ow1));
                            Value kk = arith::AddIOp::create(kb, loc, base, c);
                            Value half = arith::DivUIOp::create(kb, loc, kk, index(kb, 2));
                            scf::YieldOp::create(
                                kb, loc, multiplyTiles(kb, loc, a0, a1, packed, tile, half, sofar));
                          });
                      scf::YieldOp::create(tb, loc, steps.getResults());
                    });
                const std::array<std::array<Value, 3>, 4> corners = {
                    {{oh, ow, j}, {oh, ow, j1}, {oh1, ow1, j}, {oh1, ow1, j1}}};
                for (auto [corner, value] : llvm::zip(corners, taps.getResults()))
                  amx::TileStoreOp::create(jb, loc, sums,
                                           ValueRange{n, corner[0], corner[1], corner[2]}, value);
              });
            });
      });
  // The work ember-cpu-parallelize weighs before sharing the rows.
  rows->setAttr("ember.blocked_matmul_rows",
                b.getI64IntegerAttr(loops[N] * loops[OH] * loops[OW] * f * k));
  Value product = bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get({loops[N], ohPadded, owPadded, fPadded}, f32), sums,
      /*restrict=*/true, /*writable=*/true);
  SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0)), strides(4, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(loops[N]), b.getIndexAttr(loops[OH]),
                                     b.getIndexAttr(loops[OW]), b.getIndexAttr(f)};
  Value pixels = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({loops[N], loops[OH], loops[OW], f}, f32), product, offsets,
      sizes, strides);
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({loops[N] * loops[OH] * loops[OW], f}, f32), pixels,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
}
