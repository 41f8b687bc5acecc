// RUN: ember-opt %s -canonicalize="test-convergence" -split-input-file | FileCheck %s

// Folders of the ember ops: constant folding with numpy semantics (the same as
// the compiled code), algebraic identities and shape ops on constants.

//===----------------------------------------------------------------------===//
// Binary elementwise ops on constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @add_fold_i32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[11, 22, -27, -2147483648]> : tensor<4xi32>
// CHECK-NEXT:    return %[[C]]
func.func @add_fold_i32() -> tensor<4xi32> {
  %a = ember.constant dense<[1, 2, 3, 2147483647]> : tensor<4xi32>
  %b = ember.constant dense<[10, 20, -30, 1]> : tensor<4xi32>
  %0 = ember.add %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @add_fold_f64(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[1.750000e+00, -2.500000e-01]> : tensor<2xf64>
// CHECK-NEXT:    return %[[C]]
func.func @add_fold_f64() -> tensor<2xf64> {
  %a = ember.constant dense<[1.5, -0.5]> : tensor<2xf64>
  %b = ember.constant dense<[0.25, 0.25]> : tensor<2xf64>
  %0 = ember.add %a, %b : tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

// CHECK-LABEL: func.func @sub_fold_f32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @sub_fold_f32() -> tensor<2xf32> {
  %a = ember.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %b = ember.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %0 = ember.sub %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @sub_fold_i64(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[-5, 9223372036854775807]> : tensor<2xi64>
// CHECK-NEXT:    return %[[C]]
func.func @sub_fold_i64() -> tensor<2xi64> {
  %a = ember.constant dense<[5, -9223372036854775808]> : tensor<2xi64>
  %b = ember.constant dense<[10, 1]> : tensor<2xi64>
  %0 = ember.sub %a, %b : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @mul_fold_i64(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[15, -24, 0]> : tensor<3xi64>
// CHECK-NEXT:    return %[[C]]
func.func @mul_fold_i64() -> tensor<3xi64> {
  %a = ember.constant dense<[3, -4, 0]> : tensor<3xi64>
  %b = ember.constant dense<[5, 6, 7]> : tensor<3xi64>
  %0 = ember.mul %a, %b : tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @mul_fold_f32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[-3.000000e+00, 2.500000e-01]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @mul_fold_f32() -> tensor<2xf32> {
  %a = ember.constant dense<[1.5, 0.5]> : tensor<2xf32>
  %b = ember.constant dense<[-2.0, 0.5]> : tensor<2xf32>
  %0 = ember.mul %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Integer division truncates toward zero.
// CHECK-LABEL: func.func @div_fold_i32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[-3, 3, 3, -3]> : tensor<4xi32>
// CHECK-NEXT:    return %[[C]]
func.func @div_fold_i32() -> tensor<4xi32> {
  %a = ember.constant dense<[-7, 7, -7, 7]> : tensor<4xi32>
  %b = ember.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
  %0 = ember.div %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @div_fold_f32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[2.500000e-01, -1.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @div_fold_f32() -> tensor<2xf32> {
  %a = ember.constant dense<[1.0, -3.0]> : tensor<2xf32>
  %b = ember.constant dense<[4.0, 2.0]> : tensor<2xf32>
  %0 = ember.div %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Integer division by zero has no value: the op stays.
// CHECK-LABEL: func.func @div_no_fold_by_zero(
// CHECK-DAG:     %[[A:.*]] = ember.constant dense<[1, 2]> : tensor<2xi32>
// CHECK-DAG:     %[[B:.*]] = ember.constant dense<[0, 1]> : tensor<2xi32>
// CHECK:         %[[D:.*]] = ember.div %[[A]], %[[B]] : tensor<2xi32>
// CHECK-NEXT:    return %[[D]]
func.func @div_no_fold_by_zero() -> tensor<2xi32> {
  %a = ember.constant dense<[1, 2]> : tensor<2xi32>
  %b = ember.constant dense<[0, 1]> : tensor<2xi32>
  %0 = ember.div %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// INT_MIN / -1 overflows: the op stays.
// CHECK-LABEL: func.func @div_no_fold_overflow(
// CHECK:         ember.div
func.func @div_no_fold_overflow() -> tensor<i32> {
  %a = ember.constant dense<-2147483648> : tensor<i32>
  %b = ember.constant dense<-1> : tensor<i32>
  %0 = ember.div %a, %b : tensor<i32>
  return %0 : tensor<i32>
}

// -----

// numpy floor division: -7 // 2 = -4, 7 // -2 = -4.
// CHECK-LABEL: func.func @floordiv_fold_i32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[-4, 3, 3, -4, 0, -1]> : tensor<6xi32>
// CHECK-NEXT:    return %[[C]]
func.func @floordiv_fold_i32() -> tensor<6xi32> {
  %a = ember.constant dense<[-7, 7, -7, 7, 0, -1]> : tensor<6xi32>
  %b = ember.constant dense<[2, 2, -2, -2, 5, 5]> : tensor<6xi32>
  %0 = ember.floordiv %a, %b : tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

// CHECK-LABEL: func.func @floordiv_fold_f32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[-4.000000e+00, 3.000000e+00, 3.000000e+00, -4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    return %[[C]]
func.func @floordiv_fold_f32() -> tensor<4xf32> {
  %a = ember.constant dense<[-7.5, 7.5, -7.5, 7.5]> : tensor<4xf32>
  %b = ember.constant dense<[2.0, 2.0, -2.0, -2.0]> : tensor<4xf32>
  %0 = ember.floordiv %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @floordiv_no_fold_by_zero(
// CHECK:         ember.floordiv
func.func @floordiv_no_fold_by_zero() -> tensor<2xi64> {
  %a = ember.constant dense<[4, 5]> : tensor<2xi64>
  %b = ember.constant dense<[2, 0]> : tensor<2xi64>
  %0 = ember.floordiv %a, %b : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// numpy remainder has the sign of the divisor: -7 % 2 = 1, 7 % -2 = -1.
// CHECK-LABEL: func.func @mod_fold_i32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[1, 1, -1, -1, 0, 4]> : tensor<6xi32>
// CHECK-NEXT:    return %[[C]]
func.func @mod_fold_i32() -> tensor<6xi32> {
  %a = ember.constant dense<[-7, 7, -7, 7, 6, -1]> : tensor<6xi32>
  %b = ember.constant dense<[2, 2, -2, -2, 3, 5]> : tensor<6xi32>
  %0 = ember.mod %a, %b : tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

// CHECK-LABEL: func.func @mod_fold_i64_minus_one(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<0> : tensor<2xi64>
// CHECK-NEXT:    return %[[C]]
func.func @mod_fold_i64_minus_one() -> tensor<2xi64> {
  %a = ember.constant dense<[-9223372036854775808, 7]> : tensor<2xi64>
  %b = ember.constant dense<-1> : tensor<2xi64>
  %0 = ember.mod %a, %b : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @mod_fold_f32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[5.000000e-01, 1.500000e+00, -1.500000e+00, -5.000000e-01]> : tensor<4xf32>
// CHECK-NEXT:    return %[[C]]
func.func @mod_fold_f32() -> tensor<4xf32> {
  %a = ember.constant dense<[-7.5, 7.5, -7.5, 7.5]> : tensor<4xf32>
  %b = ember.constant dense<[2.0, 2.0, -2.0, -2.0]> : tensor<4xf32>
  %0 = ember.mod %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mod_no_fold_by_zero(
// CHECK:         ember.mod
func.func @mod_no_fold_by_zero() -> tensor<2xi32> {
  %a = ember.constant dense<[4, 5]> : tensor<2xi32>
  %b = ember.constant dense<[0, 3]> : tensor<2xi32>
  %0 = ember.mod %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// Integer powers; a negative exponent gives 0 unless the base is 1 or -1.
// CHECK-LABEL: func.func @pow_fold_i32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[1024, 9, -8, 0, 1, -1, 1, 1]> : tensor<8xi32>
// CHECK-NEXT:    return %[[C]]
func.func @pow_fold_i32() -> tensor<8xi32> {
  %a = ember.constant dense<[2, 3, -2, 2, 1, -1, -1, 0]> : tensor<8xi32>
  %b = ember.constant dense<[10, 2, 3, -1, -5, -3, -4, 0]> : tensor<8xi32>
  %0 = ember.pow %a, %b : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// CHECK-LABEL: func.func @pow_fold_f32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[1.41421354, 2.500000e-01, -8.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @pow_fold_f32() -> tensor<3xf32> {
  %a = ember.constant dense<[2.0, 4.0, -2.0]> : tensor<3xf32>
  %b = ember.constant dense<[0.5, -1.0, 3.0]> : tensor<3xf32>
  %0 = ember.pow %a, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @maximum_fold_i32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[1, 5, 3]> : tensor<3xi32>
// CHECK-NEXT:    return %[[C]]
func.func @maximum_fold_i32() -> tensor<3xi32> {
  %a = ember.constant dense<[1, -2, 3]> : tensor<3xi32>
  %b = ember.constant dense<[0, 5, 3]> : tensor<3xi32>
  %0 = ember.maximum %a, %b : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// NaN propagates.
// CHECK-LABEL: func.func @maximum_fold_f32_nan(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[0x7FC00000, 0x7FC00000, 2.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @maximum_fold_f32_nan() -> tensor<3xf32> {
  %a = ember.constant dense<[0x7FC00000, -1.5, 2.0]> : tensor<3xf32>
  %b = ember.constant dense<[1.0, 0x7FC00000, -2.0]> : tensor<3xf32>
  %0 = ember.maximum %a, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @minimum_fold_f64(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[-2.000000e+00, 0x7FF8000000000000, 1.000000e+00]> : tensor<3xf64>
// CHECK-NEXT:    return %[[C]]
func.func @minimum_fold_f64() -> tensor<3xf64> {
  %a = ember.constant dense<[-2.0, 0x7FF8000000000000, 1.0]> : tensor<3xf64>
  %b = ember.constant dense<[3.0, 1.0, 4.0]> : tensor<3xf64>
  %0 = ember.minimum %a, %b : tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @minimum_fold_i64(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[-7, 2]> : tensor<2xi64>
// CHECK-NEXT:    return %[[C]]
func.func @minimum_fold_i64() -> tensor<2xi64> {
  %a = ember.constant dense<[-7, 9]> : tensor<2xi64>
  %b = ember.constant dense<[3, 2]> : tensor<2xi64>
  %0 = ember.minimum %a, %b : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @and_or_fold_i1(
// CHECK-DAG:     %[[AND:.*]] = ember.constant dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-DAG:     %[[OR:.*]] = ember.constant dense<[true, true, true, false]> : tensor<4xi1>
// CHECK:         return %[[AND]], %[[OR]]
func.func @and_or_fold_i1() -> (tensor<4xi1>, tensor<4xi1>) {
  %a = ember.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = ember.constant dense<[true, false, true, false]> : tensor<4xi1>
  %0 = ember.and %a, %b : tensor<4xi1>
  %1 = ember.or %a, %b : tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// Bitwise on integers: 12 & 10 = 8, 12 | 10 = 14, -1 & 6 = 6, -8 | 3 = -5.
// CHECK-LABEL: func.func @and_or_fold_i32(
// CHECK-DAG:     %[[AND:.*]] = ember.constant dense<[8, 6]> : tensor<2xi32>
// CHECK-DAG:     %[[OR:.*]] = ember.constant dense<[14, -5]> : tensor<2xi32>
// CHECK:         return %[[AND]], %[[OR]]
func.func @and_or_fold_i32() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = ember.constant dense<[12, -1]> : tensor<2xi32>
  %b = ember.constant dense<[10, 6]> : tensor<2xi32>
  %c = ember.constant dense<[12, -8]> : tensor<2xi32>
  %d = ember.constant dense<[10, 3]> : tensor<2xi32>
  %0 = ember.and %a, %b : tensor<2xi32>
  %1 = ember.or %c, %d : tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

//===----------------------------------------------------------------------===//
// compare, select
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @compare_fold_i32(
// CHECK-DAG:     %[[EQ:.*]] = ember.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG:     %[[NE:.*]] = ember.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG:     %[[LT:.*]] = ember.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG:     %[[LE:.*]] = ember.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG:     %[[GT:.*]] = ember.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG:     %[[GE:.*]] = ember.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK:         return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]]
func.func @compare_fold_i32() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = ember.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = ember.constant dense<[2, 2, 2]> : tensor<3xi32>
  %0 = ember.compare eq, %a, %b : tensor<3xi32>
  %1 = ember.compare ne, %a, %b : tensor<3xi32>
  %2 = ember.compare lt, %a, %b : tensor<3xi32>
  %3 = ember.compare le, %a, %b : tensor<3xi32>
  %4 = ember.compare gt, %a, %b : tensor<3xi32>
  %5 = ember.compare ge, %a, %b : tensor<3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// Float comparisons are false on NaN except ne.
// CHECK-LABEL: func.func @compare_fold_f32_nan(
// CHECK-DAG:     %[[LT:.*]] = ember.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG:     %[[NE:.*]] = ember.constant dense<true> : tensor<2xi1>
// CHECK-DAG:     %[[EQ:.*]] = ember.constant dense<false> : tensor<2xi1>
// CHECK:         return %[[LT]], %[[NE]], %[[EQ]]
func.func @compare_fold_f32_nan() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %a = ember.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %b = ember.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %0 = ember.compare lt, %a, %b : tensor<2xf32>
  %1 = ember.compare ne, %a, %b : tensor<2xf32>
  %2 = ember.compare eq, %a, %b : tensor<2xf32>
  return %0, %1, %2 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// false < true.
// CHECK-LABEL: func.func @compare_fold_i1(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-NEXT:    return %[[C]]
func.func @compare_fold_i1() -> tensor<4xi1> {
  %a = ember.constant dense<[false, true, false, true]> : tensor<4xi1>
  %b = ember.constant dense<[true, false, false, true]> : tensor<4xi1>
  %0 = ember.compare lt, %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @select_fold_constants(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[1.000000e+00, 2.000000e+01, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @select_fold_constants() -> tensor<3xf32> {
  %c = ember.constant dense<[true, false, true]> : tensor<3xi1>
  %a = ember.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = ember.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = ember.select %c, %a, %b : tensor<3xi1>, tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @select_splat_true(
// CHECK-SAME:      %[[A:[^:]*]]: tensor<3xi32>, %[[B:[^:]*]]: tensor<3xi32>)
// CHECK-NEXT:    return %[[A]] : tensor<3xi32>
func.func @select_splat_true(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %c = ember.constant dense<true> : tensor<3xi1>
  %0 = ember.select %c, %a, %b : tensor<3xi1>, tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @select_splat_false(
// CHECK-SAME:      %[[A:[^:]*]]: tensor<3xi32>, %[[B:[^:]*]]: tensor<3xi32>)
// CHECK-NEXT:    return %[[B]] : tensor<3xi32>
func.func @select_splat_false(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %c = ember.constant dense<false> : tensor<3xi1>
  %0 = ember.select %c, %a, %b : tensor<3xi1>, tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @select_same_choices(
// CHECK-SAME:      %[[C:[^:]*]]: tensor<3xi1>, %[[A:[^:]*]]: tensor<3xi32>)
// CHECK-NEXT:    return %[[A]] : tensor<3xi32>
func.func @select_same_choices(%c: tensor<3xi1>, %a: tensor<3xi32>) -> tensor<3xi32> {
  %0 = ember.select %c, %a, %a : tensor<3xi1>, tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @select_no_fold(
// CHECK:         %[[S:.*]] = ember.select
// CHECK-NEXT:    return %[[S]]
func.func @select_no_fold(%c: tensor<3xi1>, %a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %0 = ember.select %c, %a, %b : tensor<3xi1>, tensor<3xi32>
  return %0 : tensor<3xi32>
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops on constants
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @neg_fold(
// CHECK-DAG:     %[[I:.*]] = ember.constant dense<[-1, 2, 0, -2147483648]> : tensor<4xi32>
// CHECK-DAG:     %[[F:.*]] = ember.constant dense<[-1.500000e+00, 2.000000e+00]> : tensor<2xf64>
// CHECK:         return %[[I]], %[[F]]
func.func @neg_fold() -> (tensor<4xi32>, tensor<2xf64>) {
  %a = ember.constant dense<[1, -2, 0, -2147483648]> : tensor<4xi32>
  %b = ember.constant dense<[1.5, -2.0]> : tensor<2xf64>
  %0 = ember.neg %a : tensor<4xi32>
  %1 = ember.neg %b : tensor<2xf64>
  return %0, %1 : tensor<4xi32>, tensor<2xf64>
}

// -----

// CHECK-LABEL: func.func @abs_fold(
// CHECK-DAG:     %[[I:.*]] = ember.constant dense<[3, 4, 0]> : tensor<3xi64>
// CHECK-DAG:     %[[F:.*]] = ember.constant dense<[1.500000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:         return %[[I]], %[[F]]
func.func @abs_fold() -> (tensor<3xi64>, tensor<2xf32>) {
  %a = ember.constant dense<[-3, 4, 0]> : tensor<3xi64>
  %b = ember.constant dense<[-1.5, 2.0]> : tensor<2xf32>
  %0 = ember.abs %a : tensor<3xi64>
  %1 = ember.abs %b : tensor<2xf32>
  return %0, %1 : tensor<3xi64>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @exp_log_fold(
// CHECK-DAG:     %[[EXP:.*]] = ember.constant dense<[1.000000e+00, 2.71828175, 0.36787945]> : tensor<3xf32>
// CHECK-DAG:     %[[LOG:.*]] = ember.constant dense<[0.000000e+00, -0.693147182, 0xFF800000]> : tensor<3xf32>
// CHECK-DAG:     %[[LOG1P:.*]] = ember.constant dense<[0.000000e+00, 0.69314718055994529]> : tensor<2xf64>
// CHECK:         return %[[EXP]], %[[LOG]], %[[LOG1P]]
func.func @exp_log_fold() -> (tensor<3xf32>, tensor<3xf32>, tensor<2xf64>) {
  %a = ember.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %b = ember.constant dense<[1.0, 0.5, 0.0]> : tensor<3xf32>
  %c = ember.constant dense<[0.0, 1.0]> : tensor<2xf64>
  %0 = ember.exp %a : tensor<3xf32>
  %1 = ember.log %b : tensor<3xf32>
  %2 = ember.log1p %c : tensor<2xf64>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<2xf64>
}

// -----

// erf folds with std::erf.
// CHECK-LABEL: func.func @erf_fold(
// CHECK:         %[[ERF:.*]] = ember.constant dense<[0.000000e+00, 0.84270079294971{{[0-9]*}}, -0.99532226501895{{[0-9]*}}]> : tensor<3xf64>
// CHECK-NEXT:    return %[[ERF]]
func.func @erf_fold() -> tensor<3xf64> {
  %a = ember.constant dense<[0.0, 1.0, -2.0]> : tensor<3xf64>
  %0 = ember.erf %a : tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// asin, acos and atan fold with libm's.
// CHECK-LABEL: func.func @inverse_trigonometric_fold(
// CHECK-DAG:     %[[ASIN:.*]] = ember.constant dense<[0.000000e+00, 1.5707963267948{{[0-9]*}}, 0x7FF8000000000000]> : tensor<3xf64>
// CHECK-DAG:     %[[ACOS:.*]] = ember.constant dense<[1.5707963267948{{[0-9]*}}, 0.000000e+00, 0x7FF8000000000000]> : tensor<3xf64>
// CHECK-DAG:     %[[ATAN:.*]] = ember.constant dense<[0.000000e+00, 0.78539816339744{{[0-9]*}}, 1.1071487177940{{[0-9]*}}]> : tensor<3xf64>
// CHECK:         return %[[ASIN]], %[[ACOS]], %[[ATAN]]
func.func @inverse_trigonometric_fold() -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %a = ember.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf64>
  %0 = ember.asin %a : tensor<3xf64>
  %1 = ember.acos %a : tensor<3xf64>
  %2 = ember.atan %a : tensor<3xf64>
  return %0, %1, %2 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @sqrt_rsqrt_fold(
// CHECK-DAG:     %[[SQRT:.*]] = ember.constant dense<[2.000000e+00, 1.41421354, 0.000000e+00]> : tensor<3xf32>
// CHECK-DAG:     %[[RSQRT:.*]] = ember.constant dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
// CHECK:         return %[[SQRT]], %[[RSQRT]]
func.func @sqrt_rsqrt_fold() -> (tensor<3xf32>, tensor<2xf32>) {
  %a = ember.constant dense<[4.0, 2.0, 0.0]> : tensor<3xf32>
  %b = ember.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = ember.sqrt %a : tensor<3xf32>
  %1 = ember.rsqrt %b : tensor<2xf32>
  return %0, %1 : tensor<3xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @tanh_sigmoid_fold(
// CHECK-DAG:     %[[TANH:.*]] = ember.constant dense<[0.000000e+00, 0.761594176, -0.761594176]> : tensor<3xf32>
// CHECK-DAG:     %[[SIGMOID:.*]] = ember.constant dense<[5.000000e-01, 0.731058597, 0.268941432]> : tensor<3xf32>
// CHECK:         return %[[TANH]], %[[SIGMOID]]
func.func @tanh_sigmoid_fold() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = ember.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %0 = ember.tanh %a : tensor<3xf32>
  %1 = ember.sigmoid %a : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @sin_cos_fold(
// CHECK-DAG:     %[[SIN:.*]] = ember.constant dense<[0.000000e+00, 1.000000e+00, 0.8414709848078965]> : tensor<3xf64>
// CHECK-DAG:     %[[COS:.*]] = ember.constant dense<[1.000000e+00, 6.123233995736766E-17, 0.54030230586813977]> : tensor<3xf64>
// CHECK:         return %[[SIN]], %[[COS]]
func.func @sin_cos_fold() -> (tensor<3xf64>, tensor<3xf64>) {
  %a = ember.constant dense<[0.0, 1.5707963267948966, 1.0]> : tensor<3xf64>
  %0 = ember.sin %a : tensor<3xf64>
  %1 = ember.cos %a : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @relu_fold(
// CHECK-DAG:     %[[I:.*]] = ember.constant dense<[0, 0, 5]> : tensor<3xi32>
// CHECK-DAG:     %[[F:.*]] = ember.constant dense<[0.000000e+00, 2.500000e+00]> : tensor<2xf32>
// CHECK:         return %[[I]], %[[F]]
func.func @relu_fold() -> (tensor<3xi32>, tensor<2xf32>) {
  %a = ember.constant dense<[-1, 0, 5]> : tensor<3xi32>
  %b = ember.constant dense<[-1.5, 2.5]> : tensor<2xf32>
  %0 = ember.relu %a : tensor<3xi32>
  %1 = ember.relu %b : tensor<2xf32>
  return %0, %1 : tensor<3xi32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @square_fold(
// CHECK-DAG:     %[[I:.*]] = ember.constant dense<[9, 16, 0]> : tensor<3xi32>
// CHECK-DAG:     %[[F:.*]] = ember.constant dense<[2.250000e+00, 2.500000e-01]> : tensor<2xf64>
// CHECK:         return %[[I]], %[[F]]
func.func @square_fold() -> (tensor<3xi32>, tensor<2xf64>) {
  %a = ember.constant dense<[3, -4, 65536]> : tensor<3xi32>
  %b = ember.constant dense<[-1.5, 0.5]> : tensor<2xf64>
  %0 = ember.square %a : tensor<3xi32>
  %1 = ember.square %b : tensor<2xf64>
  return %0, %1 : tensor<3xi32>, tensor<2xf64>
}

// -----

// CHECK-LABEL: func.func @sign_fold(
// CHECK-DAG:     %[[I:.*]] = ember.constant dense<[-1, 0, 1]> : tensor<3xi64>
// CHECK-DAG:     %[[F:.*]] = ember.constant dense<[-1.000000e+00, 0.000000e+00, 1.000000e+00, 0x7FC00000]> : tensor<4xf32>
// CHECK:         return %[[I]], %[[F]]
func.func @sign_fold() -> (tensor<3xi64>, tensor<4xf32>) {
  %a = ember.constant dense<[-7, 0, 42]> : tensor<3xi64>
  %b = ember.constant dense<[-2.5, 0.0, 3.0, 0x7FC00000]> : tensor<4xf32>
  %0 = ember.sign %a : tensor<3xi64>
  %1 = ember.sign %b : tensor<4xf32>
  return %0, %1 : tensor<3xi64>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @not_fold(
// CHECK-DAG:     %[[B:.*]] = ember.constant dense<[false, true]> : tensor<2xi1>
// CHECK-DAG:     %[[I:.*]] = ember.constant dense<[-1, 0, -6]> : tensor<3xi32>
// CHECK:         return %[[B]], %[[I]]
func.func @not_fold() -> (tensor<2xi1>, tensor<3xi32>) {
  %a = ember.constant dense<[true, false]> : tensor<2xi1>
  %b = ember.constant dense<[0, -1, 5]> : tensor<3xi32>
  %0 = ember.not %a : tensor<2xi1>
  %1 = ember.not %b : tensor<3xi32>
  return %0, %1 : tensor<2xi1>, tensor<3xi32>
}

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

// -----

// Float to integer truncates toward zero.
// CHECK-LABEL: func.func @cast_fold_f32_to_i32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[-2, 2, 0, 3]> : tensor<4xi32>
// CHECK-NEXT:    return %[[C]]
func.func @cast_fold_f32_to_i32() -> tensor<4xi32> {
  %a = ember.constant dense<[-2.7, 2.7, -0.5, 3.0]> : tensor<4xf32>
  %0 = ember.cast %a : tensor<4xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Beyond the integer type's range a float saturates; NaN gives 0 (as the
// compiled code computes it).
// CHECK-LABEL: func.func @cast_fold_out_of_range(
// CHECK-DAG:     %[[I32:.*]] = ember.constant dense<[2147483647, -2147483648, 0, 2147483647, -2147483648]> : tensor<5xi32>
// CHECK-DAG:     %[[I64:.*]] = ember.constant dense<[9223372036854775807, -9223372036854775808, 0]> : tensor<3xi64>
// CHECK:         return %[[I32]], %[[I64]]
func.func @cast_fold_out_of_range() -> (tensor<5xi32>, tensor<3xi64>) {
  %a = ember.constant dense<[1.0e10, -1.0e10, 0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<5xf32>
  %b = ember.constant dense<[1.0e300, -1.0e300, 0x7FF8000000000000]> : tensor<3xf64>
  %0 = ember.cast %a : tensor<5xf32> -> tensor<5xi32>
  %1 = ember.cast %b : tensor<3xf64> -> tensor<3xi64>
  return %0, %1 : tensor<5xi32>, tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @cast_fold_i1_to_f32(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @cast_fold_i1_to_f32() -> tensor<2xf32> {
  %a = ember.constant dense<[true, false]> : tensor<2xi1>
  %0 = ember.cast %a : tensor<2xi1> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @cast_fold_i1_to_i64(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[0, 1]> : tensor<2xi64>
// CHECK-NEXT:    return %[[C]]
func.func @cast_fold_i1_to_i64() -> tensor<2xi64> {
  %a = ember.constant dense<[false, true]> : tensor<2xi1>
  %0 = ember.cast %a : tensor<2xi1> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Number to bool is x != 0.
// CHECK-LABEL: func.func @cast_fold_to_i1(
// CHECK-DAG:     %[[I:.*]] = ember.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG:     %[[F:.*]] = ember.constant dense<[false, true, true, true]> : tensor<4xi1>
// CHECK:         return %[[I]], %[[F]]
func.func @cast_fold_to_i1() -> (tensor<3xi1>, tensor<4xi1>) {
  %a = ember.constant dense<[0, 5, -1]> : tensor<3xi32>
  %b = ember.constant dense<[0.0, 0.25, -3.0, 0x7FC00000]> : tensor<4xf32>
  %0 = ember.cast %a : tensor<3xi32> -> tensor<3xi1>
  %1 = ember.cast %b : tensor<4xf32> -> tensor<4xi1>
  return %0, %1 : tensor<3xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @cast_fold_ints(
// CHECK-DAG:     %[[NARROW:.*]] = ember.constant dense<[1, -1]> : tensor<2xi32>
// CHECK-DAG:     %[[WIDE:.*]] = ember.constant dense<[-5, 2147483647]> : tensor<2xi64>
// CHECK-DAG:     %[[FLOAT:.*]] = ember.constant dense<[-5.000000e+00, 1.000000e+03]> : tensor<2xf64>
// CHECK:         return %[[NARROW]], %[[WIDE]], %[[FLOAT]]
func.func @cast_fold_ints() -> (tensor<2xi32>, tensor<2xi64>, tensor<2xf64>) {
  %a = ember.constant dense<[4294967297, 4294967295]> : tensor<2xi64>
  %b = ember.constant dense<[-5, 2147483647]> : tensor<2xi32>
  %0 = ember.cast %a : tensor<2xi64> -> tensor<2xi32>
  %1 = ember.cast %b : tensor<2xi32> -> tensor<2xi64>
  %c = ember.constant dense<[-5, 1000]> : tensor<2xi32>
  %2 = ember.cast %c : tensor<2xi32> -> tensor<2xf64>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi64>, tensor<2xf64>
}

// -----

// CHECK-LABEL: func.func @cast_fold_floats(
// CHECK-DAG:     %[[D:.*]] = ember.constant dense<[1.000000e-01, -2.500000e+00]> : tensor<2xf32>
// CHECK-DAG:     %[[F:.*]] = ember.constant dense<[0.10000000149011612, -2.500000e+00]> : tensor<2xf64>
// CHECK:         return %[[D]], %[[F]]
func.func @cast_fold_floats() -> (tensor<2xf32>, tensor<2xf64>) {
  %a = ember.constant dense<[0.1, -2.5]> : tensor<2xf64>
  %b = ember.constant dense<[0.1, -2.5]> : tensor<2xf32>
  %0 = ember.cast %a : tensor<2xf64> -> tensor<2xf32>
  %1 = ember.cast %b : tensor<2xf32> -> tensor<2xf64>
  return %0, %1 : tensor<2xf32>, tensor<2xf64>
}


//===----------------------------------------------------------------------===//
// Identities
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @add_zero(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>, %[[Y:[^:]*]]: tensor<4xi32>)
// CHECK-NEXT:    return %[[X]], %[[X]], %[[Y]], %[[Y]]
func.func @add_zero(%x: tensor<2x3xf32>, %y: tensor<4xi32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi32>) {
  %zf = ember.constant dense<0.0> : tensor<2x3xf32>
  %zi = ember.constant dense<0> : tensor<4xi32>
  %0 = ember.add %x, %zf : tensor<2x3xf32>
  %1 = ember.add %zf, %x : tensor<2x3xf32>
  %2 = ember.add %y, %zi : tensor<4xi32>
  %3 = ember.add %zi, %y : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @sub_zero(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4xi64>)
// CHECK-NEXT:    return %[[X]]
func.func @sub_zero(%x: tensor<4xi64>) -> tensor<4xi64> {
  %z = ember.constant dense<0> : tensor<4xi64>
  %0 = ember.sub %x, %z : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// 0 - x is a negation, not x.
// CHECK-LABEL: func.func @sub_zero_lhs_no_fold(
// CHECK:         %[[S:.*]] = ember.sub
// CHECK-NEXT:    return %[[S]]
func.func @sub_zero_lhs_no_fold(%x: tensor<4xi64>) -> tensor<4xi64> {
  %z = ember.constant dense<0> : tensor<4xi64>
  %0 = ember.sub %z, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @mul_one(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<3xf64>)
// CHECK-NEXT:    return %[[X]], %[[X]]
func.func @mul_one(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %one = ember.constant dense<1.0> : tensor<3xf64>
  %0 = ember.mul %x, %one : tensor<3xf64>
  %1 = ember.mul %one, %x : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @mul_two_no_fold(
// CHECK:         %[[M:.*]] = ember.mul
// CHECK-NEXT:    return %[[M]]
func.func @mul_two_no_fold(%x: tensor<3xi32>) -> tensor<3xi32> {
  %two = ember.constant dense<2> : tensor<3xi32>
  %0 = ember.mul %x, %two : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @div_one(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<3xi32>, %[[Y:[^:]*]]: tensor<2xf32>)
// CHECK-NEXT:    return %[[X]], %[[Y]]
func.func @div_one(%x: tensor<3xi32>, %y: tensor<2xf32>) -> (tensor<3xi32>, tensor<2xf32>) {
  %one = ember.constant dense<1> : tensor<3xi32>
  %onef = ember.constant dense<1.0> : tensor<2xf32>
  %0 = ember.div %x, %one : tensor<3xi32>
  %1 = ember.div %y, %onef : tensor<2xf32>
  return %0, %1 : tensor<3xi32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @pow_one(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<3xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @pow_one(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = ember.constant dense<1.0> : tensor<3xf32>
  %0 = ember.pow %x, %one : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @same_operands(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<3xf32>, %[[Y:[^:]*]]: tensor<3xi1>)
// CHECK-NEXT:    return %[[X]], %[[X]], %[[Y]], %[[Y]]
func.func @same_operands(%x: tensor<3xf32>, %y: tensor<3xi1>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xi1>) {
  %0 = ember.maximum %x, %x : tensor<3xf32>
  %1 = ember.minimum %x, %x : tensor<3xf32>
  %2 = ember.and %y, %y : tensor<3xi1>
  %3 = ember.or %y, %y : tensor<3xi1>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @neg_neg(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x2xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @neg_neg(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = ember.neg %x : tensor<2x2xf32>
  %1 = ember.neg %0 : tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @not_not(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4xi1>)
// CHECK-NEXT:    return %[[X]]
func.func @not_not(%x: tensor<4xi1>) -> tensor<4xi1> {
  %0 = ember.not %x : tensor<4xi1>
  %1 = ember.not %0 : tensor<4xi1>
  return %1 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @cast_same_type(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4xi32>)
// CHECK-NEXT:    return %[[X]]
func.func @cast_same_type(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.cast %x : tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to_same_type(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @broadcast_to_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.broadcast_to %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_same_type(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A merge and a split back by the operand's own sizes is the identity;
// by other sizes it regroups the rows and stays.
// CHECK-LABEL: func.func @reshape_sizes(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<?x?x3xf32>, %[[B:.*]]: index, %[[T:.*]]: index)
// CHECK:         %[[R:.*]] = ember.reshape %[[X]] [%[[B]], %[[T]]] : tensor<?x?x3xf32> -> tensor<?x?x3xf32>
// CHECK-NEXT:    return %[[X]], %[[R]]
func.func @reshape_sizes(%x: tensor<?x?x3xf32>, %b: index, %t: index) -> (tensor<?x?x3xf32>, tensor<?x?x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = ember.reshape %x : tensor<?x?x3xf32> -> tensor<?x3xf32>
  %n = tensor.dim %x, %c0 : tensor<?x?x3xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?x3xf32>
  %1 = ember.reshape %0 [%n, %m] : tensor<?x3xf32> -> tensor<?x?x3xf32>
  %2 = ember.reshape %0 [%b, %t] : tensor<?x3xf32> -> tensor<?x?x3xf32>
  return %1, %2 : tensor<?x?x3xf32>, tensor<?x?x3xf32>
}

// -----

// A reshape of a reshape with `?` dims stays: the inner one's check (rows
// a multiple of 3) must still run.
// CHECK-LABEL: func.func @reshape_reshape_dynamic(
// CHECK:         %[[S:.*]] = ember.reshape %{{.*}} : tensor<?x4xf32> -> tensor<?x3x4xf32>
// CHECK:         ember.reshape %[[S]] : tensor<?x3x4xf32> -> tensor<?x4xf32>
func.func @reshape_reshape_dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = ember.reshape %x : tensor<?x4xf32> -> tensor<?x3x4xf32>
  %1 = ember.reshape %0 : tensor<?x3x4xf32> -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[R:.*]] = ember.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = ember.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = ember.reshape %0 : tensor<6xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape_back(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xi64>)
// CHECK-NEXT:    return %[[X]]
func.func @reshape_reshape_back(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %0 = ember.reshape %x : tensor<2x3xi64> -> tensor<6x1xi64>
  %1 = ember.reshape %0 : tensor<6x1xi64> -> tensor<2x3xi64>
  return %1 : tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func.func @transpose_identity(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = ember.transpose %x permutation = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Result dim i of the outer transpose is dim q[i] of the inner one, which is
// dim p[q[i]] of x: [1, 2, 0] then [1, 0, 2] compose to [2, 1, 0].
// CHECK-LABEL: func.func @transpose_transpose(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[T:.*]] = ember.transpose %[[X]] permutation = [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-NEXT:    return %[[T]]
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = ember.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = ember.transpose %0 permutation = [1, 0, 2] : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_transpose_inverse(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xi32>)
// CHECK-NEXT:    return %[[X]]
func.func @transpose_transpose_inverse(%x: tensor<2x3x4xi32>) -> tensor<2x3x4xi32> {
  %0 = ember.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xi32> -> tensor<3x4x2xi32>
  %1 = ember.transpose %0 permutation = [2, 0, 1] : tensor<3x4x2xi32> -> tensor<2x3x4xi32>
  return %1 : tensor<2x3x4xi32>
}

// -----

// CHECK-LABEL: func.func @slice_full(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @slice_full(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.slice %x start = [0, 0] limit = [2, 3] stride = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat_single(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @concat_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.concat %x axis = 1 : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_empty_axes(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>, %[[Y:[^:]*]]: tensor<4xi32>)
// CHECK-NEXT:    return %[[X]], %[[X]], %[[Y]], %[[Y]], %[[X]]
func.func @reduce_empty_axes(%x: tensor<2x3xf32>, %y: tensor<4xi32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi32>, tensor<2x3xf32>) {
  %0 = ember.reduce_sum %x axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = ember.reduce_max %x axes = [] keepdims : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = ember.reduce_min %y axes = [] : tensor<4xi32> -> tensor<4xi32>
  %3 = ember.reduce_prod %y axes = [] : tensor<4xi32> -> tensor<4xi32>
  %4 = ember.reduce_mean %x axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_no_fold(
// CHECK:         %[[R:.*]] = ember.reduce_sum
// CHECK-NEXT:    return %[[R]]
func.func @reduce_no_fold(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = ember.reduce_sum %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @argmax_size1_axis(
// CHECK-DAG:     %[[Z:.*]] = ember.constant dense<0> : tensor<3xi64>
// CHECK-DAG:     %[[K:.*]] = ember.constant dense<0> : tensor<1x4xi64>
// CHECK:         return %[[Z]], %[[K]]
func.func @argmax_size1_axis(%x: tensor<3x1xf32>, %y: tensor<1x4xi32>) -> (tensor<3xi64>, tensor<1x4xi64>) {
  %0 = ember.argmax %x axis = 1 : tensor<3x1xf32> -> tensor<3xi64>
  %1 = ember.argmax %y axis = 0 keepdims : tensor<1x4xi32> -> tensor<1x4xi64>
  return %0, %1 : tensor<3xi64>, tensor<1x4xi64>
}

// -----

// CHECK-LABEL: func.func @argmax_no_fold(
// CHECK:         %[[A:.*]] = ember.argmax
// CHECK-NEXT:    return %[[A]]
func.func @argmax_no_fold(%x: tensor<3x2xf32>) -> tensor<3xi64> {
  %0 = ember.argmax %x axis = 1 : tensor<3x2xf32> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

//===----------------------------------------------------------------------===//
// Shape ops on constants
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @broadcast_to_constant(
// CHECK-DAG:     %[[ROWS:.*]] = ember.constant dense<{{\[}}[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
// CHECK-DAG:     %[[COLS:.*]] = ember.constant dense<{{\[}}{{\[}}[1.000000e+00, 1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00, 2.000000e+00]]]> : tensor<1x2x3xf32>
// CHECK-DAG:     %[[SPLAT:.*]] = ember.constant dense<true> : tensor<2x2xi1>
// CHECK:         return %[[ROWS]], %[[COLS]], %[[SPLAT]]
func.func @broadcast_to_constant() -> (tensor<2x3xi32>, tensor<1x2x3xf32>, tensor<2x2xi1>) {
  %a = ember.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = ember.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %c = ember.constant dense<true> : tensor<i1>
  %0 = ember.broadcast_to %a : tensor<3xi32> -> tensor<2x3xi32>
  %1 = ember.broadcast_to %b : tensor<2x1xf32> -> tensor<1x2x3xf32>
  %2 = ember.broadcast_to %c : tensor<i1> -> tensor<2x2xi1>
  return %0, %1, %2 : tensor<2x3xi32>, tensor<1x2x3xf32>, tensor<2x2xi1>
}

// -----

// CHECK-LABEL: func.func @reshape_constant(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_constant() -> tensor<3x2xi64> {
  %a = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = ember.reshape %a : tensor<2x3xi64> -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

// -----

// CHECK-LABEL: func.func @transpose_constant(
// CHECK-DAG:     %[[T2:.*]] = ember.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG:     %[[T3:.*]] = ember.constant dense<{{\[}}{{\[}}[0, 4], [8, 12]], {{\[}}[1, 5], [9, 13]], {{\[}}[2, 6], [10, 14]], {{\[}}[3, 7], [11, 15]]]> : tensor<4x2x2xi32>
// CHECK:         return %[[T2]], %[[T3]]
func.func @transpose_constant() -> (tensor<3x2xi32>, tensor<4x2x2xi32>) {
  %a = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %b = ember.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7]], [[8, 9, 10, 11], [12, 13, 14, 15]]]> : tensor<2x2x4xi32>
  %0 = ember.transpose %a permutation = [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %1 = ember.transpose %b permutation = [2, 0, 1] : tensor<2x2x4xi32> -> tensor<4x2x2xi32>
  return %0, %1 : tensor<3x2xi32>, tensor<4x2x2xi32>
}

// -----

// CHECK-LABEL: func.func @slice_constant(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<{{\[}}[5.000000e+00, 7.000000e+00], [1.300000e+01, 1.500000e+01]]> : tensor<2x2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @slice_constant() -> tensor<2x2xf32> {
  %a = ember.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]> : tensor<4x4xf32>
  %0 = ember.slice %a start = [1, 1] limit = [4, 4] stride = [2, 2] : tensor<4x4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @concat_constant(
// CHECK-DAG:     %[[AX1:.*]] = ember.constant dense<{{\[}}[1, 2, 7], [3, 4, 8]]> : tensor<2x3xi32>
// CHECK-DAG:     %[[AX0:.*]] = ember.constant dense<{{\[}}[1, 2], [3, 4], [9, 9]]> : tensor<3x2xi32>
// CHECK:         return %[[AX1]], %[[AX0]]
func.func @concat_constant() -> (tensor<2x3xi32>, tensor<3x2xi32>) {
  %a = ember.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %b = ember.constant dense<[[7], [8]]> : tensor<2x1xi32>
  %c = ember.constant dense<9> : tensor<1x2xi32>
  %0 = ember.concat %a, %b axis = 1 : tensor<2x2xi32>, tensor<2x1xi32> -> tensor<2x3xi32>
  %1 = ember.concat %a, %c axis = 0 : tensor<2x2xi32>, tensor<1x2xi32> -> tensor<3x2xi32>
  return %0, %1 : tensor<2x3xi32>, tensor<3x2xi32>
}

// -----

// Negative indices count from the end.
// CHECK-LABEL: func.func @gather_constant(
// CHECK-DAG:     %[[G0:.*]] = ember.constant dense<[4.000000e+01, 1.000000e+01, 3.000000e+01]> : tensor<3xf32>
// CHECK-DAG:     %[[G1:.*]] = ember.constant dense<{{\[}}{{\[}}[3, 1], [1, 2]], {{\[}}[6, 4], [4, 5]]]> : tensor<2x2x2xi64>
// CHECK:         return %[[G0]], %[[G1]]
func.func @gather_constant() -> (tensor<3xf32>, tensor<2x2x2xi64>) {
  %a = ember.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %i = ember.constant dense<[-1, 0, 2]> : tensor<3xi32>
  %b = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %j = ember.constant dense<[[-1, 0], [0, 1]]> : tensor<2x2xi64>
  %0 = ember.gather %a, %i axis = 0 : tensor<4xf32>, tensor<3xi32> -> tensor<3xf32>
  %1 = ember.gather %b, %j axis = 1 : tensor<2x3xi64>, tensor<2x2xi64> -> tensor<2x2x2xi64>
  return %0, %1 : tensor<3xf32>, tensor<2x2x2xi64>
}

// -----

// A scatter of no updates is its operand.
// CHECK-LABEL: func.func @scatter_nothing(
// CHECK-SAME:      %[[X:.*]]: tensor<4x3xf32>
// CHECK-NEXT:    return %[[X]]
func.func @scatter_nothing(%x: tensor<4x3xf32>, %i: tensor<0xi64>, %u: tensor<0x3xf32>) -> tensor<4x3xf32> {
  %0 = ember.scatter add, %x, %i, %u axis = 0 : tensor<4x3xf32>, tensor<0xi64>, tensor<0x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A rank-0 index drops the axis.
// CHECK-LABEL: func.func @gather_constant_scalar_index(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[2, 5]> : tensor<2xi32>
// CHECK-NEXT:    return %[[C]]
func.func @gather_constant_scalar_index() -> tensor<2xi32> {
  %a = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %i = ember.constant dense<-2> : tensor<i64>
  %0 = ember.gather %a, %i axis = 1 : tensor<2x3xi32>, tensor<i64> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// Shape ops chained on constants fold all the way.
// CHECK-LABEL: func.func @chain_constant(
// CHECK-NEXT:    %[[C:.*]] = ember.constant dense<[3.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @chain_constant() -> tensor<2xf32> {
  %a = ember.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = ember.broadcast_to %a : tensor<3xf32> -> tensor<2x3xf32>
  %c = ember.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %d = ember.broadcast_to %c : tensor<2x1xf32> -> tensor<2x3xf32>
  %e = ember.mul %b, %d : tensor<2x3xf32>
  %f = ember.slice %e start = [0, 2] limit = [2, 3] stride = [1, 1] : tensor<2x3xf32> -> tensor<2x1xf32>
  %g = ember.reshape %f : tensor<2x1xf32> -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

// Pooling single elements (1x1 windows, strides 1, no padding) is the input;
// a real window stays.
// CHECK-LABEL: func.func @pool_identity(
// CHECK-SAME:      %[[X:.*]]: tensor<1x4x4x2xf32>)
// CHECK:         %[[M:.*]] = ember.max_pool2d %[[X]] window = [2, 2]
// CHECK:         return %[[X]], %[[X]], %[[M]]
func.func @pool_identity(%x: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>) {
  %0 = ember.max_pool2d %x window = [1, 1] strides = [1, 1] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32> -> tensor<1x4x4x2xf32>
  %1 = ember.avg_pool2d %x window = [1, 1] strides = [1, 1] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32> -> tensor<1x4x4x2xf32>
  %2 = ember.max_pool2d %x window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
  return %0, %1, %2 : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Folders leave dynamic shapes alone (they computed strides of `?` dims).
// CHECK-LABEL: func.func @dynamic_shapes_do_not_fold(
// CHECK:         ember.broadcast_to
// CHECK:         ember.transpose
// CHECK:         ember.reduce_sum
func.func @dynamic_shapes_do_not_fold(%x: tensor<?xf32>, %y: tensor<?x3xf32>, %n: index)
    -> (tensor<?x?xf32>, tensor<3x?xf32>, tensor<3xf32>) {
  %0 = ember.broadcast_to %x [%n, %n] : tensor<?xf32> -> tensor<?x?xf32>
  %1 = ember.transpose %y permutation = [1, 0] : tensor<?x3xf32> -> tensor<3x?xf32>
  %2 = ember.reduce_sum %y axes = [0] : tensor<?x3xf32> -> tensor<3xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<3x?xf32>, tensor<3xf32>
}

// -----

// shape_of of a static shape is a constant; of a `?` dim it stays.
// CHECK-LABEL: func.func @shape_of_fold(
// CHECK-DAG:     ember.constant dense<[4, 3]> : tensor<2xi64>
// CHECK-DAG:     ember.shape_of %{{.*}} : tensor<?x3xf32> -> tensor<2xi64>
func.func @shape_of_fold(%x: tensor<4x3xf32>, %y: tensor<?x3xf32>) -> (tensor<2xi64>, tensor<2xi64>) {
  %0 = ember.shape_of %x : tensor<4x3xf32> -> tensor<2xi64>
  %1 = ember.shape_of %y : tensor<?x3xf32> -> tensor<2xi64>
  return %0, %1 : tensor<2xi64>, tensor<2xi64>
}

// -----

// A `?` dim from 0 to the end is all of it; from 1 it is not.
// CHECK-LABEL: func.func @slice_dynamic_dim(
// CHECK-SAME:      %[[X:.*]]: tensor<?x4xf32>
// CHECK:         %[[PART:.*]] = ember.slice %[[X]] start = [1, 0]
// CHECK:         return %[[X]], %[[PART]]
func.func @slice_dynamic_dim(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %0 = ember.slice %x start = [0, 0] limit = [-9223372036854775808, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<?x4xf32>
  %1 = ember.slice %x start = [1, 0] limit = [-9223372036854775808, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}
