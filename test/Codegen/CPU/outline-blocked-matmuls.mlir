// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls "--ember-outline-blocked-matmuls=min-matmuls=3" --split-input-file | FileCheck %s
// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls "--ember-outline-blocked-matmuls=min-matmuls=3 keep-epilogue-candidates" --split-input-file | FileCheck %s --check-prefix=KEEP
// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls --ember-outline-blocked-matmuls --split-input-file | FileCheck %s --check-prefix=FEW

// A chain of blocked matmuls: one function, called for each (they differ
// only in the tensors they read); the caller keeps no loops.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[X:.*]]: tensor<64x64xf32>, %[[Y:.*]]: tensor<64x64xf32>
// CHECK-NOT:     scf.for
// CHECK:         %[[A:.*]] = call @chain_matmul(%[[Y]], %[[X]]) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK:         %[[B:.*]] = call @chain_matmul(%[[Y]], %[[A]])
// CHECK:         %[[C:.*]] = call @chain_matmul(%[[Y]], %[[B]])
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4096xf32>)
// CHECK:         return
// CHECK:       func.func private @chain_matmul(%{{.*}}: tensor<64x64xf32>, %{{.*}}: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {passthrough = ["noinline"]}
// CHECK:         tensor.empty() : tensor<64x64xf32>
// CHECK:         scf.for
// CHECK:           vector.fma
// CHECK-NOT:   func.func private

// Before epilogue fusion, the last matmul, whose only user is elementwise,
// stays where it is.
// KEEP-LABEL: func.func @chain(
// KEEP:         call @chain_matmul
// KEEP:         call @chain_matmul
// KEEP-NOT:     call
// KEEP:         scf.for
// KEEP:         linalg.generic

// Below the threshold (16 by default), nothing moves.
// FEW-LABEL: func.func @chain(
// FEW-NOT:     call
// FEW-NOT:   func.func private
func.func @chain(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = ember.matmul %x, %y : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %1 = ember.matmul %0, %y : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %2 = ember.matmul %1, %y : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %3 = ember.relu %2 : tensor<64x64xf32>
  return %3 : tensor<64x64xf32>
}
