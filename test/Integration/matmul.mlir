// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// matmul in the compiled code: rank 2 (f32, i32) and batched (rank 3 and 4).

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @mm_f32(%a: tensor<3x2xf32>, %b: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = ember.matmul %a, %b : tensor<3x2xf32>, tensor<2x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

func.func @mm_i32(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %0 = ember.matmul %a, %b : tensor<2x2xi32>, tensor<2x2xi32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

func.func @bmm3(%a: tensor<2x2x2xf32>, %b: tensor<2x2x2xf32>) -> tensor<2x2x2xf32> {
  %0 = ember.matmul %a, %b : tensor<2x2x2xf32>, tensor<2x2x2xf32> -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

func.func @bmm4(%a: tensor<2x1x2x3xi64>, %b: tensor<2x1x3x2xi64>) -> tensor<2x1x2x2xi64> {
  %0 = ember.matmul %a, %b : tensor<2x1x2x3xi64>, tensor<2x1x3x2xi64> -> tensor<2x1x2x2xi64>
  return %0 : tensor<2x1x2x2xi64>
}

func.func @main() {
  %a = ember.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %b = ember.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %m = func.call @mm_f32(%a, %b) {no_inline} : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  // CHECK: rank = 2 offset = 0 sizes = [3, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[9, 12, 15],
  // CHECK-NEXT:  [19, 26, 33],
  // CHECK-NEXT:  [29, 40, 51]]
  %mu = tensor.cast %m : tensor<3x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%mu) : (tensor<*xf32>) -> ()

  %c = ember.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %d = ember.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %n = func.call @mm_i32(%c, %d) {no_inline} : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  // CHECK: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[19, 22],
  // CHECK-NEXT:  [43, 50]]
  %nu = tensor.cast %n : tensor<2x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%nu) : (tensor<*xi32>) -> ()

  %e = ember.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>
  %f = ember.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]]> : tensor<2x2x2xf32>
  %p = func.call @bmm3(%e, %f) {no_inline} : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  // CHECK: rank = 3 offset = 0 sizes = [2, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT: {{\[\[}}[1, 2],
  // CHECK-NEXT:   [3, 4]],
  // CHECK-NEXT:  {{\[}}[10, 12],
  // CHECK-NEXT:   [14, 16]]]
  %pu = tensor.cast %p : tensor<2x2x2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%pu) : (tensor<*xf32>) -> ()

  %g = ember.constant dense<[[[[1, 2, 3], [4, 5, 6]]], [[[1, 1, 1], [2, 2, 2]]]]> : tensor<2x1x2x3xi64>
  %h = ember.constant dense<[[[[1, 0], [0, 1], [1, 1]]], [[[1, 2], [3, 4], [5, 6]]]]> : tensor<2x1x3x2xi64>
  %q = func.call @bmm4(%g, %h) {no_inline} : (tensor<2x1x2x3xi64>, tensor<2x1x3x2xi64>) -> tensor<2x1x2x2xi64>
  // CHECK: rank = 4 offset = 0 sizes = [2, 1, 2, 2] strides = [4, 4, 2, 1] data =
  // CHECK-NEXT: {{\[\[\[}}[4, 5],
  // CHECK-NEXT:    [10, 11]]],
  // CHECK-NEXT:  {{\[\[}}[9, 12],
  // CHECK-NEXT:    [18, 24]]]]
  %qu = tensor.cast %q : tensor<2x1x2x2xi64> to tensor<*xi64>
  func.call @printMemrefI64(%qu) : (tensor<*xi64>) -> ()
  return
}
