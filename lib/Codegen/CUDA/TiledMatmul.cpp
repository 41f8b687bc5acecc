//===- TiledMatmul.cpp - matmuls tiled through shared memory --------------===//
//
// One thread per element of C reads a row of A and a column of B from
// global memory for every element: bound by memory, 1.3 TFLOP/s at 4096 on
// an H100. Tiled, each block loads a BK-deep slice of A's and B's tiles into
// shared memory once and every thread reuses it for a TM x TN block of C
// held in registers.
//
//===----------------------------------------------------------------------===//

#include "TiledMatmul.h"
#include "LoopNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

/// The tile sizes of one kernel: BM x BN of C per block, BK deep slices of
/// the reduction, TM x TN of C per thread.
struct TileShape {
  int64_t bm, bn, bk, tm, tn;
  int64_t threads() const { return (bm / tm) * (bn / tn); }
};

} // namespace

std::optional<mlir::ember::MatmulNest> mlir::ember::matchMatmulNest(scf::ParallelOp loop) {
  if (loop.getNumLoops() != 2)
    return std::nullopt;
  // From 0 in steps of 1 (to bounds that may be `?`).
  for (unsigned d = 0; d < 2; ++d)
    if (getConstantIntValue(loop.getLowerBound()[d]) != 0 ||
        getConstantIntValue(loop.getStep()[d]) != 1)
      return std::nullopt;
  Block *body = loop.getBody();
  if (!llvm::hasSingleElement(body->without_terminator()))
    return std::nullopt;
  auto reduction = dyn_cast<scf::ForOp>(body->front());
  if (!reduction || reduction.getNumResults() ||
      getConstantIntValue(reduction.getLowerBound()) != 0 ||
      getConstantIntValue(reduction.getStep()) != 1)
    return std::nullopt;
  Value i = loop.getInductionVars()[0], j = loop.getInductionVars()[1];
  Value k = reduction.getInductionVar();
  // Exactly: load A[i, k], load B[k, j], load C[i, j], mul, add, store C[i, j]
  // (and an extf of each 16-bit operand that a float32 C sums).
  SmallVector<Operation *> ops;
  for (Operation &op : reduction.getBody()->without_terminator())
    ops.push_back(&op);
  if (ops.size() < 6)
    return std::nullopt;
  auto store = dyn_cast<memref::StoreOp>(ops.back());
  if (!store || store.getIndices() != ValueRange{i, j})
    return std::nullopt;
  Operation *sum = store.getValueToStore().getDefiningOp();
  if (!sum || !isa<arith::AddFOp, arith::AddIOp>(sum))
    return std::nullopt;
  MatmulNest nest;
  nest.isFloat = isa<arith::AddFOp>(sum);
  memref::LoadOp accumulator;
  Operation *product = nullptr;
  for (Value operand : sum->getOperands()) {
    if (auto load = operand.getDefiningOp<memref::LoadOp>();
        load && load.getMemRef() == store.getMemRef() && load.getIndices() == store.getIndices())
      accumulator = load;
    else
      product = operand.getDefiningOp();
  }
  if (!accumulator || !product || !isa<arith::MulFOp, arith::MulIOp>(product) ||
      isa<arith::MulFOp>(product) != nest.isFloat)
    return std::nullopt;
  size_t widenings = 0;
  for (Value operand : product->getOperands()) {
    if (auto widen = operand.getDefiningOp<arith::ExtFOp>()) {
      operand = widen.getIn();
      ++widenings;
    }
    auto load = operand.getDefiningOp<memref::LoadOp>();
    if (!load)
      return std::nullopt;
    if (load.getIndices() == ValueRange{i, k} || load.getIndices() == ValueRange{k, i}) {
      nest.a = load.getMemRef();
      nest.aTransposed = load.getIndices()[0] == k;
    } else if (load.getIndices() == ValueRange{k, j} || load.getIndices() == ValueRange{j, k}) {
      nest.b = load.getMemRef();
      nest.bTransposed = load.getIndices()[0] == j;
    }
  }
  nest.c = store.getMemRef();
  if (!nest.a || !nest.b || ops.size() != 6 + widenings)
    return std::nullopt;
  // The sizes: the loops' bounds (defined before the nest: its body is the
  // reduction alone), `?` where they are not constants.
  nest.mValue = loop.getUpperBound()[0];
  nest.nValue = loop.getUpperBound()[1];
  nest.kValue = reduction.getUpperBound();
  nest.m = getConstantIntValue(nest.mValue).value_or(ShapedType::kDynamic);
  nest.n = getConstantIntValue(nest.nValue).value_or(ShapedType::kDynamic);
  nest.k = getConstantIntValue(nest.kValue).value_or(ShapedType::kDynamic);
  for (Value memref : {nest.a, nest.b, nest.c})
    if (!cast<MemRefType>(memref.getType()).getLayout().isIdentity())
      return std::nullopt;
  return nest;
}

bool mlir::ember::mapMatmulToTiles(scf::ParallelOp loop, std::optional<bool> large) {
  std::optional<MatmulNest> nest = matchMatmulNest(loop);
  if (!nest)
    return false;
  Type element = cast<MemRefType>(nest->c.getType()).getElementType();
  // Operands of C's type, or 16-bit floats widened to it as they are staged
  // (where tensor cores do not take them: chips before sm_80, rows that are
  // not whole 16-byte chunks).
  bool widened = nest->elementA() != element || nest->elementB() != element;
  // Large problems: 128 x 128 tiles, 8 x 8 per thread; others (and a `?` M
  // or N, which may be small, unless told) 64 x 64, 4 x 4.
  bool dynamicM = ShapedType::isDynamic(nest->m), dynamicN = ShapedType::isDynamic(nest->n),
       dynamicK = ShapedType::isDynamic(nest->k);
  bool anyDynamic = dynamicM || dynamicN || dynamicK;
  TileShape shape = large.value_or(!dynamicM && !dynamicN && nest->m >= 1024 && nest->n >= 1024)
                        ? TileShape{128, 128, 8, 8, 8}
                        : TileShape{64, 64, 16, 4, 4};
  auto tilesOf = [&](int64_t size, int64_t tile) { return (size + tile - 1) / tile; };
  // Too few tiles to fill the GPU's 132 multiprocessors: split the reduction
  // (floats, static sizes: the partial tiles are added atomically).
  int64_t splits = 1, tilesPerSplit = 0;
  if (!anyDynamic) {
    int64_t tilesM = tilesOf(nest->m, shape.bm), tilesN = tilesOf(nest->n, shape.bn),
            kTiles = tilesOf(nest->k, shape.bk);
    if (nest->isFloat && tilesM * tilesN < 132)
      splits = std::clamp<int64_t>(264 / (tilesM * tilesN), 1, std::max<int64_t>(1, kTiles / 4));
    tilesPerSplit = std::max<int64_t>(1, tilesOf(kTiles, splits));
    splits = std::max<int64_t>(1, tilesOf(kTiles, tilesPerSplit));
  }
  int64_t threads = shape.threads();

  MLIRContext *context = loop.getContext();
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto index = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
  auto workgroup = gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  // A's tile is stored transposed: the threads of a warp write down its
  // columns, which a row of exactly BM elements put in few banks. Rows 16
  // bytes longer spread them (and keep the 16-byte alignment of reads).
  int64_t aPitch = shape.bm + 16 / (element.getIntOrFloatBitWidth() / 8);
  auto aTileType = MemRefType::get({shape.bk, aPitch}, element, MemRefLayoutAttrInterface(), workgroup);
  auto bTileType = MemRefType::get({shape.bk, shape.bn}, element, MemRefLayoutAttrInterface(), workgroup);
  Value one = index(1);
  // The sizes and their tiles: constants, or counted at the call.
  auto sizeOf = [&](bool dynamic, int64_t size, Value value) {
    return dynamic ? value : index(size);
  };
  Value m = sizeOf(dynamicM, nest->m, nest->mValue), n = sizeOf(dynamicN, nest->n, nest->nValue),
        k = sizeOf(dynamicK, nest->k, nest->kValue);
  auto tiles = [&](bool dynamic, int64_t size, Value value, int64_t tile) -> Value {
    if (!dynamic)
      return index(tilesOf(size, tile));
    return arith::CeilDivUIOp::create(b, loc, value, index(tile));
  };
  Value rowTiles = tiles(dynamicM, nest->m, m, shape.bm),
        columnTiles = tiles(dynamicN, nest->n, n, shape.bn),
        kTiles = tiles(dynamicK, nest->k, k, shape.bk);
  // M's tiles along grid x for a `?` M (whose 2^31 - 1 blocks hold any M;
  // grid y holds 65535).
  Value gridX = dynamicM ? rowTiles : columnTiles, gridY = dynamicM ? columnTiles : rowTiles;
  // A `?` K (floats): the same split of the reduction, counted at the call;
  // a weight gradient's few tiles of C summed over a `?` batch would
  // otherwise run on a few multiprocessors. (A `?` M or N alone: no split.)
  bool splitAtCall = dynamicK && nest->isFloat;
  Value splitCount = index(splits), sliceTilesPerSplit = index(tilesPerSplit);
  if (splitAtCall) {
    auto maxOf = [&](Value x, int64_t floor) -> Value {
      return arith::MaxUIOp::create(b, loc, x, index(floor));
    };
    Value tiles = maxOf(arith::MulIOp::create(b, loc, rowTiles, columnTiles), 1);
    Value wanted = arith::DivUIOp::create(b, loc, index(264), tiles);
    Value most = maxOf(arith::DivUIOp::create(b, loc, kTiles, index(4)), 1);
    Value count = maxOf(arith::MinUIOp::create(b, loc, wanted, most), 1);
    sliceTilesPerSplit = maxOf(arith::CeilDivUIOp::create(b, loc, kTiles, count), 1);
    splitCount = maxOf(arith::CeilDivUIOp::create(b, loc, kTiles, sliceTilesPerSplit), 1);
  }
  bool atomicWrites = splits > 1 || splitAtCall;
  auto launch = gpu::LaunchOp::create(b, loc, gridX, gridY, splitCount, index(threads), one, one,
                                      /*dynamicSharedMemorySize=*/Value(),
                                      /*asyncTokenType=*/Type(), ValueRange{},
                                      TypeRange{aTileType, bTileType});
  Value aTile = launch.getWorkgroupAttributions()[0], bTile = launch.getWorkgroupAttributions()[1];
  b.setInsertionPointToStart(&launch.getBody().front());

  Value tid = launch.getThreadIds().x;
  Value tx = arith::RemUIOp::create(b, loc, tid, index(shape.bn / shape.tn));
  Value ty = arith::DivUIOp::create(b, loc, tid, index(shape.bn / shape.tn));
  Value rowTile = dynamicM ? launch.getBlockIds().x : launch.getBlockIds().y;
  Value columnTile = dynamicM ? launch.getBlockIds().y : launch.getBlockIds().x;
  Value rowBase = arith::MulIOp::create(b, loc, rowTile, index(shape.bm));
  Value colBase = arith::MulIOp::create(b, loc, columnTile, index(shape.bn));
  Value firstTile = index(0), lastTile = kTiles;
  if (atomicWrites) {
    firstTile = arith::MulIOp::create(b, loc, launch.getBlockIds().z, sliceTilesPerSplit);
    lastTile = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, firstTile, sliceTilesPerSplit), kTiles);
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  auto rowType = VectorType::get({shape.tn}, element);
  // A thread's TN columns of B as two 16-byte halves BN/2 apart when TN is
  // two 16-byte vectors (8 f32): with TN in a row, the 16-byte reads of a
  // warp's threads were 32 bytes apart, 2-way bank conflicts on every read.
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  bool splitColumns = shape.tn * elementBytes == 32;
  auto halfType = VectorType::get({shape.tn / 2}, element);
  auto columnType = VectorType::get({shape.tm}, element);
  Value zeroRow = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(rowType, b.getZeroAttr(element)));
  SmallVector<Value> initial(shape.tm, zeroRow);

  // Reads the operand's element (row, column) (stored transposed or not)
  // into tile[tileRow, tileColumn], with zeros past the edges (only where
  // the shapes leave partial tiles).
  bool aPartial = dynamicM || dynamicK || nest->m % shape.bm != 0 || nest->k % shape.bk != 0;
  bool bPartial = dynamicK || dynamicN || nest->k % shape.bk != 0 || nest->n % shape.bn != 0;
  // 16-byte reads of whole tiles: rows a multiple of 16 bytes (aligned
  // reads), every thread the same number of them.
  int64_t lanes = 16 / (element.getIntOrFloatBitWidth() / 8);
  auto laneType = VectorType::get({lanes}, element);
  bool aVector = !widened && !aPartial && !nest->aTransposed && nest->k % lanes == 0 &&
                 shape.bm * shape.bk % (lanes * threads) == 0;
  bool bVector = !widened && !bPartial && !nest->bTransposed && nest->n % lanes == 0 &&
                 shape.bk * shape.bn % (lanes * threads) == 0;
  auto stage = [&](OpBuilder &sb, Value source, bool transposed, bool partial, Value rows,
                   Value columns, Value row, Value column, Value tile, Value tileRow,
                   Value tileColumn) {
    auto at = [&](Value r, Value c) {
      return transposed ? SmallVector<Value, 2>{c, r} : SmallVector<Value, 2>{r, c};
    };
    // A 16-bit operand is widened to C's type as it is staged.
    auto read = [&](Value r, Value c) -> Value {
      Value loaded = memref::LoadOp::create(sb, loc, source, at(r, c));
      return loaded.getType() == element ? loaded : arith::ExtFOp::create(sb, loc, element, loaded);
    };
    Value value;
    if (!partial) {
      value = read(row, column);
    } else {
      // (A block runs only where M is at least 1: a grid of no blocks
      // launches nothing.)
      Value inRows = arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::ult, row, rows);
      Value inColumns = arith::CmpIOp::create(sb, loc, arith::CmpIPredicate::ult, column, columns);
      Value inside = arith::AndIOp::create(sb, loc, inRows, inColumns);
      Value safeRow =
          arith::MinUIOp::create(sb, loc, row, arith::SubIOp::create(sb, loc, rows, one));
      Value safeColumn =
          arith::MinUIOp::create(sb, loc, column, arith::SubIOp::create(sb, loc, columns, one));
      value = arith::SelectOp::create(sb, loc, inside, read(safeRow, safeColumn), zero);
    }
    memref::StoreOp::create(sb, loc, value, tile, ValueRange{tileRow, tileColumn});
  };

  auto slices = scf::ForOp::create(
      b, loc, firstTile, lastTile, one, initial,
      [&](OpBuilder &kb, Location, Value kt, ValueRange acc) {
        Value kBase = arith::MulIOp::create(kb, loc, kt, index(shape.bk));
        // A's tile, stored transposed (k-major) so that a thread's TM rows
        // are one vector read; B's tile as it is (coalesced reads). Whole,
        // untransposed tiles are read 16 bytes at a time.
        // Calls `visit(row, column)` for the (row, column) of the tile of
        // `rows` x `columns` that each of this thread's reads starts at:
        // `width` elements a read, consecutive threads reading along rows.
        auto forEachRead = [&](int64_t rows, int64_t columns, int64_t width,
                               llvm::function_ref<void(Value, Value)> visit) {
          for (int64_t q = 0; q < rows * columns / width / threads; ++q) {
            Value linear = arith::AddIOp::create(kb, loc, tid, index(q * threads));
            Value r = arith::DivUIOp::create(kb, loc, linear, index(columns / width));
            Value c = arith::MulIOp::create(
                kb, loc, arith::RemUIOp::create(kb, loc, linear, index(columns / width)),
                index(width));
            visit(r, c);
          }
        };
        auto readLanes = [&](Value source, Value row, Value column) {
          auto part = vector::LoadOp::create(kb, loc, laneType, source, ValueRange{row, column});
          part.setAlignmentAttr(kb.getI64IntegerAttr(16));
          return part;
        };
        auto plus = [&](Value a, Value b) { return arith::AddIOp::create(kb, loc, a, b); };
        forEachRead(shape.bm, shape.bk, aVector ? lanes : 1, [&](Value r, Value c) {
          if (!aVector)
            return stage(kb, nest->a, nest->aTransposed, aPartial, m, k, plus(rowBase, r),
                         plus(kBase, c), aTile, c, r);
          Value part = readLanes(nest->a, plus(rowBase, r), plus(kBase, c));
          for (int64_t e = 0; e < lanes; ++e)
            memref::StoreOp::create(kb, loc, vector::ExtractOp::create(kb, loc, part, e), aTile,
                                    ValueRange{plus(c, index(e)), r});
        });
        forEachRead(shape.bk, shape.bn, bVector ? lanes : 1, [&](Value r, Value c) {
          if (!bVector)
            return stage(kb, nest->b, nest->bTransposed, bPartial, k, n, plus(kBase, r),
                         plus(colBase, c), bTile, r, c);
          auto staged = vector::StoreOp::create(
              kb, loc, readLanes(nest->b, plus(kBase, r), plus(colBase, c)), bTile,
              ValueRange{r, c});
          staged.setAlignmentAttr(kb.getI64IntegerAttr(16));
        });
        gpu::BarrierOp::create(kb, loc);
        SmallVector<Value> next(acc.begin(), acc.end());
        Value aOffset = arith::MulIOp::create(kb, loc, ty, index(shape.tm));
        Value bOffset = arith::MulIOp::create(kb, loc, tx, index(shape.tn));
        Value halfOffset = arith::MulIOp::create(kb, loc, tx, index(shape.tn / 2));
        // The fragments start at multiples of TM and TN elements: 16-byte
        // aligned shared reads (ld.shared.v4).
        int64_t bytes = element.getIntOrFloatBitWidth() / 8;
        IntegerAttr alignment =
            kb.getI64IntegerAttr(std::min<int64_t>(16, std::min(shape.tm, shape.tn) * bytes));
        for (int64_t kk = 0; kk < shape.bk; ++kk) {
          auto aColumn = vector::LoadOp::create(kb, loc, columnType, aTile,
                                                ValueRange{index(kk), aOffset});
          aColumn.setAlignmentAttr(alignment);
          Value bRow;
          if (splitColumns) {
            // Two halves, BN/2 apart: a warp's 16-byte reads then cover
            // consecutive addresses (no bank conflicts).
            auto low = vector::LoadOp::create(kb, loc, halfType, bTile,
                                              ValueRange{index(kk), halfOffset});
            auto high = vector::LoadOp::create(
                kb, loc, halfType, bTile,
                ValueRange{index(kk), arith::AddIOp::create(kb, loc, halfOffset, index(shape.bn / 2))});
            low.setAlignmentAttr(kb.getI64IntegerAttr(16));
            high.setAlignmentAttr(kb.getI64IntegerAttr(16));
            SmallVector<int64_t> both = llvm::to_vector(llvm::seq<int64_t>(0, shape.tn));
            bRow = vector::ShuffleOp::create(kb, loc, low, high, both);
          } else {
            auto row = vector::LoadOp::create(kb, loc, rowType, bTile, ValueRange{index(kk), bOffset});
            row.setAlignmentAttr(alignment);
            bRow = row;
          }
          for (int64_t r = 0; r < shape.tm; ++r) {
            Value a = vector::ExtractOp::create(kb, loc, aColumn, r);
            Value splat = vector::BroadcastOp::create(kb, loc, rowType, a);
            next[r] = nest->isFloat
                          ? Value(vector::FMAOp::create(kb, loc, splat, bRow, next[r]))
                          : Value(arith::AddIOp::create(
                                kb, loc, next[r], arith::MulIOp::create(kb, loc, splat, bRow)));
          }
        }
        gpu::BarrierOp::create(kb, loc);
        scf::YieldOp::create(kb, loc, next);
      });

  // C's elements: added to what C holds (atomically when the reduction may
  // be split), past the edges skipped.
  bool partialC = dynamicM || dynamicN || nest->m % shape.bm != 0 || nest->n % shape.bn != 0;
  for (int64_t r = 0; r < shape.tm; ++r)
    for (int64_t c = 0; c < shape.tn; ++c) {
      Value row = arith::AddIOp::create(
          b, loc, rowBase,
          arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, ty, index(shape.tm)), index(r)));
      // The thread's columns: TN in a row, or (split) two runs of TN/2, BN/2
      // apart.
      Value column =
          splitColumns
              ? arith::AddIOp::create(
                    b, loc, colBase,
                    arith::AddIOp::create(
                        b, loc, arith::MulIOp::create(b, loc, tx, index(shape.tn / 2)),
                        index(c % (shape.tn / 2) + (c >= shape.tn / 2 ? shape.bn / 2 : 0))))
              : arith::AddIOp::create(
                    b, loc, colBase,
                    arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, tx, index(shape.tn)),
                                          index(c)));
      Value value = vector::ExtractOp::create(b, loc, slices.getResult(r), c);
      auto write = [&](OpBuilder &wb) {
        if (atomicWrites) {
          memref::AtomicRMWOp::create(wb, loc, arith::AtomicRMWKind::addf, value, nest->c,
                                      ValueRange{row, column});
          return;
        }
        Value old = memref::LoadOp::create(wb, loc, nest->c, ValueRange{row, column});
        Value sum = nest->isFloat ? Value(arith::AddFOp::create(wb, loc, old, value))
                                  : Value(arith::AddIOp::create(wb, loc, old, value));
        memref::StoreOp::create(wb, loc, sum, nest->c, ValueRange{row, column});
      };
      if (!partialC) {
        write(b);
        continue;
      }
      Value inside = arith::AndIOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, m),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, column, n));
      scf::IfOp::create(b, loc, inside, [&](OpBuilder &ib, Location iloc) {
        write(ib);
        scf::YieldOp::create(ib, iloc);
      });
    }
  gpu::TerminatorOp::create(b, loc);
  loop.erase();
  return true;
}

bool mlir::ember::mapMatmulBySizeAtCall(scf::ParallelOp loop, bool tensorCores, bool allowTF32) {
  std::optional<MatmulNest> nest = matchMatmulNest(loop);
  // Not where the sizes decide already: both static, or one static below 1024.
  auto staticBelow1024 = [](int64_t size) { return !ShapedType::isDynamic(size) && size < 1024; };
  if (!nest || (!ShapedType::isDynamic(nest->m) && !ShapedType::isDynamic(nest->n)) ||
      staticBelow1024(nest->m) || staticBelow1024(nest->n))
    return false;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto atLeast1024 = [&](Value size) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, size,
                                 arith::ConstantIndexOp::create(b, loc, 1024));
  };
  Value large = arith::AndIOp::create(b, loc, atLeast1024(nest->mValue), atLeast1024(nest->nValue));
  auto choice = scf::IfOp::create(b, loc, large, /*withElseRegion=*/true);
  bool mapped = true;
  for (bool isLarge : {true, false}) {
    Block *block = isLarge ? choice.thenBlock() : choice.elseBlock();
    OpBuilder bb = OpBuilder::atBlockBegin(block);
    auto copy = cast<scf::ParallelOp>(bb.clone(*loop));
    const TensorCoreShape &blocks = isLarge ? kLargeTensorCoreBlocks : kSmallTensorCoreBlocks;
    mapped = mapped && ((tensorCores && mapMatmulToTensorCores(copy, allowTF32, &blocks)) ||
                        mapMatmulToTiles(copy, isLarge));
  }
  if (!mapped) { // (the tiles take every matmul nest; kept for safety)
    choice.erase();
    return false;
  }
  loop.erase();
  return true;
}
