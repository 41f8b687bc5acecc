// RUN: ember-opt %s --pass-pipeline="builtin.module(func.func(ember-sink-transposes))" --split-input-file | FileCheck %s

// An imported residual block's tail: the convolutions' outputs transposed
// to NCHW, added, rectified and transposed back for the next convolution.
// Sunk, the transposes meet and fold away: the block stays channels-last.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME:      %[[A:.*]]: tensor<1x4x4x8xf32>, %[[B:.*]]: tensor<1x4x4x8xf32>)
// CHECK-DAG:     %[[ZERO:.*]] = ember.constant dense<0.000000e+00> : tensor<1x4x4x8xf32>
// CHECK-DAG:     %[[SUM:.*]] = ember.add %[[A]], %[[B]] : tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[RELU:.*]] = ember.maximum %[[SUM]], %[[ZERO]] : tensor<1x4x4x8xf32>
// CHECK-NEXT:    return %[[RELU]] : tensor<1x4x4x8xf32>
func.func @residual(%a: tensor<1x4x4x8xf32>, %b: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %ta = ember.transpose %a permutation = [0, 3, 1, 2] : tensor<1x4x4x8xf32> -> tensor<1x8x4x4xf32>
  %tb = ember.transpose %b permutation = [0, 3, 1, 2] : tensor<1x4x4x8xf32> -> tensor<1x8x4x4xf32>
  %sum = ember.add %ta, %tb : tensor<1x8x4x4xf32>
  %zero = ember.constant dense<0.0> : tensor<1x8x4x4xf32>
  %relu = ember.maximum %sum, %zero : tensor<1x8x4x4xf32>
  %back = ember.transpose %relu permutation = [0, 2, 3, 1] : tensor<1x8x4x4xf32> -> tensor<1x4x4x8xf32>
  return %back : tensor<1x4x4x8xf32>
}

// -----

// Result element types are kept (a comparison's i1).
// CHECK-LABEL: func.func @compare(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[C:.*]] = ember.compare lt, %[[A]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = ember.transpose %[[C]] permutation = [1, 0] : tensor<2x3xi1> -> tensor<3x2xi1>
// CHECK-NEXT:    return %[[T]]
func.func @compare(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<3x2xi1> {
  %ta = ember.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %tb = ember.transpose %b permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %c = ember.compare lt, %ta, %tb : tensor<3x2xf32>
  return %c : tensor<3x2xi1>
}

// -----

// Left alone: permutations that differ, an operand that is not a transpose,
// and a transpose that is used elsewhere too (sinking would add one).
// CHECK-LABEL: func.func @kept(
// CHECK:         %[[TA:.*]] = ember.transpose %{{.*}} permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-COUNT-3: ember.add {{.*}} : tensor<3x2xf32>
// CHECK-NOT:     ember.transpose
func.func @kept(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %ta = ember.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %x = ember.add %ta, %b : tensor<3x2xf32>
  %y = ember.add %ta, %ta : tensor<3x2xf32>
  %z = ember.add %x, %ta : tensor<3x2xf32>
  return %x, %y, %z, %ta : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Not into a loop's body from outside it: the transpose would run each step.
// CHECK-LABEL: func.func @loop(
// CHECK:         %[[T:.*]] = ember.transpose
// CHECK:         scf.for
// CHECK:           ember.relu %[[T]] : tensor<3x2xf32>
func.func @loop(%a: tensor<2x3xf32>, %n: index) -> tensor<3x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ta = ember.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %zero = ember.constant dense<0.0> : tensor<3x2xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<3x2xf32>) {
    %u = ember.relu %ta : tensor<3x2xf32>
    %s = ember.add %u, %acc : tensor<3x2xf32>
    scf.yield %s : tensor<3x2xf32>
  }
  return %r : tensor<3x2xf32>
}
