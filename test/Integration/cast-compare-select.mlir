// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// cast (numpy conversions), compare (every direction) + select, and 0-d
// tensors in the compiled code.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)
func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @casts(%f: tensor<5xf32>, %b: tensor<2xi1>, %i: tensor<3xi32>, %l: tensor<2xi64>)
    -> (tensor<5xi32>, tensor<2xf32>, tensor<3xi32>, tensor<5xi32>, tensor<2xi32>, tensor<3xf64>) {
  // float -> int truncates toward zero
  %0 = ember.cast %f : tensor<5xf32> -> tensor<5xi32>
  // bool -> float is 0 or 1
  %1 = ember.cast %b : tensor<2xi1> -> tensor<2xf32>
  // int -> bool is x != 0 (printed through i32)
  %2 = ember.cast %i : tensor<3xi32> -> tensor<3xi1>
  %3 = ember.cast %2 : tensor<3xi1> -> tensor<3xi32>
  // float -> bool is x != 0, true for NaN
  %4 = ember.cast %f : tensor<5xf32> -> tensor<5xi1>
  %5 = ember.cast %4 : tensor<5xi1> -> tensor<5xi32>
  // i64 -> i32 wraps
  %6 = ember.cast %l : tensor<2xi64> -> tensor<2xi32>
  // i32 -> f64
  %7 = ember.cast %i : tensor<3xi32> -> tensor<3xf64>
  return %0, %1, %3, %5, %6, %7 : tensor<5xi32>, tensor<2xf32>, tensor<3xi32>, tensor<5xi32>, tensor<2xi32>, tensor<3xf64>
}

// Rows: eq, ne, lt, le, gt, ge.
func.func @compare_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<6x4xi32> {
  %0 = ember.compare eq, %a, %b : tensor<4xf32>
  %1 = ember.compare ne, %a, %b : tensor<4xf32>
  %2 = ember.compare lt, %a, %b : tensor<4xf32>
  %3 = ember.compare le, %a, %b : tensor<4xf32>
  %4 = ember.compare gt, %a, %b : tensor<4xf32>
  %5 = ember.compare ge, %a, %b : tensor<4xf32>
  %6 = ember.concat %0, %1, %2, %3, %4, %5 axis = 0
      : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1> -> tensor<24xi1>
  %7 = ember.reshape %6 : tensor<24xi1> -> tensor<6x4xi1>
  %8 = ember.cast %7 : tensor<6x4xi1> -> tensor<6x4xi32>
  return %8 : tensor<6x4xi32>
}

// Signed integers and bools (false < true).
func.func @compare_int(%a: tensor<3xi64>, %b: tensor<3xi64>, %p: tensor<3xi1>, %q: tensor<3xi1>) -> tensor<4x3xi32> {
  %0 = ember.compare lt, %a, %b : tensor<3xi64>
  %1 = ember.compare ge, %a, %b : tensor<3xi64>
  %2 = ember.compare lt, %p, %q : tensor<3xi1>
  %3 = ember.compare gt, %p, %q : tensor<3xi1>
  %4 = ember.concat %0, %1, %2, %3 axis = 0 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1> -> tensor<12xi1>
  %5 = ember.reshape %4 : tensor<12xi1> -> tensor<4x3xi1>
  %6 = ember.cast %5 : tensor<4x3xi1> -> tensor<4x3xi32>
  return %6 : tensor<4x3xi32>
}

// where(a < b, a, b) and a clamp built from compare + select.
func.func @select(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %lt = ember.compare lt, %a, %b : tensor<2x3xf32>
  %0 = ember.select %lt, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  %zero = ember.constant dense<0.0> : tensor<2x3xf32>
  %neg = ember.compare lt, %a, %zero : tensor<2x3xf32>
  %1 = ember.select %neg, %zero, %a : tensor<2x3xi1>, tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// 0-d tensors through elementwise ops, broadcast, a reduction and select.
func.func @scalars(%x: tensor<f32>, %y: tensor<f32>, %v: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>) {
  %0 = ember.add %x, %y : tensor<f32>
  %1 = ember.mul %0, %0 : tensor<f32>
  %2 = ember.broadcast_to %1 : tensor<f32> -> tensor<3xf32>
  %3 = ember.sub %2, %v : tensor<3xf32>
  %4 = ember.reduce_max %v axes = [0] : tensor<3xf32> -> tensor<f32>
  %5 = ember.compare gt, %x, %y : tensor<f32>
  %6 = ember.select %5, %x, %4 : tensor<i1>, tensor<f32>
  return %1, %3, %6 : tensor<f32>, tensor<3xf32>, tensor<f32>
}

func.func @main() {
  %f = ember.constant dense<[-2.7, 2.7, -0.5, 3.99, 0x7FC00000]> : tensor<5xf32>
  %b = ember.constant dense<[true, false]> : tensor<2xi1>
  %i = ember.constant dense<[0, 5, -1]> : tensor<3xi32>
  %l = ember.constant dense<[4294967297, -4294967296]> : tensor<2xi64>
  %c:6 = func.call @casts(%f, %b, %i, %l) {no_inline} : (tensor<5xf32>, tensor<2xi1>, tensor<3xi32>, tensor<2xi64>)
      -> (tensor<5xi32>, tensor<2xf32>, tensor<3xi32>, tensor<5xi32>, tensor<2xi32>, tensor<3xf64>)
  // The NaN element's conversion to i32 is unspecified; only the first four are checked.
  // CHECK: rank = 1 offset = 0 sizes = [5] strides = [1] data =
  // CHECK-NEXT: [-2, 2, 0, 3,
  %c0 = tensor.cast %c#0 : tensor<5xi32> to tensor<*xi32>
  func.call @printMemrefI32(%c0) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [1, 0]
  %c1 = tensor.cast %c#1 : tensor<2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%c1) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [0, 1, 1]
  %c2 = tensor.cast %c#2 : tensor<3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%c2) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [5] strides = [1] data =
  // CHECK-NEXT: [1, 1, 1, 1, 1]
  %c3 = tensor.cast %c#3 : tensor<5xi32> to tensor<*xi32>
  func.call @printMemrefI32(%c3) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [1, 0]
  %c4 = tensor.cast %c#4 : tensor<2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%c4) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [0, 5, -1]
  %c5 = tensor.cast %c#5 : tensor<3xf64> to tensor<*xf64>
  func.call @printMemrefF64(%c5) : (tensor<*xf64>) -> ()

  // Float comparisons are false on NaN except ne.
  %ca = ember.constant dense<[1.0, 2.0, 3.0, 0x7FC00000]> : tensor<4xf32>
  %cb = ember.constant dense<[2.0, 2.0, 1.0, 1.0]> : tensor<4xf32>
  %cf = func.call @compare_f32(%ca, %cb) {no_inline} : (tensor<4xf32>, tensor<4xf32>) -> tensor<6x4xi32>
  // CHECK: rank = 2 offset = 0 sizes = [6, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[0, 1, 0, 0],
  // CHECK-NEXT:  [1, 0, 1, 1],
  // CHECK-NEXT:  [1, 0, 0, 0],
  // CHECK-NEXT:  [1, 1, 0, 0],
  // CHECK-NEXT:  [0, 0, 1, 0],
  // CHECK-NEXT:  [0, 1, 1, 0]]
  %cfu = tensor.cast %cf : tensor<6x4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%cfu) : (tensor<*xi32>) -> ()

  %ia = ember.constant dense<[-5, 3, 7]> : tensor<3xi64>
  %ib = ember.constant dense<[2, 3, -8]> : tensor<3xi64>
  %p = ember.constant dense<[false, true, true]> : tensor<3xi1>
  %q = ember.constant dense<[true, false, true]> : tensor<3xi1>
  %ci = func.call @compare_int(%ia, %ib, %p, %q) {no_inline} : (tensor<3xi64>, tensor<3xi64>, tensor<3xi1>, tensor<3xi1>) -> tensor<4x3xi32>
  // CHECK: rank = 2 offset = 0 sizes = [4, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[1, 0, 0],
  // CHECK-NEXT:  [0, 1, 1],
  // CHECK-NEXT:  [1, 0, 0],
  // CHECK-NEXT:  [0, 1, 0]]
  %ciu = tensor.cast %ci : tensor<4x3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%ciu) : (tensor<*xi32>) -> ()

  %sa = ember.constant dense<[[1.0, -5.0, 3.0], [-0.5, 8.0, 2.0]]> : tensor<2x3xf32>
  %sb = ember.constant dense<[[2.0, -6.0, 3.0], [4.0, 1.0, -2.0]]> : tensor<2x3xf32>
  %s:2 = func.call @select(%sa, %sb) {no_inline} : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[1, -6, 3],
  // CHECK-NEXT:  [-0.5, 1, -2]]
  %s0 = tensor.cast %s#0 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%s0) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[1, 0, 3],
  // CHECK-NEXT:  [0, 8, 2]]
  %s1 = tensor.cast %s#1 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%s1) : (tensor<*xf32>) -> ()

  %x = ember.constant dense<1.5> : tensor<f32>
  %y = ember.constant dense<2.25> : tensor<f32>
  %v = ember.constant dense<[1.0, 20.0, 3.0]> : tensor<3xf32>
  %z:3 = func.call @scalars(%x, %y, %v) {no_inline} : (tensor<f32>, tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>)
  // (1.5 + 2.25)^2 = 14.0625
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [14.0625]
  %z0 = tensor.cast %z#0 : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%z0) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [13.0625, -5.9375, 11.0625]
  %z1 = tensor.cast %z#1 : tensor<3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%z1) : (tensor<*xf32>) -> ()
  // 1.5 > 2.25 is false: the max of v, 20.
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [20]
  %z2 = tensor.cast %z#2 : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%z2) : (tensor<*xf32>) -> ()
  return
}
