// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// argmax is numpy's argmax (EmberOps.td): NaN counts as the maximum, so the
// index of the first NaN is returned -- consistent with reduce_max, which
// propagates NaN.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @argmax(%x: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<2xf32>) {
  %0 = ember.argmax %x axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
  %1 = ember.reduce_max %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0, %1 : tensor<2xi64>, tensor<2xf32>
}

func.func @main() {
  %x = ember.constant dense<[[1.0, 0x7FC00000, 3.0], [0x7FC00000, 5.0, 0x7FC00000]]> : tensor<2x3xf32>
  %r:2 = func.call @argmax(%x) {no_inline} : (tensor<2x3xf32>) -> (tensor<2xi64>, tensor<2xf32>)
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [1, 0]
  %r0 = tensor.cast %r#0 : tensor<2xi64> to tensor<*xi64>
  func.call @printMemrefI64(%r0) : (tensor<*xi64>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [nan, nan]
  %r1 = tensor.cast %r#1 : tensor<2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%r1) : (tensor<*xf32>) -> ()
  return
}
