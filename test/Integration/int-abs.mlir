// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// abs on integer tensors (i32 and i64) through the whole pipeline.

func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @abs_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.abs %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

func.func @abs_i64(%x: tensor<3xi64>) -> tensor<3xi64> {
  %0 = ember.abs %x : tensor<3xi64>
  return %0 : tensor<3xi64>
}

func.func @main() {
  %a = ember.constant dense<[-3, 0, 5, -2147483647]> : tensor<4xi32>
  %r = func.call @abs_i32(%a) {no_inline} : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
  // CHECK-NEXT: [3, 0, 5, 2147483647]
  %u = tensor.cast %r : tensor<4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()

  %b = ember.constant dense<[-9000000000, 7, 0]> : tensor<3xi64>
  %s = func.call @abs_i64(%b) {no_inline} : (tensor<3xi64>) -> tensor<3xi64>
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [9000000000, 7, 0]
  %v = tensor.cast %s : tensor<3xi64> to tensor<*xi64>
  func.call @printMemrefI64(%v) : (tensor<*xi64>) -> ()
  return
}
