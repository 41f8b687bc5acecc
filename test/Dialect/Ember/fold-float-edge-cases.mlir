// RUN: ember-opt %s -canonicalize="test-convergence" -split-input-file | FileCheck %s

// Constant folding of unary float ops at NaN and signed zero must agree with
// numpy and with the compiled code (see test/Integration/elementwise.mlir,
// where relu(NaN) = NaN and abs(-0.0) = +0.0 at run time).

// numpy (and the compiled code, math.absf): abs(-0.0) = +0.0.
// CHECK-LABEL: func.func @abs_fold_negative_zero(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[0.000000e+00, 1.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @abs_fold_negative_zero() -> tensor<2xf32> {
  %a = ember.constant dense<[-0.0, -1.5]> : tensor<2xf32>
  %0 = ember.abs %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// relu is max(x, 0) and NaN propagates (numpy; arith.maximumf in the compiled code).
// CHECK-LABEL: func.func @relu_fold_nan(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[0x7FC00000, 0.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @relu_fold_nan() -> tensor<2xf32> {
  %a = ember.constant dense<[0x7FC00000, -1.5]> : tensor<2xf32>
  %0 = ember.relu %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
