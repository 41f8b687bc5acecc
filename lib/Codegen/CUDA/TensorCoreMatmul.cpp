//===- TensorCoreMatmul.cpp - matmuls on tensor cores ---------------------===//
//
// A float16 or bfloat16 matmul widened to float32 and multiplied on the CUDA
// cores (TiledMatmul) runs at a fraction of what the tensor cores do with
// the 16-bit operands themselves. Here each warp computes a block of C with
// `mma.sync` (float32 accumulators; m16n8k16 for 16-bit operands, products
// exact; m16n8k8 for float32 operands rounded to TF32 when TF32 is allowed),
// reading its fragments from shared memory; the block's threads copy the
// next slices of A and B into shared memory with `cp.async` (three or four
// stages) while the warps multiply the current ones.
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16 / k8"):
// lane l of a warp, g = l / 4, t = l % 4.
// - 16-bit: A's (g, 2t..2t+1), (g+8, ..), (g, 2t+8..), (g+8, 2t+8..); B's
//   (k = 2t..2t+1, n = g) and (k = 2t+8.., g). `ldmatrix.x4` gives exactly
//   A's from a row-major tile (lane l names row l % 8 of 8x8 matrix l / 8),
//   and B's from a [k][n] tile when transposed (`.trans`).
// - TF32: A's (g, t), (g+8, t), (g, t+4), (g+8, t+4); B's (k = t, n = g) and
//   (k = t+4, g). `ldmatrix` (8 rows of 16 bytes: 4 words) gives A's from a
//   row-major tile and B's from an [n][k] tile; the other layouts are read a
//   word at a time (rows padded so that the 32 lanes hit 32 banks).
// C's, both: (g, 2t..2t+1) and (g+8, 2t..2t+1).
//
//===----------------------------------------------------------------------===//

#include "TiledMatmul.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

using WarpGrid = ember::TensorCoreShape;

/// What the operands' element type makes of the kernel: 16-byte chunks of
/// `chunk` elements, mma.sync's k.
struct Precision {
  Type element;
  bool tf32;
  int64_t chunk() const { return tf32 ? 4 : 8; }
  int64_t sliceDepth(const WarpGrid &grid) const {
    return grid.sliceBytes / (element.getIntOrFloatBitWidth() / 8);
  }
  int64_t mmaK() const { return tf32 ? 8 : 16; }
  NVVM::MMATypes ptxType() const {
    return tf32               ? NVVM::MMATypes::tf32
           : element.isBF16() ? NVVM::MMATypes::bf16
                              : NVVM::MMATypes::f16;
  }
};

/// One operand's staged tiles: two buffers of `rows` x `columns` elements as
/// the operand is stored. Rows are padded by 16 bytes, so that the 8 rows an
/// ldmatrix reads fall in different banks, or (TF32 tiles read a word per
/// lane down 4 rows) by 32, so that the 4 rows' 8 words do.
struct StagedOperand {
  Value source;
  int64_t rows, columns; // The tile, in the operand's stored layout.
  int64_t sourceRows, sourceColumns;
  bool rowsAlongK; // The tile's rows run along the reduction.
  int64_t pitch(const Precision &precision) const {
    bool wordReads = precision.tf32 && rowsAlongK;
    return columns + (wordReads ? 2 : 1) * precision.chunk();
  }
  MemRefType tileType(MLIRContext *context, const Precision &precision, int64_t stages) const {
    auto workgroup = gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
    return MemRefType::get({stages, rows, pitch(precision)}, precision.element,
                           MemRefLayoutAttrInterface(), workgroup);
  }
  int64_t bytes(const Precision &precision, int64_t stages) const {
    return stages * rows * pitch(precision) * precision.element.getIntOrFloatBitWidth() / 8;
  }
};

} // namespace

std::optional<mlir::ember::TensorCoreShape>
mlir::ember::parseTensorCoreShape(llvm::StringRef text) {
  TensorCoreShape shape;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  auto pair = [](llvm::StringRef part, int64_t &x, int64_t &y) {
    auto [first, second] = part.split('x');
    return !first.getAsInteger(10, x) && !second.getAsInteger(10, y) && x > 0 && y > 0;
  };
  if (parts.size() != 4 || !pair(parts[0], shape.warpsM, shape.warpsN) ||
      !pair(parts[1], shape.mTiles, shape.nTiles) || parts[2].getAsInteger(10, shape.stages) ||
      parts[3].getAsInteger(10, shape.sliceBytes))
    return std::nullopt;
  // Two n-tiles an ldmatrix.x4, two k-steps of 32 bytes a slice at least,
  // one stage copied while another is read, at most 16 warps and the
  // 227 KiB of shared memory a block can have (checked per matmul too).
  if (shape.nTiles % 2 || shape.sliceBytes % 32 || shape.sliceBytes < 32 || shape.stages < 2 ||
      shape.warpsM * shape.warpsN > 16)
    return std::nullopt;
  return shape;
}

bool mlir::ember::mapMatmulToTensorCores(scf::ParallelOp loop, bool allowTF32,
                                         const TensorCoreShape *forcedShape) {
  std::optional<MatmulNest> nest = matchMatmulNest(loop);
  if (!nest || !nest->isFloat)
    return false;
  Type element = nest->elementA();
  if (!nest->elementC().isF32() || nest->elementB() != element)
    return false;
  Precision precision{element, element.isF32()};
  if (!(element.isF16() || element.isBF16() || (precision.tf32 && allowTF32)))
    return false;
  int64_t chunk = precision.chunk();
  // A stored [M, K] (or [K, M] transposed), B [K, N] (or [N, K]): their rows
  // are copied 16 bytes at a time (a `?` M cannot be a row's length).
  bool dynamicM = ShapedType::isDynamic(nest->m);
  if ((dynamicM && nest->aTransposed) || ShapedType::isDynamic(nest->n) ||
      ShapedType::isDynamic(nest->k) || nest->n == 0 || nest->k == 0)
    return false;
  int64_t aRowLength = nest->aTransposed ? nest->m : nest->k;
  int64_t bRowLength = nest->bTransposed ? nest->k : nest->n;
  if (aRowLength % chunk || bRowLength % chunk)
    return false;
  // Large problems: 128 x 128 of C a block of 4 warps (64 x 64 each), 4
  // stages of 64 bytes of the reduction; others (and a `?` M, which may be
  // a small batch) 64 x 64 (32 x 32 a warp), 3 stages.
  WarpGrid grid = forcedShape                                       ? *forcedShape
                  : !dynamicM && nest->m >= 1024 && nest->n >= 1024 ? kLargeTensorCoreBlocks
                                                                    : kSmallTensorCoreBlocks;
  int64_t bm = grid.bm(), bn = grid.bn(), threads = grid.threads(), stages = grid.stages;
  int64_t sliceDepth = precision.sliceDepth(grid);
  int64_t tilesN = (nest->n + bn - 1) / bn;
  int64_t kTiles = (nest->k + sliceDepth - 1) / sliceDepth;
  StagedOperand a = nest->aTransposed
                        ? StagedOperand{nest->a, sliceDepth, bm, nest->k, nest->m, true}
                        : StagedOperand{nest->a, bm, sliceDepth, nest->m, nest->k, false};
  StagedOperand bOperand = nest->bTransposed
                               ? StagedOperand{nest->b, bn, sliceDepth, nest->n, nest->k, false}
                               : StagedOperand{nest->b, sliceDepth, bn, nest->k, nest->n, true};
  // Every thread copies the same number of chunks; a block's shared memory
  // (the stages, A's then B's) is at most 227 KiB.
  int64_t aBytes = a.bytes(precision, stages), bBytes = bOperand.bytes(precision, stages);
  if (a.rows * a.columns % (chunk * threads) ||
      bOperand.rows * bOperand.columns % (chunk * threads) || aBytes + bBytes > 227 * 1024)
    return false;

  MLIRContext *context = loop.getContext();
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto index = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
  Value one = index(1);
  // The stages in dynamic shared memory (beyond the 48 KiB of static shared
  // memory for large blocks; the runtime opts the kernel in).
  Value sharedBytes = arith::ConstantIntOp::create(b, loc, aBytes + bBytes, 32);
  // M and its tiles: counted at the call for a `?` M (folded otherwise).
  Value m = dynamicM ? nest->mValue : index(nest->m);
  Value tilesM = b.createOrFold<arith::CeilDivUIOp>(loc, m, index(bm));
  Value blocks = b.createOrFold<arith::MulIOp>(loc, tilesM, index(tilesN));
  auto launch =
      gpu::LaunchOp::create(b, loc, blocks, one, one, index(threads), one, one, sharedBytes);
  b.setInsertionPointToStart(&launch.getBody().front());
  auto workgroup = gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  Value shared =
      gpu::DynamicSharedMemoryOp::create(b, loc,
                                         MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                                         MemRefLayoutAttrInterface(), workgroup));
  Value aTiles = memref::ViewOp::create(b, loc, a.tileType(context, precision, stages), shared,
                                        index(0), ValueRange{});
  Value bTiles = memref::ViewOp::create(b, loc, bOperand.tileType(context, precision, stages),
                                        shared, index(aBytes), ValueRange{});

  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y).getResult(); };
  auto plus = [&](Value x, int64_t y) { return y ? add(x, index(y)) : x; };
  auto mul = [&](Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, index(y)).getResult();
  };
  auto div = [&](Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, index(y)).getResult();
  };
  auto rem = [&](Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, index(y)).getResult();
  };
  // A size of the operands as a value: M's may be `?`.
  auto size = [&](int64_t v) { return ShapedType::isDynamic(v) ? m : index(v); };
  auto less = [&](Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, size(y)).getResult();
  };
  // min(x, y - below) (y at least `below`: a block runs only where M is 1 or
  // more, and rows are whole chunks).
  auto atMost = [&](Value x, int64_t y, int64_t below) {
    return arith::MinUIOp::create(b, loc, x, arith::SubIOp::create(b, loc, size(y), index(below)))
        .getResult();
  };

  Value tid = launch.getThreadIds().x;
  Value lane = rem(tid, 32), warp = div(tid, 32);
  constexpr int64_t kGroupRows = 8;
  Value block = launch.getBlockIds().x;
  Value group = div(block, kGroupRows * tilesN), inGroup = rem(block, kGroupRows * tilesN);
  Value firstTileRow = mul(group, kGroupRows);
  Value groupRows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tilesM, firstTileRow), index(kGroupRows));
  Value tileRow = add(firstTileRow, arith::RemUIOp::create(b, loc, inGroup, groupRows));
  Value tileColumn = arith::DivUIOp::create(b, loc, inGroup, groupRows);
  Value rowBase = mul(tileRow, bm), colBase = mul(tileColumn, bn);
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(context);

  // Copies slice `kt` of `operand` (whose side other than K starts at
  // `sideBase`: rows of C for A, columns for B) into buffer `buffer`:
  // 16-byte chunks, consecutive threads along rows; chunks past the
  // operand's edges (or the slice past the last) are zero-filled and read
  // nothing.
  auto stage = [&](const StagedOperand &operand, Value tiles, Value sideBase, Value kt,
                   Value buffer, SmallVector<Value> &tokens) {
    int64_t chunksPerRow = operand.columns / chunk;
    Value kBase = mul(kt, sliceDepth);
    for (int64_t q = 0; q < operand.rows * chunksPerRow / threads; ++q) {
      Value linear = plus(tid, q * threads);
      Value row = div(linear, chunksPerRow), column = mul(rem(linear, chunksPerRow), chunk);
      Value sourceRow = add(operand.rowsAlongK ? kBase : sideBase, row);
      Value sourceColumn = add(operand.rowsAlongK ? sideBase : kBase, column);
      Value inside = arith::AndIOp::create(b, loc, less(sourceRow, operand.sourceRows),
                                           less(sourceColumn, operand.sourceColumns));
      Value elements = arith::SelectOp::create(b, loc, inside, index(chunk), index(0));
      auto copy = nvgpu::DeviceAsyncCopyOp::create(
          b, loc, tokenType, tiles, ValueRange{buffer, row, column}, operand.source,
          ValueRange{atMost(sourceRow, operand.sourceRows, 1),
                     atMost(sourceColumn, operand.sourceColumns, chunk)},
          b.getIndexAttr(chunk), elements, b.getUnitAttr());
      tokens.push_back(copy.getAsyncToken());
    }
  };
  auto stageBoth = [&](Value kt, Value buffer) {
    SmallVector<Value> tokens;
    stage(a, aTiles, rowBase, kt, buffer, tokens);
    stage(bOperand, bTiles, colBase, kt, buffer, tokens);
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokenType, tokens).getResult();
  };

  Value warpRow = mul(div(warp, grid.warpsN), grid.mTiles * 16);
  Value warpColumn = mul(rem(warp, grid.warpsN), grid.nTiles * 8);
  // Lane l names row l % 8 of matrix l / 8 (8 rows of 16 bytes) for
  // ldmatrix: `low`/`high` step to the second/third of four matrices, by 8
  // rows or by one chunk (16 bytes) of columns.
  Value matrix = div(lane, 8), matrixRow = rem(lane, 8);
  Value g = div(lane, 4), t = rem(lane, 4);
  Value rowsLow = mul(rem(matrix, 2), 8), rowsHigh = mul(div(matrix, 2), 8);
  Value chunkLow = mul(rem(matrix, 2), chunk), chunkHigh = mul(div(matrix, 2), chunk);
  auto i32 = b.getI32Type();
  // mma.sync's operands: bfloat16 pairs and TF32 words as i32 registers,
  // float16 pairs as vector<2xf16>.
  auto toRegister = [&](Value value) -> Value {
    if (precision.tf32)
      return NVVM::ConvertFloatToTF32Op::create(b, loc, i32, value, NVVM::FPRoundingMode::RNA,
                                                NVVM::SaturationMode::NONE, false);
    if (!element.isBF16())
      return value;
    Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), value);
    return vector::ExtractOp::create(b, loc, word, 0);
  };
  // The 4 registers of an ldmatrix.x4 result.
  auto ldmatrix = [&](Value tiles, ValueRange at, bool transpose) {
    auto type =
        precision.tf32 ? VectorType::get({4, 1}, element) : VectorType::get({4, 2}, element);
    Value loaded = nvgpu::LdMatrixOp::create(b, loc, type, tiles, at, transpose, 4);
    SmallVector<Value> registers;
    for (int64_t r = 0; r < 4; ++r)
      registers.push_back(toRegister(
          precision.tf32 ? vector::ExtractOp::create(b, loc, loaded, ArrayRef<int64_t>{r, 0})
                         : vector::ExtractOp::create(b, loc, loaded, r)));
    return registers;
  };
  auto word = [&](Value tiles, Value buffer, Value row, Value column) {
    return toRegister(memref::LoadOp::create(b, loc, tiles, ValueRange{buffer, row, column}));
  };
  // A's fragment of the 16-row tile at m0 and reduction step kk: TF32
  // words of a [k][m] tile a word per lane, else one ldmatrix (transposed
  // for a 16-bit [k][m] tile).
  auto aFragment = [&](Value buffer, Value m0, int64_t kk) -> SmallVector<Value> {
    Value k0 = index(kk);
    if (a.rowsAlongK && precision.tf32) {
      Value k = add(k0, t), m = add(m0, g);
      return {word(aTiles, buffer, k, m), word(aTiles, buffer, k, plus(m, 8)),
              word(aTiles, buffer, plus(k, 4), m), word(aTiles, buffer, plus(k, 4), plus(m, 8))};
    }
    if (a.rowsAlongK)
      return ldmatrix(aTiles, {buffer, add(k0, add(matrixRow, rowsHigh)), add(m0, chunkLow)}, true);
    return ldmatrix(aTiles, {buffer, add(m0, add(matrixRow, rowsLow)), add(k0, chunkHigh)}, false);
  };
  // B's fragments of the two 8-column tiles at n0 and n0 + 8, alike.
  auto bFragments = [&](Value buffer, Value n0, int64_t kk) -> SmallVector<Value> {
    Value k0 = index(kk);
    if (bOperand.rowsAlongK && precision.tf32) {
      Value k = add(k0, t), n = add(n0, g);
      return {word(bTiles, buffer, k, n), word(bTiles, buffer, plus(k, 4), n),
              word(bTiles, buffer, k, plus(n, 8)), word(bTiles, buffer, plus(k, 4), plus(n, 8))};
    }
    if (bOperand.rowsAlongK)
      return ldmatrix(bTiles, {buffer, add(k0, add(matrixRow, rowsLow)), add(n0, chunkHigh)}, true);
    return ldmatrix(bTiles, {buffer, add(n0, add(matrixRow, rowsHigh)), add(k0, chunkLow)}, false);
  };

  auto accumulatorType = VectorType::get({4}, b.getF32Type());
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accumulatorType, b.getF32FloatAttr(0)));
  SmallVector<Value> initial(grid.mTiles * grid.nTiles, zeros);
  auto mmaResultType =
      LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(4, b.getF32Type()));

  // The first stages - 1 slices in flight (one group each), then per slice:
  // wait for its group, and once every warp is past the barrier (done with
  // the previous slice's buffer) refill that buffer with the slice
  // stages - 1 ahead (zeros past the last), then multiply.
  Value first;
  for (int64_t s = 0; s < stages - 1; ++s)
    first = stageBoth(index(s), index(s));
  auto slices = scf::ForOp::create(
      b, loc, index(0), index(kTiles), one, initial,
      [&](OpBuilder &, Location, Value kt, ValueRange acc) {
        nvgpu::DeviceAsyncWaitOp::create(b, loc, first, b.getI32IntegerAttr(stages - 2));
        gpu::BarrierOp::create(b, loc);
        Value ahead = plus(kt, stages - 1);
        stageBoth(ahead, rem(ahead, stages));
        Value buffer = rem(kt, stages);
        SmallVector<Value> sums(acc.begin(), acc.end());
        for (int64_t kk = 0; kk < sliceDepth; kk += precision.mmaK()) {
          SmallVector<SmallVector<Value>> aRegisters, bRegisters;
          for (int64_t mt = 0; mt < grid.mTiles; ++mt)
            aRegisters.push_back(aFragment(buffer, plus(warpRow, mt * 16), kk));
          for (int64_t np = 0; np < grid.nTiles / 2; ++np)
            bRegisters.push_back(bFragments(buffer, plus(warpColumn, np * 16), kk));
          for (int64_t mt = 0; mt < grid.mTiles; ++mt)
            for (int64_t nt = 0; nt < grid.nTiles; ++nt) {
              Value &sum = sums[mt * grid.nTiles + nt];
              ArrayRef<Value> pair = ArrayRef<Value>(bRegisters[nt / 2]).slice((nt % 2) * 2, 2);
              SmallVector<Value> cRegisters;
              for (int64_t r = 0; r < 4; ++r)
                cRegisters.push_back(vector::ExtractOp::create(b, loc, sum, r));
              auto mma = NVVM::MmaOp::create(
                  b, loc, mmaResultType, aRegisters[mt], pair, cRegisters,
                  {16, 8, precision.mmaK()}, std::nullopt, std::nullopt,
                  std::array<NVVM::MMATypes, 2>{precision.ptxType(), precision.ptxType()},
                  std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
              SmallVector<Value> results;
              for (int64_t r = 0; r < 4; ++r)
                results.push_back(LLVM::ExtractValueOp::create(b, loc, mma, r));
              sum = vector::FromElementsOp::create(b, loc, accumulatorType, results);
            }
        }
        scf::YieldOp::create(b, loc, sums);
      });
  // The last (empty) slices' copies finished before the block ends.
  nvgpu::DeviceAsyncWaitOp::create(b, loc, first, b.getI32IntegerAttr(0));

  // C += the accumulators: lane (g, t) holds C's (g, 2t..2t+1) and
  // (g+8, 2t..2t+1) of each 16 x 8 tile; past the edges skipped.
  Value t2 = mul(t, 2);
  bool partial = dynamicM || nest->m % bm || nest->n % bn;
  for (int64_t mt = 0; mt < grid.mTiles; ++mt)
    for (int64_t nt = 0; nt < grid.nTiles; ++nt)
      for (int64_t e = 0; e < 4; ++e) {
        Value row = add(add(rowBase, warpRow), plus(g, mt * 16 + (e / 2) * 8));
        Value column = add(add(colBase, warpColumn), plus(t2, nt * 8 + e % 2));
        Value value = vector::ExtractOp::create(b, loc, slices.getResult(mt * grid.nTiles + nt), e);
        auto write = [&](OpBuilder &wb, Location wloc) {
          Value old = memref::LoadOp::create(wb, wloc, nest->c, ValueRange{row, column});
          memref::StoreOp::create(wb, wloc, arith::AddFOp::create(wb, wloc, old, value), nest->c,
                                  ValueRange{row, column});
        };
        if (!partial) {
          write(b, loc);
          continue;
        }
        Value inside = arith::AndIOp::create(b, loc, less(row, nest->m), less(column, nest->n));
        scf::IfOp::create(b, loc, inside, [&](OpBuilder &ib, Location iloc) {
          write(ib, iloc);
          scf::YieldOp::create(ib, iloc);
        });
      }
  gpu::TerminatorOp::create(b, loc);
  loop.erase();
  return true;
}
