// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-convolutions --ember-cpu-lower-matmuls="vector-bits=512 bf16-instructions=amx" --canonicalize --split-input-file | FileCheck %s
// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-convolutions --ember-cpu-lower-matmuls="vector-bits=512 bf16-instructions=avx512bf16" --canonicalize --split-input-file | FileCheck %s --check-prefix=DOT
// RUN: not ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls="bf16-instructions=tiles" --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: ember-cpu-lower-matmuls: unknown bf16-instructions 'tiles' (expected none, avx512bf16 or amx)

// A bfloat16 matmul whose sizes are not whole tiles: A copied with zero
// padding to whole 32x32 steps, B packed in pairs of rows (tiles of 16
// columns, zeros past its edges), blocks of 2x2 tiles summed over k into a
// float32 buffer of whole blocks, whose slice the rounding to bfloat16
// reads; the float32 copies of the operands are gone. (k fits one pass.)
// CHECK-LABEL: func.func @padded(
// CHECK-SAME:      %[[A:.*]]: tensor<100x70xbf16>, %[[B:.*]]: tensor<70x50xbf16>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[AB:.*]] = bufferization.to_buffer %[[A]] read_only : tensor<100x70xbf16> to memref<100x70xbf16>
// CHECK:         %[[AP:.*]] = memref.alloc() : memref<128x96xbf16>
// CHECK:           vector.transfer_read %[[AB]]
// CHECK:           vector.store %{{.*}}, %[[AP]]
// CHECK:         %[[BB:.*]] = bufferization.to_buffer %[[B]] read_only : tensor<70x50xbf16> to memref<70x50xbf16>
// CHECK:         %[[BP:.*]] = memref.alloc() : memref<4x48x32xbf16>
// CHECK:           %[[EVEN:.*]] = arith.select %{{.*}} : vector<16xbf16>
// CHECK:           %[[ODD:.*]] = arith.select %{{.*}} : vector<16xbf16>
// CHECK:           %[[PAIRS:.*]] = vector.interleave %[[EVEN]], %[[ODD]] : vector<16xbf16> -> vector<32xbf16>
// CHECK:           vector.store %[[PAIRS]], %[[BP]]
// CHECK:         %[[C:.*]] = memref.alloc() : memref<128x64xf32>
// CHECK:         scf.for %[[I:.*]] = %c0 to %c128 step %c32 {
// CHECK:           scf.for %[[J:.*]] = %c0 to %c64 step %c32 {
// CHECK:             %[[I16:.*]] = arith.addi %[[I]], %c16
// CHECK-COUNT-4:     amx.tile_zero : !amx.tile<16x16xf32>
// CHECK:             %[[SUMS:.*]]:4 = scf.for {{.*}} -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK-COUNT-2:       amx.tile_load %[[AP]]{{.*}} into !amx.tile<16x32xbf16>
// CHECK-COUNT-2:       amx.tile_load %[[BP]]{{.*}} into !amx.tile<16x32xbf16>
// CHECK-COUNT-4:       amx.tile_mulf
// CHECK:             amx.tile_store %[[C]][%[[I]], %[[J]]], %[[SUMS]]#0
// CHECK:             amx.tile_store %[[C]][%[[I]], %{{.*}}], %[[SUMS]]#1
// CHECK:             amx.tile_store %[[C]][%[[I16]], %[[J]]], %[[SUMS]]#2
// CHECK:             amx.tile_store %[[C]][%[[I16]], %{{.*}}], %[[SUMS]]#3
// CHECK:         } {ember.blocked_matmul_rows = 350000 : i64}
// CHECK:         %[[T:.*]] = bufferization.to_tensor %[[C]] restrict writable : memref<128x64xf32> to tensor<128x64xf32>
// CHECK:         %[[SLICE:.*]] = tensor.extract_slice %[[T]][0, 0] [100, 50] [1, 1]
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[SLICE]] : tensor<100x50xf32>) outs(%{{.*}} : tensor<100x50xbf16>)
// CHECK:           arith.truncf
// CHECK:         return %[[R]]
// On AVX512-BF16, the same packing of B (tiles of 16 columns), A padded to
// blocks of 8 rows, and blocks of 8 rows by 48 columns: 24 vectors of
// float32 sums, each step of k a pair (vdpbf16ps) of A's row (broadcast)
// and a vector of B's pairs.
// DOT-LABEL: func.func @padded(
// DOT:         %[[AP:.*]] = memref.alloc() : memref<104x96xbf16>
// DOT:         %[[BP:.*]] = memref.alloc() : memref<6x48x32xbf16>
// DOT:         %[[C:.*]] = memref.alloc() : memref<104x96xf32>
// DOT:         scf.for %{{.*}} = %c0 to %c104 step %c8 {
// DOT:           scf.for %{{.*}} = %c0 to %c96 step %c48 {
// DOT:             %[[SUMS:.*]]:24 = scf.for %{{.*}} = %c0 to %c48 step %c1 iter_args({{.*}}) -> (vector<16xf32>,
// DOT-COUNT-3:       vector.load %[[BP]]{{.*}} : memref<6x48x32xbf16>, vector<32xbf16>
// DOT:               %[[PAIR:.*]] = vector.load %[[AP]]{{.*}} : memref<104x96xbf16>, vector<2xbf16>
// DOT:               %[[WORD:.*]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// DOT:               %[[SPLAT:.*]] = vector.broadcast %{{.*}} : i32 to vector<16xi32>
// DOT:               %[[APAIRS:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// DOT:               x86vector.avx512.dot %{{.*}}, %[[APAIRS]], %{{.*}} : vector<32xbf16> -> vector<16xf32>
// DOT-COUNT-23:      x86vector.avx512.dot
// DOT-COUNT-24:    vector.store {{.*}}, %[[C]]
// DOT:         tensor.extract_slice %{{.*}}[0, 0] [100, 50] [1, 1]
func.func @padded(%a: tensor<100x70xbf16>, %b: tensor<70x50xbf16>) -> tensor<100x50xbf16> {
  %0 = ember.matmul %a, %b : tensor<100x70xbf16>, tensor<70x50xbf16> -> tensor<100x50xbf16>
  return %0 : tensor<100x50xbf16>
}

// -----

// A float32 matmul of bfloat16 values (widened by casts) in whole blocks
// with a long k: A read in place, two passes over k (the second starts
// from the sums of the first), the buffer of sums is the result.
// CHECK-LABEL: func.func @widened_operands(
// CHECK-SAME:      %[[A:.*]]: tensor<64x1024xbf16>, %[[B:.*]]: tensor<1024x96xbf16>)
// CHECK:         %[[AB:.*]] = bufferization.to_buffer %[[A]] read_only
// CHECK:         %[[BP:.*]] = memref.alloc() : memref<6x512x32xbf16>
// CHECK:         %[[C:.*]] = memref.alloc() : memref<64x96xf32>
// CHECK:         scf.for %[[START:.*]] = %c0 to %c1024 step %c512 {
// CHECK:           %[[END:.*]] = arith.minui
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[START]], %c0
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               %[[INIT:.*]]:4 = scf.if %[[FIRST]]
// CHECK-COUNT-4:         amx.tile_zero
// CHECK:               } else {
// CHECK-COUNT-4:         amx.tile_load %[[C]]
// CHECK:               scf.for %{{.*}} = %[[START]] to %[[END]] step %c32 iter_args({{.*}} = %[[INIT]]#0
// CHECK:                 amx.tile_load %[[AB]]
// CHECK:               amx.tile_store %[[C]]
// CHECK-NOT:     arith.truncf
// CHECK:         %[[R:.*]] = bufferization.to_tensor %[[C]] restrict writable : memref<64x96xf32> to tensor<64x96xf32>
// CHECK:         return %[[R]]
func.func @widened_operands(%a: tensor<64x1024xbf16>, %b: tensor<1024x96xbf16>) -> tensor<64x96xf32> {
  %a32 = ember.cast %a : tensor<64x1024xbf16> -> tensor<64x1024xf32>
  %b32 = ember.cast %b : tensor<1024x96xbf16> -> tensor<1024x96xf32>
  %0 = ember.matmul %a32, %b32 : tensor<64x1024xf32>, tensor<1024x96xf32> -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}

// -----

// Float32 matmuls keep their vector FMAs; a bfloat16 matmul narrower than a
// tile (here 8 rows) stays widened too, and so does a float64 matmul of
// bfloat16 values (float32 sums would not be its answer).
// CHECK-LABEL: func.func @not_on_tiles(
// CHECK-NOT:     amx.
// CHECK:         vector.fma
// CHECK-NOT:     amx.
// CHECK:         return
func.func @not_on_tiles(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>,
                        %c: tensor<8x256xbf16>, %d: tensor<256x256xbf16>,
                        %e: tensor<64x64xbf16>)
    -> (tensor<128x128xf32>, tensor<8x256xbf16>, tensor<64x64xf64>) {
  %0 = ember.matmul %a, %b : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
  %1 = ember.matmul %c, %d : tensor<8x256xbf16>, tensor<256x256xbf16> -> tensor<8x256xbf16>
  %wide = ember.cast %e : tensor<64x64xbf16> -> tensor<64x64xf64>
  %2 = ember.matmul %wide, %wide : tensor<64x64xf64>, tensor<64x64xf64> -> tensor<64x64xf64>
  return %0, %1, %2 : tensor<128x128xf32>, tensor<8x256xbf16>, tensor<64x64xf64>
}

// -----

// A bfloat16 convolution (after ember-cpu-lower-convolutions, a matmul of
// its patches) with 32 channels: an implicit GEMM on tiles, no patch matrix.
// The input is padded once, in bfloat16, with room on the right for the
// pixels past W that its blocks of 32 compute and drop (28 -> 32: width 34);
// each tap's tile of A is one strided load from it (rows of 16 pixels, 32
// channels), B is the filter packed in pairs of rows, the sums [N, OH, 32,
// F] are sliced to [N, OH, OW, F], which the rounding reads.
// CHECK-LABEL: func.func @convolution(
// CHECK-SAME:      %[[X:.*]]: tensor<8x28x28x32xbf16>, %[[W:.*]]: tensor<3x3x32x64xbf16>)
// CHECK-NOT:     arith.extf
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : bf16) outs(%{{.*}} : tensor<8x30x34x32xbf16>)
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %[[X]] into %[[FILL]][0, 1, 1, 0] [8, 28, 28, 32] [1, 1, 1, 1]
// CHECK:         %[[INPUT:.*]] = bufferization.to_buffer %[[PADDED]] read_only : tensor<8x30x34x32xbf16> to memref<8x30x34x32xbf16>
// CHECK:         bufferization.to_buffer %{{.*}} read_only : tensor<288x64xbf16>
// CHECK:         %[[BP:.*]] = memref.alloc() : memref<4x144x32xbf16>
// CHECK:         %[[SUMS:.*]] = memref.alloc() : memref<8x28x32x64xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c224 step %c1 {
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c32 {
// CHECK:             scf.for %{{.*}} = %c0 to %c9 step %c1 iter_args(
// CHECK-COUNT-2:       amx.tile_load %[[INPUT]]{{.*}} : memref<8x30x34x32xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-2:       amx.tile_load %[[BP]]
// CHECK-COUNT-4:       amx.tile_mulf
// CHECK-COUNT-4:     amx.tile_store %[[SUMS]]
// CHECK:         } {ember.blocked_matmul_rows = 115605504 : i64}
// CHECK:         %[[T:.*]] = bufferization.to_tensor %[[SUMS]] restrict writable
// CHECK:         %[[PIXELS:.*]] = tensor.extract_slice %[[T]][0, 0, 0, 0] [8, 28, 28, 64] [1, 1, 1, 1]
// CHECK:         linalg.generic {{.*}} ins(%[[PIXELS]] : tensor<8x28x28x64xf32>)
// CHECK:           arith.truncf
func.func @convolution(%x: tensor<8x28x28x32xbf16>, %w: tensor<3x3x32x64xbf16>) -> tensor<8x28x28x64xbf16> {
  %0 = ember.conv2d %x, %w strides = [1, 1] dilations = [1, 1] input_dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<8x28x28x32xbf16>, tensor<3x3x32x64xbf16> -> tensor<8x28x28x64xbf16>
  return %0 : tensor<8x28x28x64xbf16>
}
