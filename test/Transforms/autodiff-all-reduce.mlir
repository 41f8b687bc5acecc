// RUN: ember-opt %s --ember-autodiff --split-input-file --verify-diagnostics | FileCheck %s

// The gradient of a sum over the processes is the sum of their cotangents,
// of a mean their mean.
// CHECK-LABEL: func.func @sum_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32>, %[[G:.*]]: tensor<4xf32>)
// CHECK:         %[[Y:.*]] = ember.all_reduce sum, %[[X]] : tensor<4xf32>
// CHECK:         %[[DX:.*]] = ember.all_reduce sum, %[[G]] : tensor<4xf32>
// CHECK:         return %[[Y]], %[[DX]]
func.func @sum(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ember.differentiate} {
  %0 = ember.all_reduce sum, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mean_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<?xf64>, %[[G:.*]]: tensor<?xf64>)
// CHECK:         ember.all_reduce mean, %[[G]] : tensor<?xf64>
func.func @mean(%x: tensor<?xf64>) -> tensor<?xf64> attributes {ember.differentiate} {
  %0 = ember.all_reduce mean, %x : tensor<?xf64>
  return %0 : tensor<?xf64>
}

// -----

func.func @max(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ember.differentiate} {
  // expected-error @+2 {{'ember.all_reduce' op has no gradient for max}}
  // expected-error @+1 {{'ember.all_reduce' op failed to build its vector-Jacobian product}}
  %0 = ember.all_reduce max, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
