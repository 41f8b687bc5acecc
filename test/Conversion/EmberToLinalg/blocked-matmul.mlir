// RUN: ember-opt %s --convert-ember-to-linalg | FileCheck %s

// A large float matmul: 4-row blocks of 16-wide vector accumulators over k,
// written once per block with masked (out-of-bounds-safe) transfers.
// CHECK-LABEL: func.func @large(
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             %{{.*}}:4 = scf.for {{.*}} iter_args
// CHECK:               vector.transfer_read %{{.*}} : tensor<53x29xf32>, vector<16xf32>
// CHECK-COUNT-4:       vector.fma
// CHECK:             vector.transfer_write %{{.*}} : vector<4x16xf32>, tensor<37x29xf32>
// CHECK-NOT:     linalg.generic
func.func @large(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>) -> tensor<37x29xf32> {
  %0 = ember.matmul %a, %b : tensor<37x53xf32>, tensor<53x29xf32> -> tensor<37x29xf32>
  return %0 : tensor<37x29xf32>
}

// Small ones stay a single loop nest.
// CHECK-LABEL: func.func @small(
// CHECK:         linalg.generic
// CHECK-NOT:     vector.fma
func.func @small(%a: tensor<10x10xf32>, %b: tensor<10x10xf32>) -> tensor<10x10xf32> {
  %0 = ember.matmul %a, %b : tensor<10x10xf32>, tensor<10x10xf32> -> tensor<10x10xf32>
  return %0 : tensor<10x10xf32>
}
