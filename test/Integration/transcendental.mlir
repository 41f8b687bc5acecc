// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// Transcendental ops in the compiled code (math dialect -> LLVM intrinsics or
// libm). Values are matched to 5 significant digits.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

// (rsqrt is in rsqrt.mlir.)
func.func @positive(%x: tensor<4xf32>) -> tensor<4x4xf32> {
  %0 = ember.exp %x : tensor<4xf32>
  %1 = ember.log %x : tensor<4xf32>
  %2 = ember.log1p %x : tensor<4xf32>
  %3 = ember.sqrt %x : tensor<4xf32>
  %4 = ember.concat %0, %1, %2, %3 axis = 0
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<16xf32>
  %5 = ember.reshape %4 : tensor<16xf32> -> tensor<4x4xf32>
  return %5 : tensor<4x4xf32>
}

func.func @squashing(%y: tensor<1x4xf32>) -> tensor<2x4xf32> {
  %0 = ember.tanh %y : tensor<1x4xf32>
  %1 = ember.sigmoid %y : tensor<1x4xf32>
  %2 = ember.concat %0, %1 axis = 0 : tensor<1x4xf32>, tensor<1x4xf32> -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

func.func @trig(%z: tensor<1x4xf32>) -> tensor<2x4xf32> {
  %0 = ember.sin %z : tensor<1x4xf32>
  %1 = ember.cos %z : tensor<1x4xf32>
  %2 = ember.concat %0, %1 axis = 0 : tensor<1x4xf32>, tensor<1x4xf32> -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

func.func @f64(%x: tensor<2xf64>) -> tensor<3x2xf64> {
  %0 = ember.exp %x : tensor<2xf64>
  %1 = ember.tanh %x : tensor<2xf64>
  %2 = ember.sigmoid %x : tensor<2xf64>
  %3 = ember.concat %0, %1, %2 axis = 0 : tensor<2xf64>, tensor<2xf64>, tensor<2xf64> -> tensor<6xf64>
  %4 = ember.reshape %3 : tensor<6xf64> -> tensor<3x2xf64>
  return %4 : tensor<3x2xf64>
}

func.func @main() {
  %x = ember.constant dense<[0.5, 1.0, 2.0, 4.0]> : tensor<4xf32>
  %p = func.call @positive(%x) {no_inline} : (tensor<4xf32>) -> tensor<4x4xf32>
  // Rows: exp, log, log1p, sqrt.
  // CHECK: rank = 2 offset = 0 sizes = [4, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[1.6487{{[0-9]*}}, 2.7182{{[0-9]*}}, 7.3890{{[0-9]*}}, 54.598{{[0-9]*}}],
  // CHECK-NEXT:  [-0.69314{{[0-9]*}}, 0, 0.69314{{[0-9]*}}, 1.3862{{[0-9]*}}],
  // CHECK-NEXT:  [0.40546{{[0-9]*}}, 0.69314{{[0-9]*}}, 1.0986{{[0-9]*}}, 1.6094{{[0-9]*}}],
  // CHECK-NEXT:  [0.70710{{[0-9]*}}, 1, 1.4142{{[0-9]*}}, 2]]
  %pu = tensor.cast %p : tensor<4x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%pu) : (tensor<*xf32>) -> ()

  %y = ember.constant dense<[[-1.0, 0.0, 0.5, 2.0]]> : tensor<1x4xf32>
  %s = func.call @squashing(%y) {no_inline} : (tensor<1x4xf32>) -> tensor<2x4xf32>
  // Rows: tanh, sigmoid.
  // CHECK: rank = 2 offset = 0 sizes = [2, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[-0.76159{{[0-9]*}}, 0, 0.46211{{[0-9]*}}, 0.96402{{[0-9]*}}],
  // CHECK-NEXT:  [0.26894{{[0-9]*}}, 0.5, 0.62245{{[0-9]*}}, 0.88079{{[0-9]*}}]]
  %su = tensor.cast %s : tensor<2x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%su) : (tensor<*xf32>) -> ()

  %z = ember.constant dense<[[0.0, 0.5, 1.0, -2.0]]> : tensor<1x4xf32>
  %t = func.call @trig(%z) {no_inline} : (tensor<1x4xf32>) -> tensor<2x4xf32>
  // Rows: sin, cos.
  // CHECK: rank = 2 offset = 0 sizes = [2, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[0, 0.47942{{[0-9]*}}, 0.84147{{[0-9]*}}, -0.90929{{[0-9]*}}],
  // CHECK-NEXT:  [1, 0.87758{{[0-9]*}}, 0.54030{{[0-9]*}}, -0.41614{{[0-9]*}}]]
  %tu = tensor.cast %t : tensor<2x4xf32> to tensor<*xf32>
  func.call @printMemrefF32(%tu) : (tensor<*xf32>) -> ()

  %d = ember.constant dense<[1.0, -0.5]> : tensor<2xf64>
  %e = func.call @f64(%d) {no_inline} : (tensor<2xf64>) -> tensor<3x2xf64>
  // Rows: exp, tanh, sigmoid in f64.
  // CHECK: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[2.7182{{[0-9]*}}, 0.60653{{[0-9]*}}],
  // CHECK-NEXT:  [0.76159{{[0-9]*}}, -0.46211{{[0-9]*}}],
  // CHECK-NEXT:  [0.73105{{[0-9]*}}, 0.37754{{[0-9]*}}]]
  %eu = tensor.cast %e : tensor<3x2xf64> to tensor<*xf64>
  func.call @printMemrefF64(%eu) : (tensor<*xf64>) -> ()
  return
}
