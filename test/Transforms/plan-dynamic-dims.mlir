// RUN: ember-opt %s --ember-plan-dynamic-dims --split-input-file --verify-diagnostics | FileCheck %s

// A dense layer on a `?` batch: the result's rows are argument 0's dim 0;
// nothing to check (the known dims are checked by the types).
// CHECK-LABEL: func.func @dense(
// CHECK-SAME:      ember.dim_checks = []
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 0, 0, -1, 0, 16>]
func.func @dense(%x: tensor<?x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %0 = ember.matmul %x, %w : tensor<?x8xf32>, tensor<8x16xf32> -> tensor<?x16xf32>
  %n = tensor.dim %0, %c0 : tensor<?x16xf32>
  %1 = ember.broadcast_to %b [%n] : tensor<16xf32> -> tensor<?x16xf32>
  %2 = ember.add %0, %1 : tensor<?x16xf32>
  return %2 : tensor<?x16xf32>
}

// -----

// An iota sized by an argument's `?` dims: the result's rows are argument
// 0's dim 0, and its add with argument 1 checks their rows agree.
// CHECK-LABEL: func.func @iota(
// CHECK-SAME:      ember.dim_checks = [{a = array<i64: 0, 0, 0>, b = array<i64: 1, 0, 0>, loc = "{{.*}}", op = "ember.add"}]
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 0, 0, -1, 0, 3>]
func.func @iota(%x: tensor<?x3xi64>, %y: tensor<?x3xi64>) -> tensor<?x3xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xi64>
  %0 = ember.iota dim 0 [%n] : tensor<?x3xi64>
  %1 = ember.add %0, %y : tensor<?x3xi64>
  return %1 : tensor<?x3xi64>
}

// -----

// Two `?` batches meet in an add: they must be equal, which the add names.
// A matmul's `?` contracting dims must be equal too.
// CHECK-LABEL: func.func @checks(
// CHECK-SAME:      ember.dim_checks = [{a = array<i64: 0, 0, 0>, b = array<i64: 1, 0, 0>, loc = "{{.*}}", op = "ember.add"}, {a = array<i64: 2, 1, 0>, b = array<i64: 3, 0, 0>, loc = "{{.*}}", op = "ember.matmul"}]
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 0, 0, -1, 0, 4>, array<i64: 2, 0, 0, 3, 1, 0>]
func.func @checks(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>)
    -> (tensor<?x4xf32>, tensor<?x?xf32>) {
  %0 = ember.add %x, %y : tensor<?x4xf32>
  %1 = ember.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x?xf32>
}

// -----

// Reductions keep the dims they do not reduce.
// CHECK-LABEL: func.func @reduce(
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 1, 0>, array<i64: -1, 0, 1, 0, 1, 0>]
func.func @reduce(%x: tensor<3x?xf32>) -> (tensor<?xf32>, tensor<1x?xf32>) {
  %0 = ember.reduce_sum %x axes = [0] : tensor<3x?xf32> -> tensor<?xf32>
  %1 = ember.reduce_max %x axes = [0] keepdims : tensor<3x?xf32> -> tensor<1x?xf32>
  return %0, %1 : tensor<?xf32>, tensor<1x?xf32>
}

// -----

// Functions of static shapes are left alone.
// CHECK-LABEL: func.func @static(
// CHECK-NOT:     ember.dim_checks
func.func @static(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

// A transpose permutes its operand's dims.
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:      ember.result_dims = [array<i64: -1, 0, 3, 0, 0, 0>]
func.func @transpose(%x: tensor<?x3xf32>) -> tensor<3x?xf32> {
  %0 = ember.transpose %x permutation = [1, 0] : tensor<?x3xf32> -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// A `?` dim meeting an op whose sizes cannot be followed yet is an error.
func.func @print(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'ember.print' op does not take None (`?`) dims yet: only elementwise ops, broadcasts, reductions, argmax, matmuls, transposes, reshapes, gathers, concatenations, convolutions, poolings, slices and iotas do}}
  ember.print %x message = "x" : tensor<?x3xf32>
  return %x : tensor<?x3xf32>
}

// -----

// argmax keeps the dims it does not reduce.
// CHECK-LABEL: func.func @argmax(
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 0, 0>, array<i64: 0, 0, 0, -1, 0, 1>]
func.func @argmax(%x: tensor<?x3xf32>) -> (tensor<?xi64>, tensor<?x1xi64>) {
  %0 = ember.argmax %x axis = 1 : tensor<?x3xf32> -> tensor<?xi64>
  %1 = ember.argmax %x axis = 1 keepdims : tensor<?x3xf32> -> tensor<?x1xi64>
  return %0, %1 : tensor<?xi64>, tensor<?x1xi64>
}

// -----

// A concatenation along a known dim: the other dims agree (a check between
// the two arguments' batches).
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:      ember.dim_checks = [{a = array<i64: 0, 0, 0>, b = array<i64: 1, 0, 0>, loc = "{{.*}}", op = "ember.concat"}]
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 0, 0, -1, 0, 5>]
func.func @concat(%x: tensor<?x3xf32>, %y: tensor<?x2xf32>) -> tensor<?x5xf32> {
  %0 = ember.concat %x, %y axis = 1 : tensor<?x3xf32>, tensor<?x2xf32> -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Along a `?` dim the result's size is the sum of the inputs'.
// CHECK-LABEL: func.func @concat_along_none(
// CHECK-SAME:      ember.result_dims = [array<i64: -2, 1, 1, 2, 0, 0, 0, -1, 0, 2, 2, 0, 0, -1, 0, 3>]
func.func @concat_along_none(%x: tensor<?x3xf32>, %y: tensor<2x3xf32>, %z: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = ember.concat %x, %y, %z axis = 0 : tensor<?x3xf32>, tensor<2x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// A Flatten of a `?` batch: the `?` dim keeps its size.
// CHECK-LABEL: func.func @flatten(
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 0, 0, -1, 0, 12>]
func.func @flatten(%x: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %0 = ember.reshape %x : tensor<?x3x4xf32> -> tensor<?x12xf32>
  return %0 : tensor<?x12xf32>
}

// -----

// A reshape that moves elements across the `?` dim scales it: [n, 4] ->
// [2, 2n] ...
// CHECK-LABEL: func.func @regroup(
// CHECK-SAME:      ember.dim_checks = []
// CHECK-SAME:      ember.result_dims = [array<i64: -1, 0, 2, -2, 2, 1, 0, 0, 0, 0>]
func.func @regroup(%x: tensor<?x4xf32>) -> tensor<2x?xf32> {
  %0 = ember.reshape %x : tensor<?x4xf32> -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// ... merges it with known dims ([n, 3, 4] -> [3n, 4], a sequence folded
// into the batch) or splits it ([m, 4] -> [m / 3, 3, 4], where m must be a
// multiple of 3: a check the reshape names).
// CHECK-LABEL: func.func @merge_and_split(
// CHECK-SAME:      ember.dim_checks = [{a = array<i64: 1, 0, 0>, b = array<i64: -1, 0, 3>, divisible, loc = "{{.*}}", op = "ember.reshape"}]
// CHECK-SAME:      ember.result_dims = [array<i64: -2, 3, 1, 0, 0, 0, 0, -1, 0, 4>, array<i64: -2, 1, 3, 0, 1, 0, 0, -1, 0, 3, -1, 0, 4>]
func.func @merge_and_split(%x: tensor<?x3x4xf32>, %y: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x3x4xf32>) {
  %0 = ember.reshape %x : tensor<?x3x4xf32> -> tensor<?x4xf32>
  %1 = ember.reshape %y : tensor<?x4xf32> -> tensor<?x3x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x3x4xf32>
}

// -----

// A merge then a split gives the `?` dim back: 3n / 3 = n.
// CHECK-LABEL: func.func @round_trip(
// CHECK-SAME:      ember.dim_checks = [{a = array<i64: -2, 3, 1, 0, 0, 0, 0>, b = array<i64: -1, 0, 3>, divisible
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 0, 0, -1, 0, 3, -1, 0, 4>]
func.func @round_trip(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  %0 = ember.reshape %x : tensor<?x3x4xf32> -> tensor<?x4xf32>
  %1 = ember.exp %0 : tensor<?x4xf32>
  %2 = ember.reshape %1 : tensor<?x4xf32> -> tensor<?x3x4xf32>
  return %2 : tensor<?x3x4xf32>
}

// -----

// Two `?` dims merged: their product (-3: a size with factors), its
// scale reduced over the known dims (6n m / 4 = 3n m / 2, which must divide).
// CHECK-LABEL: func.func @two_dynamic(
// CHECK-SAME:      ember.dim_checks = [{a = array<i64: -3, 3, 1, 0, 1, 0, 0, 0, 0, 1, 0>, b = array<i64: -1, 0, 2>, divisible
// CHECK-SAME:      ember.result_dims = [array<i64: -3, 3, 2, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 4>]
func.func @two_dynamic(%x: tensor<?x?x6xf32>) -> tensor<?x4xf32> {
  %0 = ember.reshape %x : tensor<?x?x6xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A sequence batch [B, T, 6] through a dense layer: merged into B * T rows,
// then split back with x's sizes. The counts agree by construction: no check.
// CHECK-LABEL: func.func @dense_sequence(
// CHECK-SAME:      ember.dim_checks = []
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 0, 0, 0, 1, 0, -1, 0, 5>]
func.func @dense_sequence(%x: tensor<?x?x6xf32>, %w: tensor<6x5xf32>) -> tensor<?x?x5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = ember.reshape %x : tensor<?x?x6xf32> -> tensor<?x6xf32>
  %1 = ember.matmul %0, %w : tensor<?x6xf32>, tensor<6x5xf32> -> tensor<?x5xf32>
  %b = tensor.dim %x, %c0 : tensor<?x?x6xf32>
  %t = tensor.dim %x, %c1 : tensor<?x?x6xf32>
  %2 = ember.reshape %1 [%b, %t] : tensor<?x5xf32> -> tensor<?x?x5xf32>
  return %2 : tensor<?x?x5xf32>
}

// -----

// Sizes from another argument: the element counts must agree (4 n against
// 2 b t), a check named by the reshape.
// CHECK-LABEL: func.func @split_by_sizes(
// CHECK-SAME:      ember.dim_checks = [{a = array<i64: -2, 4, 1, 0, 0, 0, 0>, b = array<i64: -3, 2, 1, 0, 1, 1, 0, 0, 1, 1, 0>, loc = "{{.*}}", op = "ember.reshape"}]
// CHECK-SAME:      ember.result_dims = [array<i64: 1, 0, 0, 1, 1, 0, -1, 0, 2>]
func.func @split_by_sizes(%x: tensor<?x4xf32>, %y: tensor<?x?xf32>) -> tensor<?x?x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %y, %c0 : tensor<?x?xf32>
  %t = tensor.dim %y, %c1 : tensor<?x?xf32>
  %0 = ember.reshape %x [%b, %t] : tensor<?x4xf32> -> tensor<?x?x2xf32>
  return %0 : tensor<?x?x2xf32>
}

// -----

// A convolution and a pooling keep the batch; a convolution's `?` input
// channels must be the filter's (checked, named by the conv); the result's
// channels are the filter's count.
// CHECK-LABEL: func.func @windows(
// CHECK-SAME:      ember.dim_checks = [{a = array<i64: 0, 3, 0>, b = array<i64: 1, 2, 0>, loc = "{{.*}}", op = "ember.conv2d"}]
// CHECK-SAME:      ember.result_dims = [array<i64: 0, 0, 0, -1, 0, 2, -1, 0, 2, 1, 3, 0>]
func.func @windows(%x: tensor<?x4x4x?xf32>, %w: tensor<3x3x?x?xf32>) -> tensor<?x2x2x?xf32> {
  %0 = ember.conv2d %x, %w strides = [1, 1] dilations = [1, 1] input_dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<?x4x4x?xf32>, tensor<3x3x?x?xf32> -> tensor<?x4x4x?xf32>
  %1 = ember.avg_pool2d %0 window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<?x4x4x?xf32> -> tensor<?x2x2x?xf32>
  return %1 : tensor<?x2x2x?xf32>
}

// -----

// Slices of part of a `?` dim: n must hold their bounds (checks the slices
// name), and x[1:-1] has n - 2 rows (n plus the constant -2); concatenated
// with two rows it has n again, whatever rows x[2:] has.
// CHECK-LABEL: func.func @slices_in_part(
// CHECK-SAME:      ember.dim_checks = [{a = array<i64: 0, 0, 0>, at_least, b = array<i64: -1, 0, 2>, loc = "{{.*}}", op = "ember.slice"}, {a = array<i64: 0, 0, 0>, at_least, b = array<i64: -1, 0, 3>, loc = "{{.*}}", op = "ember.slice"}, {a = array<i64: 0, 0, 0>, at_least, b = array<i64: -1, 0, 2>, loc = "{{.*}}", op = "ember.slice"}]
// CHECK-SAME:      ember.result_dims = [array<i64: -2, 1, 1, 1, 0, 0, 0, -1, 0, -2, -1, 0, 4>, array<i64: -1, 0, 3, -1, 0, 4>, array<i64: -2, 1, 1, 2, 0, 0, 0, -1, 0, -2, -1, 0, 2, -1, 0, 4>]
func.func @slices_in_part(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<3x4xf32>, tensor<?x4xf32>) {
  %0 = ember.slice %x start = [1, 0] limit = [-1, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<?x4xf32>
  %1 = ember.slice %x start = [-3, 0] limit = [-9223372036854775808, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<3x4xf32>
  %2 = ember.slice %x start = [0, 0] limit = [2, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<2x4xf32>
  %3 = ember.concat %0, %2 axis = 0 : tensor<?x4xf32>, tensor<2x4xf32> -> tensor<?x4xf32>
  return %0, %1, %3 : tensor<?x4xf32>, tensor<3x4xf32>, tensor<?x4xf32>
}

// -----

// Attention's shape: rows split into heads and merged back (4 * dim 0 of
// argument 0 on both sides of the add): a size always equal to itself is
// not a check (ember-compile's C header would compare it to itself).
// CHECK-LABEL: func.func @heads_and_back(
// CHECK-SAME:      ember.dim_checks = []
func.func @heads_and_back(%x: tensor<?x8xf32>) -> tensor<?x2xf32> {
  %0 = ember.reshape %x : tensor<?x8xf32> -> tensor<?x2xf32>
  %1 = ember.reshape %x : tensor<?x8xf32> -> tensor<?x2xf32>
  %2 = ember.add %0, %1 : tensor<?x2xf32>
  return %2 : tensor<?x2xf32>
}
