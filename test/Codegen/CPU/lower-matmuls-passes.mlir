// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls=vector-bits=512 | FileCheck %s
// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls=vector-bits=256 | FileCheck %s --check-prefix=AVX2

// k = 1024 (B 1024 x 4096 f32): on AVX-512 the matmul runs in two passes
// over k of 512. 86 panels of 48 columns make 20
// blocks (a multiple of 4, at most 5 panels each: 480 KB of packed B); the
// first pass writes C's 8 x 48 blocks, the next one adds to them.
// CHECK-LABEL: func.func @passes(
// CHECK:         %[[FIRST:.*]] = scf.for %{{.*}} = %c0{{.*}} to %c20 step %c1{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<256x4096xf32>)
// CHECK:           scf.for {{.*}} -> (tensor<5x512x48xf32>)
// CHECK:             vector.transfer_read %{{.*}} : tensor<1024x4096xf32>, vector<16xf32>
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c256 step %c8
// CHECK:             scf.for
// CHECK:               %{{.*}}:24 = scf.for %{{.*}} = %c0{{.*}} to %c512{{.*}} step %c1
// CHECK-COUNT-3:         vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<5x512x48xf32>, vector<16xf32>
// CHECK-COUNT-24:        vector.fma
// CHECK-NOT:           arith.addf
// CHECK:               vector.transfer_write %{{.*}} : vector<8x48xf32>, tensor<256x4096xf32>
// CHECK:         {ember.blocked_matmul_rows = 536870912 : i64}
// The last pass (k from 512) adds to the first one's blocks; its writes are
// where an elementwise consumer would be fused.
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c20{{.*}} iter_args(%{{.*}} = %[[FIRST]])
// CHECK:           vector.transfer_read %{{.*}} {ember.matmul_block_read, {{.*}} : tensor<256x4096xf32>, vector<8x48xf32>
// CHECK:           arith.addf %{{.*}} : vector<8x48xf32>
// CHECK:           vector.transfer_write %{{.*}} {ember.matmul_block_write, {{.*}} : vector<8x48xf32>, tensor<256x4096xf32>
// CHECK:         } {ember.matmul_adds_to_blocks}
// With 256-bit registers it stays one pass over k.
// AVX2-LABEL: func.func @passes(
// AVX2-NOT:     tensor<5x512x48xf32>
// AVX2:         vector<6x16xf32>
func.func @passes(%a: tensor<256x1024xf32>, %b: tensor<1024x4096xf32>) -> tensor<256x4096xf32> {
  %0 = ember.matmul %a, %b : tensor<256x1024xf32>, tensor<1024x4096xf32> -> tensor<256x4096xf32>
  return %0 : tensor<256x4096xf32>
}

// Partial blocks of rows and panels (130 x 512 x 4100 int32: B over 8 MB,
// two passes of 256): packed B masked past the last column, C's blocks read and written
// masked (no in_bounds attribute: both dims may run past the end).
// CHECK-LABEL: func.func @partial_int32(
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c12 step
// CHECK:           scf.for {{.*}} -> (tensor<8x256x48xi32>)
// CHECK:             vector.transfer_read %{{.*}}, %{{.*}} : tensor<512x4100xi32>, vector<16xi32>
// CHECK:           %{{.*}}:24 = scf.for
// CHECK-COUNT-24:    arith.muli
// CHECK:           vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<8x48xi32>, tensor<130x4100xi32>
// CHECK:         vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {ember.matmul_block_read} : tensor<130x4100xi32>, vector<8x48xi32>
// CHECK:         arith.addi %{{.*}} : vector<8x48xi32>
func.func @partial_int32(%a: tensor<130x512xi32>, %b: tensor<512x4100xi32>) -> tensor<130x4100xi32> {
  %0 = ember.matmul %a, %b : tensor<130x512xi32>, tensor<512x4100xi32> -> tensor<130x4100xi32>
  return %0 : tensor<130x4100xi32>
}

// Three passes (k = 1536): the middle ones in a loop over k.
// CHECK-LABEL: func.func @three_passes(
// CHECK:         %[[ONE:.*]] = scf.for %{{.*}} -> (tensor<128x1024xf32>)
// CHECK:         %[[TWO:.*]] = scf.for %{{.*}} = %c512 to %c1024 step %c512{{.*}} iter_args(%{{.*}} = %[[ONE]])
// CHECK:         } {ember.matmul_adds_to_blocks}
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}} = %[[TWO]])
// CHECK:           {ember.matmul_block_write
func.func @three_passes(%a: tensor<128x1536xf32>, %b: tensor<1536x1024xf32>) -> tensor<128x1024xf32> {
  %0 = ember.matmul %a, %b : tensor<128x1536xf32>, tensor<1536x1024xf32> -> tensor<128x1024xf32>
  return %0 : tensor<128x1024xf32>
}

// No pass depth divides k = 1031 (prime): one pass over k, as before (B's
// panels packed whole, the panel loop marked for the epilogue fusion).
// CHECK-LABEL: func.func @prime_k(
// CHECK:         scf.for {{.*}} -> (tensor<1031x48xf32>)
// CHECK-NOT:     arith.addf
// CHECK:         {ember.blocked_matmul = {{[0-9]+}} : i64}
func.func @prime_k(%a: tensor<128x1031xf32>, %b: tensor<1031x4096xf32>) -> tensor<128x4096xf32> {
  %0 = ember.matmul %a, %b : tensor<128x1031xf32>, tensor<1031x4096xf32> -> tensor<128x4096xf32>
  return %0 : tensor<128x4096xf32>
}
