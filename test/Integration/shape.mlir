// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// Shape ops in the compiled code: broadcast_to, reshape, transpose, slice,
// concat and gather on function arguments.

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @broadcast(%row: tensor<3xf32>, %col: tensor<2x1xf32>, %s: tensor<f32>)
    -> (tensor<2x3xf32>, tensor<2x2x3xf32>, tensor<2x2xf32>) {
  %0 = ember.broadcast_to %row : tensor<3xf32> -> tensor<2x3xf32>
  %1 = ember.broadcast_to %col : tensor<2x1xf32> -> tensor<2x2x3xf32>
  %2 = ember.broadcast_to %s : tensor<f32> -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x2x3xf32>, tensor<2x2xf32>
}

// numpy-style broadcasting of an add: [2, 1] + [3] -> [2, 3].
func.func @broadcast_add(%a: tensor<2x1xi32>, %b: tensor<3xi32>) -> tensor<2x3xi32> {
  %0 = ember.broadcast_to %a : tensor<2x1xi32> -> tensor<2x3xi32>
  %1 = ember.broadcast_to %b : tensor<3xi32> -> tensor<2x3xi32>
  %2 = ember.add %0, %1 : tensor<2x3xi32>
  return %2 : tensor<2x3xi32>
}

func.func @reshapes(%x: tensor<2x3xi32>) -> (tensor<3x2xi32>, tensor<6xi32>, tensor<1x3x1x2xi32>) {
  %0 = ember.reshape %x : tensor<2x3xi32> -> tensor<3x2xi32>
  %1 = ember.reshape %x : tensor<2x3xi32> -> tensor<6xi32>
  %2 = ember.reshape %x : tensor<2x3xi32> -> tensor<1x3x1x2xi32>
  return %0, %1, %2 : tensor<3x2xi32>, tensor<6xi32>, tensor<1x3x1x2xi32>
}

func.func @transposes(%x: tensor<2x3xi32>, %y: tensor<2x2x3xi32>) -> (tensor<3x2xi32>, tensor<3x2x2xi32>) {
  %0 = ember.transpose %x permutation = [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %1 = ember.transpose %y permutation = [2, 0, 1] : tensor<2x2x3xi32> -> tensor<3x2x2xi32>
  return %0, %1 : tensor<3x2xi32>, tensor<3x2x2xi32>
}

func.func @slices(%x: tensor<4x5xf32>) -> (tensor<2x3xf32>, tensor<4x2xf32>) {
  %0 = ember.slice %x start = [1, 0] limit = [4, 5] stride = [2, 2] : tensor<4x5xf32> -> tensor<2x3xf32>
  %1 = ember.slice %x start = [0, 3] limit = [4, 5] stride = [1, 1] : tensor<4x5xf32> -> tensor<4x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<4x2xf32>
}

func.func @concats(%a: tensor<2x2xi64>, %b: tensor<2x1xi64>, %c: tensor<1x2xi64>) -> (tensor<2x3xi64>, tensor<3x2xi64>) {
  %0 = ember.concat %a, %b axis = 1 : tensor<2x2xi64>, tensor<2x1xi64> -> tensor<2x3xi64>
  %1 = ember.concat %c, %a axis = 0 : tensor<1x2xi64>, tensor<2x2xi64> -> tensor<3x2xi64>
  return %0, %1 : tensor<2x3xi64>, tensor<3x2xi64>
}

func.func @gathers(%x: tensor<4x2xf32>, %i: tensor<4xi64>, %j: tensor<2x2xi32>) -> (tensor<4x2xf32>, tensor<4x2x2xf32>) {
  %0 = ember.gather %x, %i axis = 0 : tensor<4x2xf32>, tensor<4xi64> -> tensor<4x2xf32>
  %1 = ember.gather %x, %j axis = 1 : tensor<4x2xf32>, tensor<2x2xi32> -> tensor<4x2x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4x2x2xf32>
}

// Reshapes that no single collapse/expand expresses go through a 1-D tensor;
// a rank-0 index drops the gathered axis.
func.func @odd_shapes(%a: tensor<2x1x3x1xf32>, %v: tensor<3xf32>, %i: tensor<i64>) -> (tensor<3x2xf32>, tensor<f32>) {
  %0 = ember.reshape %a : tensor<2x1x3x1xf32> -> tensor<3x2xf32>
  %1 = ember.gather %v, %i axis = 0 : tensor<3xf32>, tensor<i64> -> tensor<f32>
  return %0, %1 : tensor<3x2xf32>, tensor<f32>
}

func.func @main() {
  %row = ember.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %col = ember.constant dense<[[10.0], [20.0]]> : tensor<2x1xf32>
  %s = ember.constant dense<7.5> : tensor<f32>
  %b:3 = func.call @broadcast(%row, %col, %s) {no_inline} : (tensor<3xf32>, tensor<2x1xf32>, tensor<f32>)
      -> (tensor<2x3xf32>, tensor<2x2x3xf32>, tensor<2x2xf32>)
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[1, 2, 3],
  // CHECK-NEXT:  [1, 2, 3]]
  %b0 = tensor.cast %b#0 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%b0) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [2, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT: {{\[\[}}[10, 10, 10],
  // CHECK-NEXT:   [20, 20, 20]],
  // CHECK-NEXT:  {{\[}}[10, 10, 10],
  // CHECK-NEXT:   [20, 20, 20]]]
  %b1 = tensor.cast %b#1 : tensor<2x2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%b1) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[7.5, 7.5],
  // CHECK-NEXT:  [7.5, 7.5]]
  %b2 = tensor.cast %b#2 : tensor<2x2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%b2) : (tensor<*xf32>) -> ()

  %ba = ember.constant dense<[[100], [200]]> : tensor<2x1xi32>
  %bb = ember.constant dense<[1, 2, 3]> : tensor<3xi32>
  %bs = func.call @broadcast_add(%ba, %bb) {no_inline} : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[101, 102, 103],
  // CHECK-NEXT:  [201, 202, 203]]
  %bsu = tensor.cast %bs : tensor<2x3xi32> to tensor<*xi32>
  func.call @printMemrefI32(%bsu) : (tensor<*xi32>) -> ()

  %m = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %r:3 = func.call @reshapes(%m) {no_inline} : (tensor<2x3xi32>) -> (tensor<3x2xi32>, tensor<6xi32>, tensor<1x3x1x2xi32>)
  // CHECK: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[1, 2],
  // CHECK-NEXT:  [3, 4],
  // CHECK-NEXT:  [5, 6]]
  %r0 = tensor.cast %r#0 : tensor<3x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%r0) : (tensor<*xi32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [6] strides = [1] data =
  // CHECK-NEXT: [1, 2, 3, 4, 5, 6]
  %r1 = tensor.cast %r#1 : tensor<6xi32> to tensor<*xi32>
  func.call @printMemrefI32(%r1) : (tensor<*xi32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 3, 1, 2] strides = [6, 2, 2, 1] data =
  // CHECK-NEXT: {{\[\[\[}}[1, 2]],
  // CHECK-NEXT:   {{\[}}[3, 4]],
  // CHECK-NEXT:   {{\[}}[5, 6]]]]
  %r2 = tensor.cast %r#2 : tensor<1x3x1x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%r2) : (tensor<*xi32>) -> ()

  %cube = ember.constant dense<[[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]> : tensor<2x2x3xi32>
  %t:2 = func.call @transposes(%m, %cube) {no_inline} : (tensor<2x3xi32>, tensor<2x2x3xi32>) -> (tensor<3x2xi32>, tensor<3x2x2xi32>)
  // CHECK: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[1, 4],
  // CHECK-NEXT:  [2, 5],
  // CHECK-NEXT:  [3, 6]]
  %t0 = tensor.cast %t#0 : tensor<3x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%t0) : (tensor<*xi32>) -> ()
  // result[k][i][j] = cube[i][j][k]
  // CHECK: rank = 3 offset = 0 sizes = [3, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT: {{\[\[}}[0, 3],
  // CHECK-NEXT:   [6, 9]],
  // CHECK-NEXT:  {{\[}}[1, 4],
  // CHECK-NEXT:   [7, 10]],
  // CHECK-NEXT:  {{\[}}[2, 5],
  // CHECK-NEXT:   [8, 11]]]
  %t1 = tensor.cast %t#1 : tensor<3x2x2xi32> to tensor<*xi32>
  func.call @printMemrefI32(%t1) : (tensor<*xi32>) -> ()

  %grid = ember.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0], [10.0, 11.0, 12.0, 13.0, 14.0],
                                [20.0, 21.0, 22.0, 23.0, 24.0], [30.0, 31.0, 32.0, 33.0, 34.0]]> : tensor<4x5xf32>
  %sl:2 = func.call @slices(%grid) {no_inline} : (tensor<4x5xf32>) -> (tensor<2x3xf32>, tensor<4x2xf32>)
  // Rows 1 and 3, columns 0, 2 and 4.
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[10, 12, 14],
  // CHECK-NEXT:  [30, 32, 34]]
  %sl0 = tensor.cast %sl#0 : tensor<2x3xf32> to tensor<*xf32>
  func.call @printMemrefF32(%sl0) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [4, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[3, 4],
  // CHECK-NEXT:  [13, 14],
  // CHECK-NEXT:  [23, 24],
  // CHECK-NEXT:  [33, 34]]
  %sl1 = tensor.cast %sl#1 : tensor<4x2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%sl1) : (tensor<*xf32>) -> ()

  %ca = ember.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %cb = ember.constant dense<[[5], [6]]> : tensor<2x1xi64>
  %cc = ember.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %c:2 = func.call @concats(%ca, %cb, %cc) {no_inline} : (tensor<2x2xi64>, tensor<2x1xi64>, tensor<1x2xi64>) -> (tensor<2x3xi64>, tensor<3x2xi64>)
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[1, 2, 5],
  // CHECK-NEXT:  [3, 4, 6]]
  %c0 = tensor.cast %c#0 : tensor<2x3xi64> to tensor<*xi64>
  func.call @printMemrefI64(%c0) : (tensor<*xi64>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[7, 8],
  // CHECK-NEXT:  [1, 2],
  // CHECK-NEXT:  [3, 4]]
  %c1 = tensor.cast %c#1 : tensor<3x2xi64> to tensor<*xi64>
  func.call @printMemrefI64(%c1) : (tensor<*xi64>) -> ()

  %tab = ember.constant dense<[[0.0, 1.0], [10.0, 11.0], [20.0, 21.0], [30.0, 31.0]]> : tensor<4x2xf32>
  %gi = ember.constant dense<[-1, 0, 2, -4]> : tensor<4xi64>
  %gj = ember.constant dense<[[1, -2], [-1, 0]]> : tensor<2x2xi32>
  %g:2 = func.call @gathers(%tab, %gi, %gj) {no_inline} : (tensor<4x2xf32>, tensor<4xi64>, tensor<2x2xi32>) -> (tensor<4x2xf32>, tensor<4x2x2xf32>)
  // Negative indices count from the end: -1 -> 3, -4 -> 0.
  // CHECK: rank = 2 offset = 0 sizes = [4, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[30, 31],
  // CHECK-NEXT:  [0, 1],
  // CHECK-NEXT:  [20, 21],
  // CHECK-NEXT:  [0, 1]]
  %g0 = tensor.cast %g#0 : tensor<4x2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%g0) : (tensor<*xf32>) -> ()
  // result[r][a][b] = tab[r][j[a][b]] with j = [[1, 0], [1, 0]] after wrapping.
  // CHECK: rank = 3 offset = 0 sizes = [4, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT: {{\[\[}}[1, 0],
  // CHECK-NEXT:   [1, 0]],
  // CHECK-NEXT:  {{\[}}[11, 10],
  // CHECK-NEXT:   [11, 10]],
  // CHECK-NEXT:  {{\[}}[21, 20],
  // CHECK-NEXT:   [21, 20]],
  // CHECK-NEXT:  {{\[}}[31, 30],
  // CHECK-NEXT:   [31, 30]]]
  %g1 = tensor.cast %g#1 : tensor<4x2x2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%g1) : (tensor<*xf32>) -> ()

  %oa = ember.constant dense<[[[[1.0], [2.0], [3.0]]], [[[4.0], [5.0], [6.0]]]]> : tensor<2x1x3x1xf32>
  %ov = ember.constant dense<[7.0, 8.0, 9.0]> : tensor<3xf32>
  %oi = ember.constant dense<-1> : tensor<i64>
  %o:2 = func.call @odd_shapes(%oa, %ov, %oi) {no_inline} : (tensor<2x1x3x1xf32>, tensor<3xf32>, tensor<i64>) -> (tensor<3x2xf32>, tensor<f32>)
  // CHECK: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[1, 2],
  // CHECK-NEXT:  [3, 4],
  // CHECK-NEXT:  [5, 6]]
  %o0 = tensor.cast %o#0 : tensor<3x2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%o0) : (tensor<*xf32>) -> ()
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [9]
  %o1 = tensor.cast %o#1 : tensor<f32> to tensor<*xf32>
  func.call @printMemrefF32(%o1) : (tensor<*xf32>) -> ()
  return
}
