// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// Integer pow with a negative exponent gives 0 unless the base is 1 or -1
// (EmberOps.td); that includes a zero base, as the folder computes.

func.func private @printMemrefI32(tensor<*xi32>)

func.func @pow(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.pow %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

func.func @main() {
  %a = ember.constant dense<[0, 0, 2, 0]> : tensor<4xi32>
  %b = ember.constant dense<[-1, -2, -1, 0]> : tensor<4xi32>
  %r = func.call @pow(%a, %b) {no_inline} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
  // CHECK-NEXT: [0, 0, 0, 1]
  %u = tensor.cast %r : tensor<4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}
