// RUN: ember-opt %s "--convert-ember-to-linalg" "--ember-cpu-lower-matmuls=vector-bits=256" --canonicalize --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --ember-fuse-matmul-epilogues --canonicalize | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: ember-opt %s "--convert-ember-to-linalg" "--ember-cpu-lower-matmuls=vector-bits=512" --canonicalize --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --ember-fuse-matmul-epilogues --canonicalize | FileCheck %s --check-prefixes=CHECK,AVX512

// Epilogues fuse at every vector width, also when canonicalization has
// folded loops of one iteration away: at 512 bits a 29-column product is
// one panel of 32 (no panel loop left), and 4 rows are one block of 6 (no
// rows loop either: the block write is all that is left of the nest).

// CHECK-LABEL: func.func @one_panel(
// CHECK-NOT:     linalg.generic
// AVX2:          arith.maximumf {{.*}} : vector<6x16xf32>
// AVX512:        arith.maximumf {{.*}} : vector<6x32xf32>
// CHECK-NOT:     linalg.generic
func.func @one_panel(%x: tensor<37x53xf32>, %w: tensor<53x29xf32>, %b: tensor<37x29xf32>) -> tensor<37x29xf32> {
  %0 = ember.matmul %x, %w : tensor<37x53xf32>, tensor<53x29xf32> -> tensor<37x29xf32>
  %1 = ember.add %0, %b : tensor<37x29xf32>
  %2 = ember.relu %1 : tensor<37x29xf32>
  return %2 : tensor<37x29xf32>
}

// CHECK-LABEL: func.func @one_block(
// CHECK-NOT:     linalg.generic
// AVX2:          arith.addf {{.*}} : vector<6x16xf32>
// AVX512:        arith.addf {{.*}} : vector<6x32xf32>
// AVX512-NEXT:   vector.transfer_write {{.*}} : vector<6x32xf32>, tensor<4x29xf32>
// CHECK-NOT:     linalg.generic
func.func @one_block(%x: tensor<4x2000xf32>, %w: tensor<2000x29xf32>, %b: tensor<4x29xf32>) -> tensor<4x29xf32> {
  %0 = ember.matmul %x, %w : tensor<4x2000xf32>, tensor<2000x29xf32> -> tensor<4x29xf32>
  %1 = ember.add %0, %b : tensor<4x29xf32>
  return %1 : tensor<4x29xf32>
}

// f64 at 512 bits: 16-column panels.
// CHECK-LABEL: func.func @f64_one_panel(
// CHECK-NOT:     linalg.generic
// AVX2:          arith.mulf {{.*}} : vector<6x8xf64>
// AVX512:        arith.mulf {{.*}} : vector<6x16xf64>
func.func @f64_one_panel(%x: tensor<40x100xf64>, %w: tensor<100x13xf64>) -> tensor<40x13xf64> {
  %0 = ember.matmul %x, %w : tensor<40x100xf64>, tensor<100x13xf64> -> tensor<40x13xf64>
  %1 = ember.mul %0, %0 : tensor<40x13xf64>
  return %1 : tensor<40x13xf64>
}

// A matmul in passes over k (AVX-512, k = 1024): the bias and ReLU fuse into
// the last pass, which reads the blocks the first pass wrote and writes the
// consumer's output.
// CHECK-LABEL: func.func @passes_over_k(
// AVX512:        %[[FIRST:.*]] = scf.for {{.*}} -> (tensor<128x96xf32>)
// AVX512:        %[[OUT:.*]] = tensor.empty() : tensor<128x96xf32>
// AVX512:        scf.for {{.*}} iter_args(%{{.*}} = %[[OUT]])
// AVX512:          vector.transfer_read %[[FIRST]]{{.*}} : tensor<128x96xf32>, vector<8x48xf32>
// AVX512:          arith.maximumf {{.*}} : vector<8x48xf32>
// AVX512:          vector.transfer_write {{.*}} : vector<8x48xf32>, tensor<128x96xf32>
// CHECK-NOT:     linalg.generic
func.func @passes_over_k(%x: tensor<128x1024xf32>, %w: tensor<1024x96xf32>, %b: tensor<128x96xf32>) -> tensor<128x96xf32> {
  %0 = ember.matmul %x, %w : tensor<128x1024xf32>, tensor<1024x96xf32> -> tensor<128x96xf32>
  %1 = ember.add %0, %b : tensor<128x96xf32>
  %2 = ember.relu %1 : tensor<128x96xf32>
  return %2 : tensor<128x96xf32>
}
