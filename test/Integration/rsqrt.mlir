// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// rsqrt (1 / sqrt(x)) in f32 and f64 through the whole pipeline and the JIT.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @rsqrt_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ember.rsqrt %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @rsqrt_f64(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = ember.rsqrt %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}

func.func @main() {
  %x = ember.constant dense<[0.5, 1.0, 2.0, 4.0]> : tensor<4xf32>
  %r = func.call @rsqrt_f32(%x) {no_inline} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
  // CHECK-NEXT: [1.4142{{[0-9]*}}, 1, 0.70710{{[0-9]*}}, 0.5]
  %ru = tensor.cast %r : tensor<4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()

  %y = ember.constant dense<[16.0, 0.25]> : tensor<2xf64>
  %s = func.call @rsqrt_f64(%y) {no_inline} : (tensor<2xf64>) -> tensor<2xf64>
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [0.25, 2]
  %su = tensor.cast %s : tensor<2xf64> to tensor<*xf64>
  func.call @printMemrefF64(%su) : (tensor<*xf64>) -> ()
  return
}
