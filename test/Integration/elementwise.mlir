// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// Elementwise arithmetic executed by the JIT. The operands reach the kernels
// through calls (the pipeline does not inline), so the folders cannot evaluate
// them: this is the compiled code's arithmetic.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @binary_f32(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = ember.add %a, %b : tensor<2x3xf32>
  %1 = ember.sub %a, %b : tensor<2x3xf32>
  %2 = ember.mul %a, %b : tensor<2x3xf32>
  %3 = ember.div %a, %b : tensor<2x3xf32>
  %4 = ember.floordiv %a, %b : tensor<2x3xf32>
  %5 = ember.mod %a, %b : tensor<2x3xf32>
  %6 = ember.pow %a, %b : tensor<2x3xf32>
  %7 = ember.maximum %a, %b : tensor<2x3xf32>
  %8 = ember.minimum %a, %b : tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
      tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

func.func @binary_i32(%a: tensor<8xi32>, %b: tensor<8xi32>)
    -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>,
        tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  %0 = ember.add %a, %b : tensor<8xi32>
  %1 = ember.sub %a, %b : tensor<8xi32>
  %2 = ember.mul %a, %b : tensor<8xi32>
  %3 = ember.div %a, %b : tensor<8xi32>
  %4 = ember.floordiv %a, %b : tensor<8xi32>
  %5 = ember.mod %a, %b : tensor<8xi32>
  %6 = ember.maximum %a, %b : tensor<8xi32>
  %7 = ember.and %a, %b : tensor<8xi32>
  %8 = ember.or %a, %b : tensor<8xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>,
      tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
}

func.func @binary_i64(%a: tensor<9xi64>, %b: tensor<9xi64>) -> (tensor<9xi64>, tensor<9xi64>) {
  %0 = ember.pow %a, %b : tensor<9xi64>
  %1 = ember.minimum %a, %b : tensor<9xi64>
  return %0, %1 : tensor<9xi64>, tensor<9xi64>
}

func.func @mod_i64(%a: tensor<9xi64>, %b: tensor<9xi64>) -> tensor<9xi64> {
  %0 = ember.mod %a, %b : tensor<9xi64>
  return %0 : tensor<9xi64>
}

func.func @unary_f32(%x: tensor<5xf32>)
    -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %0 = ember.neg %x : tensor<5xf32>
  %1 = ember.abs %x : tensor<5xf32>
  %2 = ember.relu %x : tensor<5xf32>
  %3 = ember.square %x : tensor<5xf32>
  %4 = ember.sign %x : tensor<5xf32>
  return %0, %1, %2, %3, %4 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}

// (Integer abs is in int-abs.mlir.)
func.func @unary_i32(%x: tensor<4xi32>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = ember.neg %x : tensor<4xi32>
  %1 = ember.relu %x : tensor<4xi32>
  %2 = ember.square %x : tensor<4xi32>
  %3 = ember.sign %x : tensor<4xi32>
  %4 = ember.not %x : tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// i1 logic, printed as 0/1 through a cast to i32.
func.func @logic_i1(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<3x4xi32> {
  %0 = ember.and %a, %b : tensor<4xi1>
  %1 = ember.or %a, %b : tensor<4xi1>
  %2 = ember.not %a : tensor<4xi1>
  %3 = ember.concat %0, %1, %2 axis = 0 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1> -> tensor<12xi1>
  %4 = ember.reshape %3 : tensor<12xi1> -> tensor<3x4xi1>
  %5 = ember.cast %4 : tensor<3x4xi1> -> tensor<3x4xi32>
  return %5 : tensor<3x4xi32>
}

func.func @main() {
  %a = ember.constant dense<[[1.5, -2.0, 3.0], [-7.5, 7.5, 0.5]]> : tensor<2x3xf32>
  %b = ember.constant dense<[[2.0, 4.0, -2.0], [2.0, -2.0, 0.25]]> : tensor<2x3xf32>
  %f:9 = func.call @binary_f32(%a, %b) {no_inline} : (tensor<2x3xf32>, tensor<2x3xf32>)
      -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
          tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)

  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[3.5, 2, 1],
  // CHECK-NEXT:  [-5.5, 5.5, 0.75]]
  %f0 = tensor.cast %f#0 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f0) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2
  // CHECK-NEXT: {{\[}}[-0.5, -6, 5],
  // CHECK-NEXT:  [-9.5, 9.5, 0.25]]
  %f1 = tensor.cast %f#1 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f1) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2
  // CHECK-NEXT: {{\[}}[3, -8, -6],
  // CHECK-NEXT:  [-15, -15, 0.125]]
  %f2 = tensor.cast %f#2 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f2) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2
  // CHECK-NEXT: {{\[}}[0.75, -0.5, -1.5],
  // CHECK-NEXT:  [-3.75, -3.75, 2]]
  %f3 = tensor.cast %f#3 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f3) : (tensor<*xf32>) -> ()
  // floordiv: -7.5 // 2 = -4, 7.5 // -2 = -4.
  // CHECK: rank = 2
  // CHECK-NEXT: {{\[}}[0, -1, -2],
  // CHECK-NEXT:  [-4, -4, 2]]
  %f4 = tensor.cast %f#4 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f4) : (tensor<*xf32>) -> ()
  // mod has the sign of the divisor: -2 % 4 = 2, 3 % -2 = -1, -7.5 % 2 = 0.5, 7.5 % -2 = -0.5.
  // CHECK: rank = 2
  // CHECK-NEXT: {{\[}}[1.5, 2, -1],
  // CHECK-NEXT:  [0.5, -0.5, 0]]
  %f5 = tensor.cast %f#5 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f5) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2
  // CHECK-NEXT: {{\[}}[2.25, 16, 0.11111{{[0-9]*}}],
  // CHECK-NEXT:  [56.25, 0.017777{{[0-9]*}}, 0.84089{{[0-9]*}}]]
  %f6 = tensor.cast %f#6 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f6) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2
  // CHECK-NEXT: {{\[}}[2, 4, 3],
  // CHECK-NEXT:  [2, 7.5, 0.5]]
  %f7 = tensor.cast %f#7 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f7) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2
  // CHECK-NEXT: {{\[}}[1.5, -2, -2],
  // CHECK-NEXT:  [-7.5, -2, 0.25]]
  %f8 = tensor.cast %f#8 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%f8) : (tensor<*xf32>) -> ()

  %ia = ember.constant dense<[-7, 7, -7, 7, 0, -1, 9, -9]> : tensor<8xi32>
  %ib = ember.constant dense<[2, 2, -2, -2, 5, 5, 4, 4]> : tensor<8xi32>
  %i:9 = func.call @binary_i32(%ia, %ib) {no_inline} : (tensor<8xi32>, tensor<8xi32>)
      -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>,
          tensor<8xi32>, tensor<8xi32>, tensor<8xi32>)
  // CHECK: rank = 1 offset = 0 sizes = [8] strides = [1] data =
  // CHECK-NEXT: [-5, 9, -9, 5, 5, 4, 13, -5]
  %i0 = tensor.cast %i#0 : tensor<8xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i0) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [-9, 5, -5, 9, -5, -6, 5, -13]
  %i1 = tensor.cast %i#1 : tensor<8xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i1) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [-14, 14, 14, -14, 0, -5, 36, -36]
  %i2 = tensor.cast %i#2 : tensor<8xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i2) : (tensor<*xi32>) -> ()
  // div truncates toward zero: -7 / 2 = -3.
  // CHECK: rank = 1
  // CHECK-NEXT: [-3, 3, 3, -3, 0, 0, 2, -2]
  %i3 = tensor.cast %i#3 : tensor<8xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i3) : (tensor<*xi32>) -> ()
  // floordiv rounds down: -7 // 2 = -4, 7 // -2 = -4, -1 // 5 = -1.
  // CHECK: rank = 1
  // CHECK-NEXT: [-4, 3, 3, -4, 0, -1, 2, -3]
  %i4 = tensor.cast %i#4 : tensor<8xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i4) : (tensor<*xi32>) -> ()
  // mod has the sign of the divisor: -7 % 2 = 1, 7 % -2 = -1, -1 % 5 = 4.
  // CHECK: rank = 1
  // CHECK-NEXT: [1, 1, -1, -1, 0, 4, 1, 3]
  %i5 = tensor.cast %i#5 : tensor<8xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i5) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [2, 7, -2, 7, 5, 5, 9, 4]
  %i6 = tensor.cast %i#6 : tensor<8xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i6) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [0, 2, -8, 6, 0, 5, 0, 4]
  %i7 = tensor.cast %i#7 : tensor<8xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i7) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [-5, 7, -1, -1, 5, -1, 13, -9]
  %i8 = tensor.cast %i#8 : tensor<8xi32> to tensor<*xi32>
  func.call @printMemrefI32(%i8) : (tensor<*xi32>) -> ()

  // Integer pow: a negative exponent gives 0 unless the base is 1 or -1.
  %la = ember.constant dense<[2, 3, -2, 2, 1, -1, -1, 7, 5]> : tensor<9xi64>
  %lb = ember.constant dense<[10, 0, 3, -1, -5, -3, -4, 0, 3]> : tensor<9xi64>
  %l:2 = func.call @binary_i64(%la, %lb) {no_inline} : (tensor<9xi64>, tensor<9xi64>) -> (tensor<9xi64>, tensor<9xi64>)
  // CHECK: rank = 1 offset = 0 sizes = [9] strides = [1] data =
  // CHECK-NEXT: [1024, 1, -8, 0, 1, -1, 1, 1, 125]
  %l0 = tensor.cast %l#0 : tensor<9xi64> to tensor<*xi64>
  func.call @printMemrefI64(%l0) : (tensor<*xi64>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [2, 0, -2, -1, -5, -3, -4, 0, 3]
  %l1 = tensor.cast %l#1 : tensor<9xi64> to tensor<*xi64>
  func.call @printMemrefI64(%l1) : (tensor<*xi64>) -> ()
  // mod: -2 % 3 = 1, 2 % -1 = 0, 1 % -5 = -4, -1 % -3 = -1.
  // CHECK: rank = 1
  // CHECK-NEXT: [2, 0, 1, 0, -4, -1, -1, 0, 2]
  %lbz = ember.constant dense<[10, 1, 3, -1, -5, -3, -4, 7, 3]> : tensor<9xi64>
  %m = func.call @mod_i64(%la, %lbz) {no_inline} : (tensor<9xi64>, tensor<9xi64>) -> tensor<9xi64>
  %m2 = tensor.cast %m : tensor<9xi64> to tensor<*xi64>
  func.call @printMemrefI64(%m2) : (tensor<*xi64>) -> ()

  %x = ember.constant dense<[-2.5, 0.0, 3.0, -0.5, 0x7FC00000]> : tensor<5xf32>
  %u:5 = func.call @unary_f32(%x) {no_inline} : (tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
  // CHECK: rank = 1 offset = 0 sizes = [5] strides = [1] data =
  // CHECK-NEXT: [2.5, -0, -3, 0.5, -nan]
  %u0 = tensor.cast %u#0 : tensor<5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [2.5, 0, 3, 0.5, nan]
  %u1 = tensor.cast %u#1 : tensor<5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  // relu propagates NaN (max(x, 0)).
  // CHECK: rank = 1
  // CHECK-NEXT: [0, 0, 3, 0, nan]
  %u2 = tensor.cast %u#2 : tensor<5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [6.25, 0, 9, 0.25, nan]
  %u3 = tensor.cast %u#3 : tensor<5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [-1, 0, 1, -1, nan]
  %u4 = tensor.cast %u#4 : tensor<5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()

  // abs(-0.0) is +0.0.
  %nz = ember.constant dense<[-0.0, -1.0, 1.0, 0.0, 2.0]> : tensor<5xf32>
  %v:5 = func.call @unary_f32(%nz) {no_inline} : (tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
  // CHECK: rank = 1
  // CHECK-NEXT: [0, 1, 1, 0, 2]
  %v1 = tensor.cast %v#1 : tensor<5xf32> to tensor<*xf32>
  func.call @printMemrefF32(%v1) : (tensor<*xf32>) -> ()

  %y = ember.constant dense<[-3, 0, 5, 7]> : tensor<4xi32>
  %w:5 = func.call @unary_i32(%y) {no_inline} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>)
  // CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
  // CHECK-NEXT: [3, 0, -5, -7]
  %w0 = tensor.cast %w#0 : tensor<4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%w0) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [0, 0, 5, 7]
  %w1 = tensor.cast %w#1 : tensor<4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%w1) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [9, 0, 25, 49]
  %w2 = tensor.cast %w#2 : tensor<4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%w2) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [-1, 0, 1, 1]
  %w3 = tensor.cast %w#3 : tensor<4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%w3) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1
  // CHECK-NEXT: [2, -1, -6, -8]
  %w0x = tensor.cast %w#4 : tensor<4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%w0x) : (tensor<*xi32>) -> ()

  // Rows: and, or, not(a).
  %p = ember.constant dense<[true, true, false, false]> : tensor<4xi1>
  %q = ember.constant dense<[true, false, true, false]> : tensor<4xi1>
  %logic = func.call @logic_i1(%p, %q) {no_inline} : (tensor<4xi1>, tensor<4xi1>) -> tensor<3x4xi32>
  // CHECK: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[1, 0, 0, 0],
  // CHECK-NEXT:  [1, 1, 1, 0],
  // CHECK-NEXT:  [0, 0, 1, 1]]
  %lg = tensor.cast %logic : tensor<3x4xi32> to tensor<*xi32>
  func.call @printMemrefI32(%lg) : (tensor<*xi32>) -> ()
  return
}
