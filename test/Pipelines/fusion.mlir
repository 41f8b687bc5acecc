// RUN: ember-opt %s --pass-pipeline="builtin.module(ember-optimize,convert-ember-to-linalg,canonicalize,func.func(linalg-generalize-named-ops),func.func(linalg-fuse-elementwise-ops),canonicalize)" --split-input-file | FileCheck %s

// An elementwise chain with a broadcast is one loop nest.
// CHECK-LABEL: func.func @chain_with_broadcast(
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @chain_with_broadcast(%x: tensor<64x32xf32>, %v: tensor<32xf32>) -> tensor<64x32xf32> {
  %vb = ember.broadcast_to %v : tensor<32xf32> -> tensor<64x32xf32>
  %one = ember.constant dense<1.0> : tensor<64x32xf32>
  %0 = ember.mul %x, %vb : tensor<64x32xf32>
  %1 = ember.add %0, %one : tensor<64x32xf32>
  %2 = ember.mul %1, %x : tensor<64x32xf32>
  %3 = ember.relu %2 : tensor<64x32xf32>
  return %3 : tensor<64x32xf32>
}

// -----

// Elementwise producers fuse into the reduction that consumes them.
// CHECK-LABEL: func.func @square_then_sum(
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
func.func @square_then_sum(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  %0 = ember.square %x : tensor<8x16xf32>
  %1 = ember.reduce_sum %0 axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// ... and into a matmul.
// CHECK-LABEL: func.func @relu_then_matmul(
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.maximumf
// CHECK:           arith.mulf
// CHECK-NOT:     linalg.generic
func.func @relu_then_matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = ember.relu %a : tensor<4x8xf32>
  %1 = ember.matmul %0, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %1 : tensor<4x2xf32>
}
