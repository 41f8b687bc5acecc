// RUN: ember-opt %s --ember-optimize --split-input-file | FileCheck %s

// Unused ops are pruned (story D5: the out-of-range gather never runs), common
// subexpressions merge, constants fold.
// CHECK-LABEL: func.func @prune_cse_fold(
// CHECK-SAME:      %[[X:.*]]: tensor<3xi32>)
// CHECK-NOT:     ember.gather
// CHECK:         %[[M:.*]] = ember.mul %[[X]], %[[X]] : tensor<3xi32>
// CHECK-NEXT:    %[[S:.*]] = ember.add %[[M]], %[[M]] : tensor<3xi32>
// CHECK-NEXT:    return %[[S]]
func.func @prune_cse_fold(%x: tensor<3xi32>) -> tensor<3xi32> {
  %idx = ember.constant dense<[7]> : tensor<1xi64>
  %unused = ember.gather %x, %idx axis = 0 : tensor<3xi32>, tensor<1xi64> -> tensor<1xi32>
  %zero = ember.constant dense<0> : tensor<3xi32>
  %a = ember.mul %x, %x : tensor<3xi32>
  %b = ember.mul %x, %x : tensor<3xi32>
  %a0 = ember.add %a, %zero : tensor<3xi32>
  %s = ember.add %a0, %b : tensor<3xi32>
  return %s : tensor<3xi32>
}

// -----

// Calls are inlined and the callee, now unused and private, removed.
// CHECK-LABEL: func.func @caller(
// CHECK-NEXT:    ember.neg
// CHECK-NEXT:    return
// CHECK-NOT:   func.func private @callee
func.func private @callee(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = ember.neg %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @caller(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @callee(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
