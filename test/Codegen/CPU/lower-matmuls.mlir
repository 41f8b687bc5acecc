// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls | FileCheck %s
// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls=vector-bits=512 | FileCheck %s --check-prefix=AVX512

// A large float matmul, panel by panel of 16 columns (two vectors of 8):
// 6-row blocks of 12 vector accumulators over k, written once per block. 29 columns do
// not fill whole panels, so each panel of B is packed row by row (masked
// past the last column) and read unmasked; rows past the end are skipped
// when written, the partial panel's columns masked.
// CHECK-LABEL: func.func @large(
// CHECK:         scf.for
// CHECK:           %[[PANEL:.*]] = scf.for {{.*}} -> (tensor<53x16xf32>)
// CHECK:             vector.transfer_read %{{.*}} : tensor<53x29xf32>, vector<8xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<8xf32>, tensor<53x16xf32>
// CHECK:             vector.transfer_read %{{.*}} : tensor<53x29xf32>, vector<8xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<8xf32>, tensor<53x16xf32>
// CHECK:           scf.for
// CHECK:             %{{.*}}:12 = scf.for {{.*}} iter_args
// CHECK-COUNT-2:       vector.transfer_read %[[PANEL]]{{.*}} {in_bounds = [true]} : tensor<53x16xf32>, vector<8xf32>
// CHECK-COUNT-12:      vector.fma
// CHECK:             vector.transfer_write %{{.*}} : vector<6x16xf32>, tensor<37x29xf32>
// With 512-bit registers (AVX-512) the rows are 32 floats wide.
// AVX512-LABEL: func.func @large(
// AVX512:         %{{.*}}:12 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>
// AVX512:         vector.transfer_write %{{.*}} : vector<6x32xf32>, tensor<37x29xf32>
func.func @large(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>) -> tensor<37x29xf32> {
  %0 = ember.matmul %a, %b : tensor<37x53xf32>, tensor<53x29xf32> -> tensor<37x29xf32>
  return %0 : tensor<37x29xf32>
}

// Panels longer than L1 holds (300 x 16 f32) are packed too.
// CHECK-LABEL: func.func @long_panels(
// CHECK:           scf.for {{.*}} -> (tensor<300x16xf32>)
func.func @long_panels(%a: tensor<8x300xf32>, %b: tensor<300x32xf32>) -> tensor<8x32xf32> {
  %0 = ember.matmul %a, %b : tensor<8x300xf32>, tensor<300x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// Whole panels are read from B in place; whole blocks are written in bounds.
// CHECK-LABEL: func.func @whole_panels(
// CHECK-SAME:      %[[A:.*]]: tensor<36x40xf32>, %[[B:.*]]: tensor<40x32xf32>
// CHECK-NOT:     linalg.generic
// CHECK:               vector.transfer_read %[[B]]{{.*}} {in_bounds = [true]} : tensor<40x32xf32>, vector<8xf32>
// CHECK:             vector.transfer_write {{.*}} {ember.matmul_block_write, in_bounds = [true, true]} : vector<6x16xf32>, tensor<36x32xf32>
func.func @whole_panels(%a: tensor<36x40xf32>, %b: tensor<40x32xf32>) -> tensor<36x32xf32> {
  %0 = ember.matmul %a, %b : tensor<36x40xf32>, tensor<40x32xf32> -> tensor<36x32xf32>
  return %0 : tensor<36x32xf32>
}

// The backward pass's transposes fold into the matmul: A^T is read in place
// (A[i, k] = At[k, i]), B^T packed panel by panel; the transposes are left
// unused (canonicalization then deletes them).
// CHECK-LABEL: func.func @transposed(
// CHECK-SAME:      %[[AT:.*]]: tensor<40x36xf32>, %[[BT:.*]]: tensor<32x40xf32>
// CHECK:           linalg.generic {{.*}} outs(%{{.*}} : tensor<40x16xf32>)
// CHECK:             tensor.extract %[[BT]]
// CHECK:               tensor.extract %[[AT]][%{{.*}}, %{{.*}}] : tensor<40x36xf32>
// CHECK:               vector.fma
func.func @transposed(%at: tensor<40x36xf32>, %bt: tensor<32x40xf32>) -> tensor<36x32xf32> {
  %a = ember.transpose %at permutation = [1, 0] : tensor<40x36xf32> -> tensor<36x40xf32>
  %b = ember.transpose %bt permutation = [1, 0] : tensor<32x40xf32> -> tensor<40x32xf32>
  %0 = ember.matmul %a, %b : tensor<36x40xf32>, tensor<40x32xf32> -> tensor<36x32xf32>
  return %0 : tensor<36x32xf32>
}

// Short rows and a short reduction (n, k <= 16): a vector of C's row per
// row of A, the k products summed in registers (unrolled) and written once.
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for %[[I:.*]] = %c0 to %c10 step %c1 iter_args(%[[C:.*]] = %{{.*}}) -> (tensor<10x10xf32>)
// CHECK-COUNT-10:  vector.fma {{.*}} : vector<10xf32>
// CHECK:           vector.transfer_write %{{.*}}, %[[C]][%[[I]], %{{.*}}] {in_bounds = [true]} : vector<10xf32>, tensor<10x10xf32>
func.func @small(%a: tensor<10x10xf32>, %b: tensor<10x10xf32>) -> tensor<10x10xf32> {
  %0 = ember.matmul %a, %b : tensor<10x10xf32>, tensor<10x10xf32> -> tensor<10x10xf32>
  return %0 : tensor<10x10xf32>
}

// Integers too (power(x, n) is int32): multiply and add on vectors.
// CHECK-LABEL: func.func @small_int(
// CHECK-COUNT-10: arith.muli {{.*}} : vector<10xi32>
func.func @small_int(%a: tensor<10x10xi32>, %b: tensor<10x10xi32>) -> tensor<10x10xi32> {
  %0 = ember.matmul %a, %b : tensor<10x10xi32>, tensor<10x10xi32> -> tensor<10x10xi32>
  return %0 : tensor<10x10xi32>
}

// Tiny ones stay a single loop nest.
// CHECK-LABEL: func.func @tiny(
// CHECK:         linalg.generic
// CHECK-NOT:     vector.fma
func.func @tiny(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %0 = ember.matmul %a, %b : tensor<4x3xf32>, tensor<3x5xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// Integers are blocked the same way, with vector multiplies and adds.
// CHECK-LABEL: func.func @large_int32(
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK:             arith.addi %{{.*}}, %[[P]] : vector<8xi32>
// CHECK:           } {ember.blocked_matmul_rows = 262144 : i64}
// CHECK:         } {ember.blocked_matmul = 262144 : i64}
func.func @large_int32(%a: tensor<64x64xi32>, %b: tensor<64x64xi32>) -> tensor<64x64xi32> {
  %0 = ember.matmul %a, %b : tensor<64x64xi32>, tensor<64x64xi32> -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// With AVX-512, tall matmuls take panels of three vectors (48 floats) in
// blocks of 8 rows: 24 accumulators, each piece of B's row its own vector.
// AVX512-LABEL: func.func @wide_panels(
// AVX512:         %{{.*}}:24 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>
// AVX512-COUNT-3:   vector.transfer_read {{.*}} : tensor<64x96xf32>, vector<16xf32>
// AVX512-COUNT-24:  vector.fma
// AVX512:         vector.transfer_write {{.*}} {ember.matmul_block_write, in_bounds = [true, true]} : vector<8x48xf32>, tensor<128x96xf32>
func.func @wide_panels(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>) -> tensor<128x96xf32> {
  %0 = ember.matmul %a, %b : tensor<128x64xf32>, tensor<64x96xf32> -> tensor<128x96xf32>
  return %0 : tensor<128x96xf32>
}

// ... but not where a third of the last panel would be idle (256 columns:
// 5 1/3 panels of 48): two vectors, 12 rows.
// AVX512-LABEL: func.func @two_vector_panels(
// AVX512:         vector.transfer_write {{.*}} : vector<12x32xf32>, tensor<128x256xf32>
func.func @two_vector_panels(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> {
  %0 = ember.matmul %a, %b : tensor<128x64xf32>, tensor<64x256xf32> -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}
