// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// Reductions and argmax in the compiled code, with and without keepdims.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)
func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @reduce_f32(%x: tensor<2x3xf32>)
    -> (tensor<2xf32>, tensor<1x3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1x1xf32>, tensor<f32>) {
  %0 = ember.reduce_sum %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %1 = ember.reduce_sum %x axes = [0] keepdims : tensor<2x3xf32> -> tensor<1x3xf32>
  %2 = ember.reduce_max %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %3 = ember.reduce_min %x axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %4 = ember.reduce_prod %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %5 = ember.reduce_mean %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %6 = ember.reduce_mean %x axes = [0, 1] keepdims : tensor<2x3xf32> -> tensor<1x1xf32>
  %7 = ember.reduce_sum %x axes = [1, 0] : tensor<2x3xf32> -> tensor<f32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2xf32>, tensor<1x3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1x1xf32>, tensor<f32>
}

func.func @reduce_i32(%y: tensor<2x3xi32>) -> (tensor<2xi32>, tensor<2x1xi32>, tensor<3xi32>, tensor<i32>) {
  %0 = ember.reduce_sum %y axes = [1] : tensor<2x3xi32> -> tensor<2xi32>
  %1 = ember.reduce_max %y axes = [1] keepdims : tensor<2x3xi32> -> tensor<2x1xi32>
  %2 = ember.reduce_min %y axes = [0] : tensor<2x3xi32> -> tensor<3xi32>
  %3 = ember.reduce_prod %y axes = [0, 1] : tensor<2x3xi32> -> tensor<i32>
  return %0, %1, %2, %3 : tensor<2xi32>, tensor<2x1xi32>, tensor<3xi32>, tensor<i32>
}

func.func @reduce_3d(%z: tensor<2x3x4xf64>, %w: tensor<2x3x4xi64>)
    -> (tensor<1x3x1xf64>, tensor<3xf64>, tensor<4xi64>, tensor<2x4xi64>) {
  %0 = ember.reduce_sum %z axes = [0, 2] keepdims : tensor<2x3x4xf64> -> tensor<1x3x1xf64>
  %1 = ember.reduce_mean %z axes = [2, 0] : tensor<2x3x4xf64> -> tensor<3xf64>
  %2 = ember.reduce_max %w axes = [0, 1] : tensor<2x3x4xi64> -> tensor<4xi64>
  %3 = ember.reduce_min %w axes = [1] : tensor<2x3x4xi64> -> tensor<2x4xi64>
  return %0, %1, %2, %3 : tensor<1x3x1xf64>, tensor<3xf64>, tensor<4xi64>, tensor<2x4xi64>
}

// Max of negative values (the init is -inf) and min of large ones (+inf).
func.func @reduce_extremes(%n: tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = ember.reduce_max %n axes = [1] : tensor<2x2xf32> -> tensor<2xf32>
  %1 = ember.neg %n : tensor<2x2xf32>
  %2 = ember.reduce_min %1 axes = [1] : tensor<2x2xf32> -> tensor<2xf32>
  return %0, %2 : tensor<2xf32>, tensor<2xf32>
}

func.func @argmax_f32(%x: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<1x3xi64>) {
  %0 = ember.argmax %x axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
  %1 = ember.argmax %x axis = 0 keepdims : tensor<2x3xf32> -> tensor<1x3xi64>
  return %0, %1 : tensor<2xi64>, tensor<1x3xi64>
}

func.func @argmax_1d(%a: tensor<3xf32>, %b: tensor<2xi32>, %c: tensor<4xi64>) -> (tensor<i64>, tensor<i64>, tensor<1xi64>) {
  %0 = ember.argmax %a axis = 0 : tensor<3xf32> -> tensor<i64>
  %1 = ember.argmax %b axis = 0 : tensor<2xi32> -> tensor<i64>
  %2 = ember.argmax %c axis = 0 keepdims : tensor<4xi64> -> tensor<1xi64>
  return %0, %1, %2 : tensor<i64>, tensor<i64>, tensor<1xi64>
}

func.func @main() {
  %x = ember.constant dense<[[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]> : tensor<2x3xf32>
  %f:8 = func.call @reduce_f32(%x) {no_inline} : (tensor<2x3xf32>)
      -> (tensor<2xf32>, tensor<1x3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1x1xf32>, tensor<f32>)
  // sum axes [1]
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [9, 12]
  %f0 = tensor.cast %f#0 : tensor<2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f0) : (tensor<*xf32>) -> ()
  // sum axes [0] keepdims
  // CHECK: rank = 2 offset = 0 sizes = [1, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[5, 7, 9]]
  %f1 = tensor.cast %f#1 : tensor<1x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f1) : (tensor<*xf32>) -> ()
  // max axes [1]
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [5, 6]
  %f2 = tensor.cast %f#2 : tensor<2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f2) : (tensor<*xf32>) -> ()
  // min axes [0]
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [1, 2, 3]
  %f3 = tensor.cast %f#3 : tensor<3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f3) : (tensor<*xf32>) -> ()
  // prod axes [1]
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [15, 48]
  %f4 = tensor.cast %f#4 : tensor<2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f4) : (tensor<*xf32>) -> ()
  // mean axes [1]
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [3, 4]
  %f5 = tensor.cast %f#5 : tensor<2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f5) : (tensor<*xf32>) -> ()
  // mean over everything, keepdims
  // CHECK: rank = 2 offset = 0 sizes = [1, 1] strides = [1, 1] data =
  // CHECK-NEXT: {{\[}}[3.5]]
  %f6 = tensor.cast %f#6 : tensor<1x1xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f6) : (tensor<*xf32>) -> ()
  // sum over everything: a 0-d result
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [21]
  %f7 = tensor.cast %f#7 : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%f7) : (tensor<*xf32>) -> ()

  %y = ember.constant dense<[[1, -5, 3], [4, 2, -6]]> : tensor<2x3xi32>
  %i:4 = func.call @reduce_i32(%y) {no_inline} : (tensor<2x3xi32>) -> (tensor<2xi32>, tensor<2x1xi32>, tensor<3xi32>, tensor<i32>)
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [-1, 0]
  %i0 = tensor.cast %i#0 : tensor<2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i0) : (tensor<*xi32>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [2, 1] strides = [1, 1] data =
  // CHECK-NEXT: {{\[}}[3],
  // CHECK-NEXT:  [4]]
  %i1 = tensor.cast %i#1 : tensor<2x1xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i1) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [1, -5, -6]
  %i2 = tensor.cast %i#2 : tensor<3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i2) : (tensor<*xi32>) -> ()
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [720]
  %i3 = tensor.cast %i#3 : tensor<i32> to tensor<*xi32>
  func.call @printMemrefI32(%i3) : (tensor<*xi32>) -> ()

  // z[i][j][k] = w[i][j][k] = 12 i + 4 j + k
  %z = ember.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]],
                             [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf64>
  %w = ember.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
                             [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi64>
  %t:4 = func.call @reduce_3d(%z, %w) {no_inline} : (tensor<2x3x4xf64>, tensor<2x3x4xi64>)
      -> (tensor<1x3x1xf64>, tensor<3xf64>, tensor<4xi64>, tensor<2x4xi64>)
  // CHECK: rank = 3 offset = 0 sizes = [1, 3, 1] strides = [3, 1, 1] data =
  // CHECK-NEXT: {{\[\[}}[60],
  // CHECK-NEXT:   [92],
  // CHECK-NEXT:   [124]]]
  %t0 = tensor.cast %t#0 : tensor<1x3x1xf64> to tensor<*xf64>
  func.call @printMemrefF64(%t0) : (tensor<*xf64>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [7.5, 11.5, 15.5]
  %t1 = tensor.cast %t#1 : tensor<3xf64> to tensor<*xf64>
  func.call @printMemrefF64(%t1) : (tensor<*xf64>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
  // CHECK-NEXT: [20, 21, 22, 23]
  %t2 = tensor.cast %t#2 : tensor<4xi64> to tensor<*xi64>
  func.call @printMemrefI64(%t2) : (tensor<*xi64>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [2, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[0, 1, 2, 3],
  // CHECK-NEXT:  [12, 13, 14, 15]]
  %t3 = tensor.cast %t#3 : tensor<2x4xi64> to tensor<*xi64>
  func.call @printMemrefI64(%t3) : (tensor<*xi64>) -> ()

  %n = ember.constant dense<[[-3.0, -1.5], [-7.0, -1.0e30]]> : tensor<2x2xf32>
  %e:2 = func.call @reduce_extremes(%n) {no_inline} : (tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [-1.5, -7]
  %e0 = tensor.cast %e#0 : tensor<2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%e0) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [1.5, 7]
  %e1 = tensor.cast %e#1 : tensor<2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%e1) : (tensor<*xf32>) -> ()

  // Ties pick the first index.
  %am = ember.constant dense<[[1.0, 3.0, 3.0], [7.0, 3.0, 2.0]]> : tensor<2x3xf32>
  %a:2 = func.call @argmax_f32(%am) {no_inline} : (tensor<2x3xf32>) -> (tensor<2xi64>, tensor<1x3xi64>)
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [1, 0]
  %a0 = tensor.cast %a#0 : tensor<2xi64> to tensor<*xi64>
  func.call @printMemrefI64(%a0) : (tensor<*xi64>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [1, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[1, 0, 0]]
  %a1 = tensor.cast %a#1 : tensor<1x3xi64> to tensor<*xi64>
  func.call @printMemrefI64(%a1) : (tensor<*xi64>) -> ()

  // All elements at the lowest value of the type: index 0.
  %ninf = ember.constant dense<0xFF800000> : tensor<3xf32>
  %imin = ember.constant dense<-2147483648> : tensor<2xi32>
  %neg = ember.constant dense<[-5, -1, -1, -9]> : tensor<4xi64>
  %o:3 = func.call @argmax_1d(%ninf, %imin, %neg) {no_inline} : (tensor<3xf32>, tensor<2xi32>, tensor<4xi64>) -> (tensor<i64>, tensor<i64>, tensor<1xi64>)
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [0]
  %o0 = tensor.cast %o#0 : tensor<i64> to tensor<*xi64>
  func.call @printMemrefI64(%o0) : (tensor<*xi64>) -> ()
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [0]
  %o1 = tensor.cast %o#1 : tensor<i64> to tensor<*xi64>
  func.call @printMemrefI64(%o1) : (tensor<*xi64>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [1] strides = [1] data =
  // CHECK-NEXT: [1]
  %o2 = tensor.cast %o#2 : tensor<1xi64> to tensor<*xi64>
  func.call @printMemrefI64(%o2) : (tensor<*xi64>) -> ()
  return
}
