// RUN: ember-opt %s --canonicalize --split-input-file | FileCheck %s

// Reductions of constants fold, with the compiled code's semantics.
// CHECK-LABEL: func.func @reductions_of_constants(
// CHECK-DAG:     ember.constant dense<[9.000000e+00, 1.200000e+01]> : tensor<2xf32>
// CHECK-DAG:     ember.constant dense<[4, 10, 18]> : tensor<3xi32>
// CHECK-DAG:     ember.constant dense<3.500000e+00> : tensor<f32>
// CHECK-DAG:     ember.constant dense<{{\[\[}}5.000000e+00], [6.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG:     ember.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK-NOT:     ember.reduce
func.func @reductions_of_constants() -> (tensor<2xf32>, tensor<3xi32>, tensor<f32>, tensor<2x1xf32>, tensor<3xi32>) {
  %c = ember.constant dense<[[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]> : tensor<2x3xf32>
  %i = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = ember.reduce_sum %c axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %1 = ember.reduce_prod %i axes = [0] : tensor<2x3xi32> -> tensor<3xi32>
  %2 = ember.reduce_mean %c axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %3 = ember.reduce_max %c axes = [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
  %4 = ember.reduce_min %i axes = [0] : tensor<2x3xi32> -> tensor<3xi32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<3xi32>, tensor<f32>, tensor<2x1xf32>, tensor<3xi32>
}

// -----

// NaN propagates through max, as at run time.
// CHECK-LABEL: func.func @max_with_nan(
// CHECK:         ember.constant dense<0x7FC00000> : tensor<f32>
func.func @max_with_nan() -> tensor<f32> {
  %c = ember.constant dense<[1.0, 0x7FC00000, 3.0]> : tensor<3xf32>
  %0 = ember.reduce_max %c axes = [0] : tensor<3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
