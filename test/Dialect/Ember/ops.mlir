// RUN: ember-opt %s | ember-opt | FileCheck %s
// RUN: ember-opt %s --mlir-print-op-generic | ember-opt | FileCheck %s
// RUN: ember-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of every ember op in its custom form; the second RUN line goes
// through the generic form and must print the same custom form back.

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_f32(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[ADD:.*]] = ember.add %[[A]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[SUB:.*]] = ember.sub %[[ADD]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[MUL:.*]] = ember.mul %[[SUB]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[DIV:.*]] = ember.div %[[MUL]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[FDIV:.*]] = ember.floordiv %[[DIV]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[MOD:.*]] = ember.mod %[[FDIV]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[POW:.*]] = ember.pow %[[MOD]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[MAX:.*]] = ember.maximum %[[POW]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[MIN:.*]] = ember.minimum %[[MAX]], %[[A]] : tensor<2x3xf32>
// CHECK-NEXT:    return %[[MIN]] : tensor<2x3xf32>
func.func @binary_f32(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.add %a, %b : tensor<2x3xf32>
  %1 = ember.sub %0, %b : tensor<2x3xf32>
  %2 = ember.mul %1, %b : tensor<2x3xf32>
  %3 = ember.div %2, %b : tensor<2x3xf32>
  %4 = ember.floordiv %3, %b : tensor<2x3xf32>
  %5 = ember.mod %4, %b : tensor<2x3xf32>
  %6 = ember.pow %5, %b : tensor<2x3xf32>
  %7 = ember.maximum %6, %b : tensor<2x3xf32>
  %8 = ember.minimum %7, %a : tensor<2x3xf32>
  return %8 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_i32(
// CHECK-SAME:      %[[A:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi32>)
// CHECK-NEXT:    %[[ADD:.*]] = ember.add %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT:    %[[FDIV:.*]] = ember.floordiv %[[ADD]], %[[B]] : tensor<4xi32>
// CHECK-NEXT:    %[[MOD:.*]] = ember.mod %[[FDIV]], %[[B]] : tensor<4xi32>
// CHECK-NEXT:    %[[POW:.*]] = ember.pow %[[MOD]], %[[B]] : tensor<4xi32>
// CHECK-NEXT:    %[[AND:.*]] = ember.and %[[POW]], %[[B]] : tensor<4xi32>
// CHECK-NEXT:    %[[OR:.*]] = ember.or %[[AND]], %[[A]] : tensor<4xi32>
// CHECK-NEXT:    return %[[OR]] : tensor<4xi32>
func.func @binary_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.add %a, %b : tensor<4xi32>
  %1 = ember.floordiv %0, %b : tensor<4xi32>
  %2 = ember.mod %1, %b : tensor<4xi32>
  %3 = ember.pow %2, %b : tensor<4xi32>
  %4 = ember.and %3, %b : tensor<4xi32>
  %5 = ember.or %4, %a : tensor<4xi32>
  return %5 : tensor<4xi32>
}

// CHECK-LABEL: func.func @binary_i64_f64(
// CHECK-SAME:      %[[A:.*]]: tensor<3xi64>, %[[B:.*]]: tensor<3xf64>)
// CHECK-NEXT:    %[[SUB:.*]] = ember.sub %[[A]], %[[A]] : tensor<3xi64>
// CHECK-NEXT:    %[[DIV:.*]] = ember.div %[[B]], %[[B]] : tensor<3xf64>
// CHECK-NEXT:    return %[[SUB]], %[[DIV]] : tensor<3xi64>, tensor<3xf64>
func.func @binary_i64_f64(%a: tensor<3xi64>, %b: tensor<3xf64>) -> (tensor<3xi64>, tensor<3xf64>) {
  %0 = ember.sub %a, %a : tensor<3xi64>
  %1 = ember.div %b, %b : tensor<3xf64>
  return %0, %1 : tensor<3xi64>, tensor<3xf64>
}

// CHECK-LABEL: func.func @logical_i1(
// CHECK-SAME:      %[[A:.*]]: tensor<2x2xi1>, %[[B:.*]]: tensor<2x2xi1>)
// CHECK-NEXT:    %[[AND:.*]] = ember.and %[[A]], %[[B]] : tensor<2x2xi1>
// CHECK-NEXT:    %[[OR:.*]] = ember.or %[[AND]], %[[B]] : tensor<2x2xi1>
// CHECK-NEXT:    %[[NOT:.*]] = ember.not %[[OR]] : tensor<2x2xi1>
// CHECK-NEXT:    return %[[NOT]] : tensor<2x2xi1>
func.func @logical_i1(%a: tensor<2x2xi1>, %b: tensor<2x2xi1>) -> tensor<2x2xi1> {
  %0 = ember.and %a, %b : tensor<2x2xi1>
  %1 = ember.or %0, %b : tensor<2x2xi1>
  %2 = ember.not %1 : tensor<2x2xi1>
  return %2 : tensor<2x2xi1>
}

// CHECK-LABEL: func.func @binary_rank0(
// CHECK-SAME:      %[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>)
// CHECK-NEXT:    %[[ADD:.*]] = ember.add %[[A]], %[[B]] : tensor<f32>
// CHECK-NEXT:    return %[[ADD]] : tensor<f32>
func.func @binary_rank0(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = ember.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// compare, select
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @compare(
// CHECK-SAME:      %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>, %[[P:.*]]: tensor<4xi1>)
// CHECK-NEXT:    %[[EQ:.*]] = ember.compare eq, %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:    %[[NE:.*]] = ember.compare ne, %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:    %[[LT:.*]] = ember.compare lt, %[[I]], %[[I]] : tensor<4xi64>
// CHECK-NEXT:    %[[LE:.*]] = ember.compare le, %[[I]], %[[I]] : tensor<4xi64>
// CHECK-NEXT:    %[[GT:.*]] = ember.compare gt, %[[P]], %[[P]] : tensor<4xi1>
// CHECK-NEXT:    %[[GE:.*]] = ember.compare ge, %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:    return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]] :
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi64>, %p: tensor<4xi1>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = ember.compare eq, %a, %b : tensor<4xf32>
  %1 = ember.compare ne, %a, %b : tensor<4xf32>
  %2 = ember.compare lt, %i, %i : tensor<4xi64>
  %3 = ember.compare le, %i, %i : tensor<4xi64>
  %4 = ember.compare gt, %p, %p : tensor<4xi1>
  %5 = ember.compare ge, %a, %b : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @select(
// CHECK-SAME:      %[[C:.*]]: tensor<2x3xi1>, %[[A:.*]]: tensor<2x3xf64>, %[[B:.*]]: tensor<2x3xf64>, %[[D:.*]]: tensor<i1>, %[[X:.*]]: tensor<i32>)
// CHECK-NEXT:    %[[S:.*]] = ember.select %[[C]], %[[A]], %[[B]] : tensor<2x3xi1>, tensor<2x3xf64>
// CHECK-NEXT:    %[[S0:.*]] = ember.select %[[D]], %[[X]], %[[X]] : tensor<i1>, tensor<i32>
// CHECK-NEXT:    return %[[S]], %[[S0]] : tensor<2x3xf64>, tensor<i32>
func.func @select(%c: tensor<2x3xi1>, %a: tensor<2x3xf64>, %b: tensor<2x3xf64>, %d: tensor<i1>, %x: tensor<i32>)
    -> (tensor<2x3xf64>, tensor<i32>) {
  %0 = ember.select %c, %a, %b : tensor<2x3xi1>, tensor<2x3xf64>
  %1 = ember.select %d, %x, %x : tensor<i1>, tensor<i32>
  return %0, %1 : tensor<2x3xf64>, tensor<i32>
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_float(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[NEG:.*]] = ember.neg %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[ABS:.*]] = ember.abs %[[NEG]] : tensor<4xf32>
// CHECK-NEXT:    %[[EXP:.*]] = ember.exp %[[ABS]] : tensor<4xf32>
// CHECK-NEXT:    %[[LOG:.*]] = ember.log %[[EXP]] : tensor<4xf32>
// CHECK-NEXT:    %[[LOG1P:.*]] = ember.log1p %[[LOG]] : tensor<4xf32>
// CHECK-NEXT:    %[[SQRT:.*]] = ember.sqrt %[[LOG1P]] : tensor<4xf32>
// CHECK-NEXT:    %[[RSQRT:.*]] = ember.rsqrt %[[SQRT]] : tensor<4xf32>
// CHECK-NEXT:    %[[TANH:.*]] = ember.tanh %[[RSQRT]] : tensor<4xf32>
// CHECK-NEXT:    %[[SIGMOID:.*]] = ember.sigmoid %[[TANH]] : tensor<4xf32>
// CHECK-NEXT:    %[[RELU:.*]] = ember.relu %[[SIGMOID]] : tensor<4xf32>
// CHECK-NEXT:    %[[SQUARE:.*]] = ember.square %[[RELU]] : tensor<4xf32>
// CHECK-NEXT:    %[[SIGN:.*]] = ember.sign %[[SQUARE]] : tensor<4xf32>
// CHECK-NEXT:    %[[SIN:.*]] = ember.sin %[[SIGN]] : tensor<4xf32>
// CHECK-NEXT:    %[[COS:.*]] = ember.cos %[[SIN]] : tensor<4xf32>
// CHECK-NEXT:    %[[ERF:.*]] = ember.erf %[[COS]] : tensor<4xf32>
// CHECK-NEXT:    %[[ASIN:.*]] = ember.asin %[[ERF]] : tensor<4xf32>
// CHECK-NEXT:    %[[ACOS:.*]] = ember.acos %[[ASIN]] : tensor<4xf32>
// CHECK-NEXT:    %[[ATAN:.*]] = ember.atan %[[ACOS]] : tensor<4xf32>
// CHECK-NEXT:    return %[[ATAN]] : tensor<4xf32>
func.func @unary_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ember.neg %x : tensor<4xf32>
  %1 = ember.abs %0 : tensor<4xf32>
  %2 = ember.exp %1 : tensor<4xf32>
  %3 = ember.log %2 : tensor<4xf32>
  %4 = ember.log1p %3 : tensor<4xf32>
  %5 = ember.sqrt %4 : tensor<4xf32>
  %6 = ember.rsqrt %5 : tensor<4xf32>
  %7 = ember.tanh %6 : tensor<4xf32>
  %8 = ember.sigmoid %7 : tensor<4xf32>
  %9 = ember.relu %8 : tensor<4xf32>
  %10 = ember.square %9 : tensor<4xf32>
  %11 = ember.sign %10 : tensor<4xf32>
  %12 = ember.sin %11 : tensor<4xf32>
  %13 = ember.cos %12 : tensor<4xf32>
  %14 = ember.erf %13 : tensor<4xf32>
  %15 = ember.asin %14 : tensor<4xf32>
  %16 = ember.acos %15 : tensor<4xf32>
  %17 = ember.atan %16 : tensor<4xf32>
  return %17 : tensor<4xf32>
}

// CHECK-LABEL: func.func @unary_int(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xi64>, %[[Y:.*]]: tensor<f64>)
// CHECK-NEXT:    %[[NEG:.*]] = ember.neg %[[X]] : tensor<2x2xi64>
// CHECK-NEXT:    %[[ABS:.*]] = ember.abs %[[NEG]] : tensor<2x2xi64>
// CHECK-NEXT:    %[[RELU:.*]] = ember.relu %[[ABS]] : tensor<2x2xi64>
// CHECK-NEXT:    %[[SQUARE:.*]] = ember.square %[[RELU]] : tensor<2x2xi64>
// CHECK-NEXT:    %[[SIGN:.*]] = ember.sign %[[SQUARE]] : tensor<2x2xi64>
// CHECK-NEXT:    %[[NOT:.*]] = ember.not %[[SIGN]] : tensor<2x2xi64>
// CHECK-NEXT:    %[[EXP:.*]] = ember.exp %[[Y]] : tensor<f64>
// CHECK-NEXT:    return %[[NOT]], %[[EXP]] : tensor<2x2xi64>, tensor<f64>
func.func @unary_int(%x: tensor<2x2xi64>, %y: tensor<f64>) -> (tensor<2x2xi64>, tensor<f64>) {
  %0 = ember.neg %x : tensor<2x2xi64>
  %1 = ember.abs %0 : tensor<2x2xi64>
  %2 = ember.relu %1 : tensor<2x2xi64>
  %3 = ember.square %2 : tensor<2x2xi64>
  %4 = ember.sign %3 : tensor<2x2xi64>
  %5 = ember.not %4 : tensor<2x2xi64>
  %6 = ember.exp %y : tensor<f64>
  return %5, %6 : tensor<2x2xi64>, tensor<f64>
}

// CHECK-LABEL: func.func @cast(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<i1>)
// CHECK-NEXT:    %[[I:.*]] = ember.cast %[[X]] : tensor<2x3xf32> -> tensor<2x3xi32>
// CHECK-NEXT:    %[[L:.*]] = ember.cast %[[I]] : tensor<2x3xi32> -> tensor<2x3xi64>
// CHECK-NEXT:    %[[D:.*]] = ember.cast %[[L]] : tensor<2x3xi64> -> tensor<2x3xf64>
// CHECK-NEXT:    %[[P:.*]] = ember.cast %[[D]] : tensor<2x3xf64> -> tensor<2x3xi1>
// CHECK-NEXT:    %[[F:.*]] = ember.cast %[[B]] : tensor<i1> -> tensor<f32>
// CHECK-NEXT:    return %[[P]], %[[F]] : tensor<2x3xi1>, tensor<f32>
func.func @cast(%x: tensor<2x3xf32>, %b: tensor<i1>) -> (tensor<2x3xi1>, tensor<f32>) {
  %0 = ember.cast %x : tensor<2x3xf32> -> tensor<2x3xi32>
  %1 = ember.cast %0 : tensor<2x3xi32> -> tensor<2x3xi64>
  %2 = ember.cast %1 : tensor<2x3xi64> -> tensor<2x3xf64>
  %3 = ember.cast %2 : tensor<2x3xf64> -> tensor<2x3xi1>
  %4 = ember.cast %b : tensor<i1> -> tensor<f32>
  return %3, %4 : tensor<2x3xi1>, tensor<f32>
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant(
// CHECK-NEXT:    %[[F:.*]] = ember.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %[[I:.*]] = ember.constant dense<[1, -2, 3]> : tensor<3xi32>
// CHECK-NEXT:    %[[L:.*]] = ember.constant dense<7> : tensor<i64>
// CHECK-NEXT:    %[[B:.*]] = ember.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    %[[D:.*]] = ember.constant dense<2.500000e-01> : tensor<2x3xf64>
// CHECK-NEXT:    return %[[F]], %[[I]], %[[L]], %[[B]], %[[D]] :
func.func @constant() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<i64>, tensor<2xi1>, tensor<2x3xf64>) {
  %0 = ember.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %1 = ember.constant dense<[1, -2, 3]> : tensor<3xi32>
  %2 = ember.constant dense<7> : tensor<i64>
  %3 = ember.constant dense<[true, false]> : tensor<2xi1>
  %4 = ember.constant dense<0.25> : tensor<2x3xf64>
  return %0, %1, %2, %3, %4 : tensor<2x2xf32>, tensor<3xi32>, tensor<i64>, tensor<2xi1>, tensor<2x3xf64>
}

// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<2x1xi32>, %[[Z:.*]]: tensor<i1>)
// CHECK-NEXT:    %[[B0:.*]] = ember.broadcast_to %[[X]] : tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[B1:.*]] = ember.broadcast_to %[[Y]] : tensor<2x1xi32> -> tensor<4x2x5xi32>
// CHECK-NEXT:    %[[B2:.*]] = ember.broadcast_to %[[Z]] : tensor<i1> -> tensor<3x2xi1>
// CHECK-NEXT:    return %[[B0]], %[[B1]], %[[B2]] :
func.func @broadcast_to(%x: tensor<3xf32>, %y: tensor<2x1xi32>, %z: tensor<i1>)
    -> (tensor<2x3xf32>, tensor<4x2x5xi32>, tensor<3x2xi1>) {
  %0 = ember.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
  %1 = ember.broadcast_to %y : tensor<2x1xi32> -> tensor<4x2x5xi32>
  %2 = ember.broadcast_to %z : tensor<i1> -> tensor<3x2xi1>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4x2x5xi32>, tensor<3x2xi1>
}

// Dynamic dims: a `?` result dim of broadcast_to takes its size from the
// index operands; elementwise ops and reductions keep the `?`s.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?xf32>, %[[W:.*]]: tensor<?xf32>, %[[R:.*]]: index, %[[C:.*]]: index)
// CHECK-NEXT:    %[[B:.*]] = ember.broadcast_to %[[W]] [%[[R]], %[[C]]] : tensor<?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:    %[[M:.*]] = ember.mul %[[X]], %[[B]] : tensor<?x?xf32>
// CHECK-NEXT:    %[[S:.*]] = ember.reduce_sum %[[M]] axes = [1] keepdims : tensor<?x?xf32> -> tensor<?x1xf32>
// CHECK-NEXT:    return %[[S]] : tensor<?x1xf32>
func.func @dynamic(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %r: index, %c: index) -> tensor<?x1xf32> {
  %0 = ember.broadcast_to %w [%r, %c] : tensor<?xf32> -> tensor<?x?xf32>
  %1 = ember.mul %x, %0 : tensor<?x?xf32>
  %2 = ember.reduce_sum %1 axes = [1] keepdims : tensor<?x?xf32> -> tensor<?x1xf32>
  return %2 : tensor<?x1xf32>
}

// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<i64>)
// CHECK-NEXT:    %[[R0:.*]] = ember.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-NEXT:    %[[R1:.*]] = ember.reshape %[[R0]] : tensor<6xf32> -> tensor<3x1x2xf32>
// CHECK-NEXT:    %[[R2:.*]] = ember.reshape %[[S]] : tensor<i64> -> tensor<1x1xi64>
// CHECK-NEXT:    return %[[R1]], %[[R2]] : tensor<3x1x2xf32>, tensor<1x1xi64>
func.func @reshape(%x: tensor<2x3xf32>, %s: tensor<i64>) -> (tensor<3x1x2xf32>, tensor<1x1xi64>) {
  %0 = ember.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = ember.reshape %0 : tensor<6xf32> -> tensor<3x1x2xf32>
  %2 = ember.reshape %s : tensor<i64> -> tensor<1x1xi64>
  return %1, %2 : tensor<3x1x2xf32>, tensor<1x1xi64>
}

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xi64>)
// CHECK-NEXT:    %[[T:.*]] = ember.transpose %[[X]] permutation = [2, 0, 1] : tensor<2x3x4xi64> -> tensor<4x2x3xi64>
// CHECK-NEXT:    return %[[T]] : tensor<4x2x3xi64>
func.func @transpose(%x: tensor<2x3x4xi64>) -> tensor<4x2x3xi64> {
  %0 = ember.transpose %x permutation = [2, 0, 1] : tensor<2x3x4xi64> -> tensor<4x2x3xi64>
  return %0 : tensor<4x2x3xi64>
}

// CHECK-LABEL: func.func @slice(
// CHECK-SAME:      %[[X:.*]]: tensor<5x6xf64>)
// CHECK-NEXT:    %[[S:.*]] = ember.slice %[[X]] start = [1, 0] limit = [5, 6] stride = [2, 4] : tensor<5x6xf64> -> tensor<2x2xf64>
// CHECK-NEXT:    %[[E:.*]] = ember.slice %[[X]] start = [2, 3] limit = [2, 6] stride = [1, 1] : tensor<5x6xf64> -> tensor<0x3xf64>
// CHECK-NEXT:    return %[[S]], %[[E]] : tensor<2x2xf64>, tensor<0x3xf64>
func.func @slice(%x: tensor<5x6xf64>) -> (tensor<2x2xf64>, tensor<0x3xf64>) {
  %0 = ember.slice %x start = [1, 0] limit = [5, 6] stride = [2, 4] : tensor<5x6xf64> -> tensor<2x2xf64>
  %1 = ember.slice %x start = [2, 3] limit = [2, 6] stride = [1, 1] : tensor<5x6xf64> -> tensor<0x3xf64>
  return %0, %1 : tensor<2x2xf64>, tensor<0x3xf64>
}

// Along a `?` dim, bounds may count from the end: x[1:-1], x[-3:], x[:2:2].
// CHECK-LABEL: func.func @slice_dynamic_dim(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6xf64>)
// CHECK-NEXT:    %[[A:.*]] = ember.slice %[[X]] start = [1, 0] limit = [-1, 6] stride = [1, 1] : tensor<?x6xf64> -> tensor<?x6xf64>
// CHECK-NEXT:    %[[B:.*]] = ember.slice %[[X]] start = [-3, 0] limit = [-9223372036854775808, 6] stride = [1, 1] : tensor<?x6xf64> -> tensor<3x6xf64>
// CHECK-NEXT:    %[[C:.*]] = ember.slice %[[X]] start = [0, 0] limit = [2, 6] stride = [2, 1] : tensor<?x6xf64> -> tensor<1x6xf64>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]]
func.func @slice_dynamic_dim(%x: tensor<?x6xf64>) -> (tensor<?x6xf64>, tensor<3x6xf64>, tensor<1x6xf64>) {
  %0 = ember.slice %x start = [1, 0] limit = [-1, 6] stride = [1, 1] : tensor<?x6xf64> -> tensor<?x6xf64>
  %1 = ember.slice %x start = [-3, 0] limit = [-9223372036854775808, 6] stride = [1, 1] : tensor<?x6xf64> -> tensor<3x6xf64>
  %2 = ember.slice %x start = [0, 0] limit = [2, 6] stride = [2, 1] : tensor<?x6xf64> -> tensor<1x6xf64>
  return %0, %1, %2 : tensor<?x6xf64>, tensor<3x6xf64>, tensor<1x6xf64>
}

// CHECK-LABEL: func.func @concat(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<2x1xi32>, %[[C:.*]]: tensor<2x2xi32>)
// CHECK-NEXT:    %[[R:.*]] = ember.concat %[[A]], %[[B]], %[[C]] axis = 1 : tensor<2x3xi32>, tensor<2x1xi32>, tensor<2x2xi32> -> tensor<2x6xi32>
// CHECK-NEXT:    %[[S:.*]] = ember.concat %[[A]] axis = 0 : tensor<2x3xi32> -> tensor<2x3xi32>
// CHECK-NEXT:    return %[[R]], %[[S]] : tensor<2x6xi32>, tensor<2x3xi32>
func.func @concat(%a: tensor<2x3xi32>, %b: tensor<2x1xi32>, %c: tensor<2x2xi32>) -> (tensor<2x6xi32>, tensor<2x3xi32>) {
  %0 = ember.concat %a, %b, %c axis = 1 : tensor<2x3xi32>, tensor<2x1xi32>, tensor<2x2xi32> -> tensor<2x6xi32>
  %1 = ember.concat %a axis = 0 : tensor<2x3xi32> -> tensor<2x3xi32>
  return %0, %1 : tensor<2x6xi32>, tensor<2x3xi32>
}

// `?` dims: elsewhere than the axis a known size wins; along the axis a `?`
// makes the sum `?`.
// CHECK-LABEL: func.func @concat_dynamic(
// CHECK-NEXT:    ember.concat %{{.*}}, %{{.*}} axis = 1 : tensor<?x3xf32>, tensor<4x2xf32> -> tensor<4x5xf32>
// CHECK-NEXT:    ember.concat %{{.*}}, %{{.*}} axis = 0 : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
func.func @concat_dynamic(%a: tensor<?x3xf32>, %b: tensor<4x2xf32>) -> (tensor<4x5xf32>, tensor<?x3xf32>) {
  %0 = ember.concat %a, %b axis = 1 : tensor<?x3xf32>, tensor<4x2xf32> -> tensor<4x5xf32>
  %1 = ember.concat %a, %a axis = 0 : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  return %0, %1 : tensor<4x5xf32>, tensor<?x3xf32>
}

// CHECK-LABEL: func.func @gather(
// CHECK-SAME:      %[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2x2xi64>, %[[J:.*]]: tensor<i32>)
// CHECK-NEXT:    %[[G0:.*]] = ember.gather %[[X]], %[[I]] axis = 0 : tensor<5x3xf32>, tensor<2x2xi64> -> tensor<2x2x3xf32>
// CHECK-NEXT:    %[[G1:.*]] = ember.gather %[[X]], %[[J]] axis = 1 : tensor<5x3xf32>, tensor<i32> -> tensor<5xf32>
// CHECK-NEXT:    return %[[G0]], %[[G1]] : tensor<2x2x3xf32>, tensor<5xf32>
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2x2xi64>, %j: tensor<i32>) -> (tensor<2x2x3xf32>, tensor<5xf32>) {
  %0 = ember.gather %x, %i axis = 0 : tensor<5x3xf32>, tensor<2x2xi64> -> tensor<2x2x3xf32>
  %1 = ember.gather %x, %j axis = 1 : tensor<5x3xf32>, tensor<i32> -> tensor<5xf32>
  return %0, %1 : tensor<2x2x3xf32>, tensor<5xf32>
}

// CHECK-LABEL: func.func @scatter(
// CHECK-SAME:      %[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2x2xi64>, %[[U:.*]]: tensor<2x2x3xf32>, %[[J:.*]]: tensor<i32>, %[[V:.*]]: tensor<5xf32>, %[[N:.*]]: tensor<?x3xi32>, %[[K:.*]]: tensor<?xi64>, %[[W:.*]]: tensor<?x3xi32>)
// CHECK-NEXT:    %[[S0:.*]] = ember.scatter update, %[[X]], %[[I]], %[[U]] axis = 0 : tensor<5x3xf32>, tensor<2x2xi64>, tensor<2x2x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT:    %[[S1:.*]] = ember.scatter add, %[[X]], %[[J]], %[[V]] axis = 1 : tensor<5x3xf32>, tensor<i32>, tensor<5xf32> -> tensor<5x3xf32>
// CHECK-NEXT:    %[[S2:.*]] = ember.scatter min, %[[N]], %[[K]], %[[W]] axis = 0 : tensor<?x3xi32>, tensor<?xi64>, tensor<?x3xi32> -> tensor<?x3xi32>
// CHECK-NEXT:    return %[[S0]], %[[S1]], %[[S2]]
func.func @scatter(%x: tensor<5x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2x3xf32>, %j: tensor<i32>, %v: tensor<5xf32>,
                   %n: tensor<?x3xi32>, %k: tensor<?xi64>, %w: tensor<?x3xi32>) -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<?x3xi32>) {
  %0 = ember.scatter update, %x, %i, %u axis = 0 : tensor<5x3xf32>, tensor<2x2xi64>, tensor<2x2x3xf32> -> tensor<5x3xf32>
  %1 = ember.scatter add, %x, %j, %v axis = 1 : tensor<5x3xf32>, tensor<i32>, tensor<5xf32> -> tensor<5x3xf32>
  %2 = ember.scatter min, %n, %k, %w axis = 0 : tensor<?x3xi32>, tensor<?xi64>, tensor<?x3xi32> -> tensor<?x3xi32>
  return %0, %1, %2 : tensor<5x3xf32>, tensor<5x3xf32>, tensor<?x3xi32>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>, %[[Y:.*]]: tensor<2x3xi32>)
// CHECK-NEXT:    %[[SUM:.*]] = ember.reduce_sum %[[X]] axes = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[MAX:.*]] = ember.reduce_max %[[X]] axes = [0, 2] keepdims : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT:    %[[MIN:.*]] = ember.reduce_min %[[Y]] axes = [0, 1] : tensor<2x3xi32> -> tensor<i32>
// CHECK-NEXT:    %[[PROD:.*]] = ember.reduce_prod %[[Y]] axes = [1] keepdims : tensor<2x3xi32> -> tensor<2x1xi32>
// CHECK-NEXT:    %[[MEAN:.*]] = ember.reduce_mean %[[X]] axes = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[NONE:.*]] = ember.reduce_sum %[[Y]] axes = [] : tensor<2x3xi32> -> tensor<2x3xi32>
// CHECK-NEXT:    return %[[SUM]], %[[MAX]], %[[MIN]], %[[PROD]], %[[MEAN]], %[[NONE]] :
func.func @reductions(%x: tensor<2x3x4xf32>, %y: tensor<2x3xi32>)
    -> (tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<i32>, tensor<2x1xi32>, tensor<3xf32>, tensor<2x3xi32>) {
  %0 = ember.reduce_sum %x axes = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %1 = ember.reduce_max %x axes = [0, 2] keepdims : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %2 = ember.reduce_min %y axes = [0, 1] : tensor<2x3xi32> -> tensor<i32>
  %3 = ember.reduce_prod %y axes = [1] keepdims : tensor<2x3xi32> -> tensor<2x1xi32>
  %4 = ember.reduce_mean %x axes = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  %5 = ember.reduce_sum %y axes = [] : tensor<2x3xi32> -> tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x4xf32>, tensor<1x3x1xf32>, tensor<i32>, tensor<2x1xi32>, tensor<3xf32>, tensor<2x3xi32>
}

// CHECK-LABEL: func.func @argmax(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<4xi64>)
// CHECK-NEXT:    %[[A0:.*]] = ember.argmax %[[X]] axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
// CHECK-NEXT:    %[[A1:.*]] = ember.argmax %[[X]] axis = 0 keepdims : tensor<2x3xf32> -> tensor<1x3xi64>
// CHECK-NEXT:    %[[A2:.*]] = ember.argmax %[[Y]] axis = 0 : tensor<4xi64> -> tensor<i64>
// CHECK-NEXT:    return %[[A0]], %[[A1]], %[[A2]] : tensor<2xi64>, tensor<1x3xi64>, tensor<i64>
func.func @argmax(%x: tensor<2x3xf32>, %y: tensor<4xi64>) -> (tensor<2xi64>, tensor<1x3xi64>, tensor<i64>) {
  %0 = ember.argmax %x axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
  %1 = ember.argmax %x axis = 0 keepdims : tensor<2x3xf32> -> tensor<1x3xi64>
  %2 = ember.argmax %y axis = 0 : tensor<4xi64> -> tensor<i64>
  return %0, %1, %2 : tensor<2xi64>, tensor<1x3xi64>, tensor<i64>
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>, %[[C:.*]]: tensor<5x2x3x4xi64>, %[[D:.*]]: tensor<5x2x4x6xi64>)
// CHECK-NEXT:    %[[M:.*]] = ember.matmul %[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[BM:.*]] = ember.matmul %[[C]], %[[D]] : tensor<5x2x3x4xi64>, tensor<5x2x4x6xi64> -> tensor<5x2x3x6xi64>
// CHECK-NEXT:    return %[[M]], %[[BM]] : tensor<2x4xf32>, tensor<5x2x3x6xi64>
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x2x3x4xi64>, %d: tensor<5x2x4x6xi64>)
    -> (tensor<2x4xf32>, tensor<5x2x3x6xi64>) {
  %0 = ember.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %1 = ember.matmul %c, %d : tensor<5x2x3x4xi64>, tensor<5x2x4x6xi64> -> tensor<5x2x3x6xi64>
  return %0, %1 : tensor<2x4xf32>, tensor<5x2x3x6xi64>
}

// shape_of: the sizes of the dims, as int64.
// CHECK-LABEL: func.func @shape_of(
// CHECK-NEXT:    ember.shape_of %{{.*}} : tensor<?x3xf32> -> tensor<2xi64>
func.func @shape_of(%x: tensor<?x3xf32>) -> tensor<2xi64> {
  %0 = ember.shape_of %x : tensor<?x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// reshape: a result with several `?` dims takes their sizes.
// CHECK-LABEL: func.func @reshape_sizes(
// CHECK:         ember.reshape %{{.*}} [%{{.*}}, %{{.*}}] : tensor<?x5xf32> -> tensor<?x?x5xf32>
func.func @reshape_sizes(%x: tensor<?x5xf32>, %b: index, %t: index) -> tensor<?x?x5xf32> {
  %0 = ember.reshape %x [%b, %t] : tensor<?x5xf32> -> tensor<?x?x5xf32>
  return %0 : tensor<?x?x5xf32>
}

// iota: each element's index along one dim; a `?` dim sized by an operand.
// CHECK-LABEL: func.func @iota(
// CHECK:         ember.iota dim 1 : tensor<2x3xi64>
// CHECK:         ember.iota dim 0 [%{{.*}}] : tensor<?x3xf32>
func.func @iota(%n: index) -> (tensor<2x3xi64>, tensor<?x3xf32>) {
  %0 = ember.iota dim 1 : tensor<2x3xi64>
  %1 = ember.iota dim 0 [%n] : tensor<?x3xf32>
  return %0, %1 : tensor<2x3xi64>, tensor<?x3xf32>
}

// A `?` dim matches any size; the result keeps the sizes that are known
// (a batch dim from whichever operand knows it).
// CHECK-LABEL: func.func @matmul_dynamic(
// CHECK-NEXT:    ember.matmul %{{.*}}, %{{.*}} : tensor<?x784xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
// CHECK-NEXT:    ember.matmul %{{.*}}, %{{.*}} : tensor<?x2x?xf32>, tensor<5x?x6xf32> -> tensor<5x2x6xf32>
func.func @matmul_dynamic(%a: tensor<?x784xf32>, %b: tensor<?x128xf32>, %c: tensor<?x2x?xf32>,
                          %d: tensor<5x?x6xf32>) -> (tensor<?x128xf32>, tensor<5x2x6xf32>) {
  %0 = ember.matmul %a, %b : tensor<?x784xf32>, tensor<?x128xf32> -> tensor<?x128xf32>
  %1 = ember.matmul %c, %d : tensor<?x2x?xf32>, tensor<5x?x6xf32> -> tensor<5x2x6xf32>
  return %0, %1 : tensor<?x128xf32>, tensor<5x2x6xf32>
}

//===----------------------------------------------------------------------===//
// Generic form
//===----------------------------------------------------------------------===//

// The generic form parses to the same ops, and ops print in generic form with
// their properties.

// CHECK-LABEL: func.func @generic_form(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[ADD:.*]] = ember.add %[[A]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[CMP:.*]] = ember.compare ge, %[[ADD]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[SUM:.*]] = ember.reduce_sum %[[ADD]] axes = [0] keepdims : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK-NEXT:    %[[T:.*]] = ember.transpose %[[A]] permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    return %[[CMP]], %[[SUM]], %[[T]] :

// GENERIC-LABEL: "func.func"() <{function_type = (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xi1>, tensor<1x3xf32>, tensor<3x2xf32>), sym_name = "generic_form"}>
// GENERIC:         %[[ADD:.*]] = "ember.add"(%[[A:.*]], %[[B:.*]]) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:    %[[CMP:.*]] = "ember.compare"(%[[ADD]], %[[B]]) <{direction = 5 : i32}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// GENERIC-NEXT:    %[[SUM:.*]] = "ember.reduce_sum"(%[[ADD]]) <{axes = array<i64: 0>, keepdims}> : (tensor<2x3xf32>) -> tensor<1x3xf32>
// GENERIC-NEXT:    %[[T:.*]] = "ember.transpose"(%[[A]]) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
// GENERIC-NEXT:    "func.return"(%[[CMP]], %[[SUM]], %[[T]])
func.func @generic_form(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xi1>, tensor<1x3xf32>, tensor<3x2xf32>) {
  %0 = "ember.add"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "ember.compare"(%0, %b) <{direction = 5 : i32}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = "ember.reduce_sum"(%0) <{axes = array<i64: 0>, keepdims}> : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %3 = "ember.transpose"(%a) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %1, %2, %3 : tensor<2x3xi1>, tensor<1x3xf32>, tensor<3x2xf32>
}

// CHECK-LABEL: func.func @conv2d(
// CHECK:         ember.conv2d %{{.*}}, %{{.*}} strides = [2, 2] dilations = [1, 1] input_dilations = [1, 1] padding = [1, 1, 0, 0] : tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32> -> tensor<2x4x3x4xf32>
func.func @conv2d(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>) -> tensor<2x4x3x4xf32> {
  %0 = ember.conv2d %x, %w strides = [2, 2] dilations = [1, 1] input_dilations = [1, 1] padding = [1, 1, 0, 0] : tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32> -> tensor<2x4x3x4xf32>
  return %0 : tensor<2x4x3x4xf32>
}

// CHECK-LABEL: func.func @pooling(
// CHECK:         ember.max_pool2d %{{.*}} window = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x5x5x2xf32> -> tensor<1x3x3x2xf32>
// CHECK:         ember.avg_pool2d %{{.*}} window = [2, 2] strides = [2, 2] padding = [0, 1, 0, 1] : tensor<1x5x5x2xf32> -> tensor<1x3x3x2xf32>
// CHECK:         ember.max_pool2d_grad %{{.*}}, %{{.*}} window = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x5x5x2xf32>, tensor<1x3x3x2xf32> -> tensor<1x5x5x2xf32>
// CHECK:         ember.avg_pool2d_grad %{{.*}}, %{{.*}} window = [2, 2] strides = [2, 2] padding = [0, 1, 0, 1] : tensor<1x5x5x2xf32>, tensor<1x3x3x2xf32> -> tensor<1x5x5x2xf32>
func.func @pooling(%x: tensor<1x5x5x2xf32>, %dy: tensor<1x3x3x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>, tensor<1x5x5x2xf32>, tensor<1x5x5x2xf32>) {
  %m = ember.max_pool2d %x window = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x5x5x2xf32> -> tensor<1x3x3x2xf32>
  %a = ember.avg_pool2d %x window = [2, 2] strides = [2, 2] padding = [0, 1, 0, 1] : tensor<1x5x5x2xf32> -> tensor<1x3x3x2xf32>
  %gm = ember.max_pool2d_grad %x, %dy window = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x5x5x2xf32>, tensor<1x3x3x2xf32> -> tensor<1x5x5x2xf32>
  %ga = ember.avg_pool2d_grad %x, %dy window = [2, 2] strides = [2, 2] padding = [0, 1, 0, 1] : tensor<1x5x5x2xf32>, tensor<1x3x3x2xf32> -> tensor<1x5x5x2xf32>
  return %m, %a, %gm, %ga : tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>, tensor<1x5x5x2xf32>, tensor<1x5x5x2xf32>
}

// float16 and bfloat16 tensors take the same ops as float32.
// CHECK-LABEL: func.func @half_precision(
// CHECK:         ember.add %{{.*}}, %{{.*}} : tensor<4xbf16>
// CHECK:         ember.exp %{{.*}} : tensor<4xbf16>
// CHECK:         ember.cast %{{.*}} : tensor<4xbf16> -> tensor<4xf16>
// CHECK:         ember.matmul %{{.*}}, %{{.*}} : tensor<2x4xf16>, tensor<4x3xf16> -> tensor<2x3xf16>
// CHECK:         ember.constant dense<1.500000e+00> : tensor<2xbf16>
func.func @half_precision(%a: tensor<4xbf16>, %m: tensor<2x4xf16>, %n: tensor<4x3xf16>) -> (tensor<4xf16>, tensor<2x3xf16>, tensor<2xbf16>) {
  %0 = ember.add %a, %a : tensor<4xbf16>
  %1 = ember.exp %0 : tensor<4xbf16>
  %2 = ember.cast %1 : tensor<4xbf16> -> tensor<4xf16>
  %3 = ember.matmul %m, %n : tensor<2x4xf16>, tensor<4x3xf16> -> tensor<2x3xf16>
  %4 = ember.constant dense<1.5> : tensor<2xbf16>
  return %2, %3, %4 : tensor<4xf16>, tensor<2x3xf16>, tensor<2xbf16>
}

// custom_gradient with inputs, and without (a value whose gradient is cut,
// as softmax's max shift): the inputs clause is left out then (it printed
// as `inputs( : )`, which did not parse back: exported softmaxes failed).
// CHECK-LABEL: func.func @custom_gradients(
// CHECK:         ember.custom_gradient %{{.*}} inputs(%{{.*}} : tensor<f32>) : tensor<f32> {
// CHECK:         ember.custom_gradient %{{.*}} : tensor<f32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<f32>):
// CHECK-NEXT:      ember.yield
// CHECK-NEXT:    }
func.func @custom_gradients(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y = ember.exp %x : tensor<f32>
  %r = ember.custom_gradient %y inputs(%x : tensor<f32>) : tensor<f32> {
  ^bb0(%g: tensor<f32>):
    %d = ember.mul %g, %y : tensor<f32>
    ember.yield %d : tensor<f32>
  }
  %s = ember.custom_gradient %y : tensor<f32> {
  ^bb0(%g: tensor<f32>):
    ember.yield
  }
  return %r, %s : tensor<f32>, tensor<f32>
}

// A print (an effect, kept however often it repeats) and a fault report
// (made by the lowering in scalar bodies, round-tripped all the same).
// CHECK-LABEL: func.func @effects(
// CHECK:         ember.print %{{.*}} message = "x = " : tensor<2xf32>
// CHECK:         %{{.*}} = ember.fault_if %{{.*}}, %{{.*}} {kind = 1 : i32, site = 0 : i32} : i32
func.func @effects(%x: tensor<2xf32>, %zero: i1, %q: i32) -> i32 {
  ember.print %x message = "x = " : tensor<2xf32>
  %r = ember.fault_if %zero, %q {kind = 1 : i32, site = 0 : i32} : i32
  return %r : i32
}

// A collective over the processes (an effect too).
// CHECK-LABEL: func.func @collectives(
// CHECK:         ember.all_reduce sum, %{{.*}} : tensor<?x2xf32>
// CHECK:         ember.all_reduce min, %{{.*}} : tensor<3xi32>
func.func @collectives(%x: tensor<?x2xf32>, %i: tensor<3xi32>) -> (tensor<?x2xf32>, tensor<3xi32>) {
  %0 = ember.all_reduce sum, %x : tensor<?x2xf32>
  %1 = ember.all_reduce min, %i : tensor<3xi32>
  return %0, %1 : tensor<?x2xf32>, tensor<3xi32>
}

// The adjoint of max_pool2d_grad (second derivatives through max pooling).
// CHECK-LABEL: func.func @pool_gather(
// CHECK:         ember.max_pool2d_gather %{{.*}}, %{{.*}} window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32> -> tensor<1x2x2x1xf32>
func.func @pool_gather(%x: tensor<1x4x4x1xf32>, %v: tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32> {
  %0 = ember.max_pool2d_gather %x, %v window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32> -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}

// Windows take `?` batches and channels; a `?` dim is sliced whole (limit
// kDynamic).
// CHECK-LABEL: func.func @windows_with_a_dynamic_batch(
// CHECK:         ember.conv2d {{.*}} : tensor<?x6x6x3xf32>, tensor<3x3x3x4xf32> -> tensor<?x4x4x4xf32>
// CHECK:         ember.max_pool2d {{.*}} : tensor<?x4x4x4xf32> -> tensor<?x2x2x4xf32>
// CHECK:         ember.slice {{.*}} start = [0, 1, 0, 0] limit = [-9223372036854775808, 2, 2, 4] stride = [1, 1, 1, 1] : tensor<?x2x2x4xf32> -> tensor<?x1x2x4xf32>
func.func @windows_with_a_dynamic_batch(%x: tensor<?x6x6x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<?x1x2x4xf32> {
  %0 = ember.conv2d %x, %w strides = [1, 1] dilations = [1, 1] input_dilations = [1, 1] padding = [0, 0, 0, 0] : tensor<?x6x6x3xf32>, tensor<3x3x3x4xf32> -> tensor<?x4x4x4xf32>
  %1 = ember.max_pool2d %0 window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<?x4x4x4xf32> -> tensor<?x2x2x4xf32>
  %2 = ember.slice %1 start = [0, 1, 0, 0] limit = [-9223372036854775808, 2, 2, 4] stride = [1, 1, 1, 1] : tensor<?x2x2x4xf32> -> tensor<?x1x2x4xf32>
  return %2 : tensor<?x1x2x4xf32>
}
