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

// -----

// Short matmuls in their row-vector form (power(x, n) on 10x10 int32) are
// outlined as well: one function for the chain, not a copy per matmul.
// CHECK-LABEL: func.func @power_like(
// CHECK-NOT:     scf.for
// CHECK:         call @power_like_matmul(
// CHECK:         call @power_like_matmul(
// CHECK:         call @power_like_matmul(
// CHECK:         return
// CHECK:       func.func private @power_like_matmul(%{{.*}}: tensor<10x10xi32>, %{{.*}}: tensor<10x10xi32>) -> tensor<10x10xi32>
// CHECK:         scf.for
// CHECK-COUNT-10:  arith.muli {{.*}} : vector<10xi32>
// CHECK-NOT:   func.func private
func.func @power_like(%x: tensor<10x10xi32>, %y: tensor<10x10xi32>) -> tensor<10x10xi32> {
  %0 = ember.matmul %x, %y : tensor<10x10xi32>, tensor<10x10xi32> -> tensor<10x10xi32>
  %1 = ember.matmul %0, %y : tensor<10x10xi32>, tensor<10x10xi32> -> tensor<10x10xi32>
  %2 = ember.matmul %1, %y : tensor<10x10xi32>, tensor<10x10xi32> -> tensor<10x10xi32>
  return %2 : tensor<10x10xi32>
}

// -----

// Matmuls that differ only in a constant they read (cloned into the callee)
// are different functions; those that read the same constant share one.
// CHECK-LABEL: func.func @constants(
// CHECK:         call @constants_matmul(%{{.*}})
// CHECK:         call @constants_matmul_0(%{{.*}})
// CHECK:         call @constants_matmul(%{{.*}})
// CHECK:       func.func private @constants_matmul(
// CHECK:         arith.constant dense<2> : tensor<10x10xi32>
// CHECK:       func.func private @constants_matmul_0(
// CHECK:         arith.constant dense<3> : tensor<10x10xi32>
// CHECK-NOT:   func.func private
func.func @constants(%x: tensor<10x10xi32>) -> tensor<10x10xi32> {
  %two = ember.constant dense<2> : tensor<10x10xi32>
  %three = ember.constant dense<3> : tensor<10x10xi32>
  %0 = ember.matmul %x, %two : tensor<10x10xi32>, tensor<10x10xi32> -> tensor<10x10xi32>
  %1 = ember.matmul %0, %three : tensor<10x10xi32>, tensor<10x10xi32> -> tensor<10x10xi32>
  %2 = ember.matmul %1, %two : tensor<10x10xi32>, tensor<10x10xi32> -> tensor<10x10xi32>
  return %2 : tensor<10x10xi32>
}

// -----

// Matmuls of a batch of any size stay inline: a called function could not
// return a `?`-shaped result into its caller's buffer (an ONNX ResNet with a
// symbolic batch compiled ahead of time met this); the static ones of the
// same chain are still outlined.
// CHECK-LABEL: func.func @dynamic_rows(
// CHECK-COUNT-3: scf.for {{.*}} -> (tensor<?x16xf32>)
// CHECK-NOT:     -> tensor<?x16xf32> attributes {passthrough
// CHECK:         call @dynamic_rows_matmul{{.*}} -> tensor<16x16xf32>
// CHECK:         call @dynamic_rows_matmul{{.*}} -> tensor<16x16xf32>
// CHECK:         return
func.func @dynamic_rows(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> (tensor<?x16xf32>, tensor<16x16xf32>) {
  %0 = ember.matmul %x, %w : tensor<?x16xf32>, tensor<16x16xf32> -> tensor<?x16xf32>
  %1 = ember.matmul %0, %w : tensor<?x16xf32>, tensor<16x16xf32> -> tensor<?x16xf32>
  %2 = ember.matmul %1, %w : tensor<?x16xf32>, tensor<16x16xf32> -> tensor<?x16xf32>
  %3 = ember.matmul %w, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %4 = ember.matmul %3, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %2, %4 : tensor<?x16xf32>, tensor<16x16xf32>
}
