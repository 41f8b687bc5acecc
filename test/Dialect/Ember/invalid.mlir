// RUN: ember-opt %s -split-input-file -verify-diagnostics

// One chunk per verifier / type-inference error of the ember ops. Where the
// custom form cannot express a bad input (it infers the result type, or ties
// operand types together), the generic form is used.

//===----------------------------------------------------------------------===//
// ODS type constraints
//===----------------------------------------------------------------------===//

func.func @ods_f8_operand(%a: tensor<2x3xf8E5M2>) -> tensor<2x3xf8E5M2> {
  // expected-error @+1 {{'ember.add' op operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2x3xf8E5M2>'}}
  %0 = "ember.add"(%a, %a) : (tensor<2x3xf8E5M2>, tensor<2x3xf8E5M2>) -> tensor<2x3xf8E5M2>
  return %0 : tensor<2x3xf8E5M2>
}

// -----

func.func @ods_unranked_operand(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'ember.exp' op operand #0 must be ranked tensor of}}
  %0 = "ember.exp"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @ods_select_condition_not_i1(%c: tensor<4xi32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.select' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = "ember.select"(%c, %a, %a) : (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @ods_gather_float_indices(%a: tensor<4xf32>, %i: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'ember.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = ember.gather %a, %i axis = 0 : tensor<4xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @ods_argmax_result_i32(%a: tensor<2x3xf32>) -> tensor<2xi32> {
  // expected-error @+1 {{'ember.argmax' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %0 = ember.argmax %a axis = 1 : tensor<2x3xf32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @ods_compare_bad_direction(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'direction' [eq, ne, lt, le, gt, ge]}}
  %0 = ember.compare lte, %a, %a : tensor<4xf32>
  return %0 : tensor<4xi1>
}

// -----

func.func @ods_cast_i8_result(%a: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{'ember.cast' op result #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = ember.cast %a : tensor<4xf32> -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

// -----

func.func @operands_not_ember_types(%a: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'ember.mul' op operands must be ranked tensors of f32, f64, f16, bf16, i1, i32 or i64, got 'tensor<4xf8E4M3FN>'}}
  %0 = ember.mul %a, %a : tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

func.func @add_i1(%a: tensor<2x3xi1>) -> tensor<2x3xi1> {
  // expected-error @+1 {{'ember.add' op requires numeric (f32, f64, f16, bf16, i32 or i64) elements, got 'tensor<2x3xi1>'}}
  %0 = ember.add %a, %a : tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

func.func @exp_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'ember.exp' op requires floating-point (f32, f64, f16 or bf16) elements, got 'tensor<4xi32>'}}
  %0 = ember.exp %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @sqrt_i64_generic(%a: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'ember.sqrt' op requires floating-point (f32, f64, f16 or bf16) elements, got 'tensor<4xi64>'}}
  %0 = "ember.sqrt"(%a) : (tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @neg_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'ember.neg' op requires numeric (f32, f64, f16, bf16, i32 or i64) elements, got 'tensor<4xi1>'}}
  %0 = ember.neg %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @and_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.and' op requires i1 or integer elements, got 'tensor<4xf32>'}}
  %0 = ember.and %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @or_f64(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'ember.or' op requires i1 or integer elements, got 'tensor<4xf64>'}}
  %0 = ember.or %a, %a : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @not_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.not' op requires i1 or integer elements, got 'tensor<4xf32>'}}
  %0 = ember.not %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Binary operands
//===----------------------------------------------------------------------===//

// -----

func.func @add_shape_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'ember.add' op operand shapes must be identical, got 'tensor<2x3xf32>' and 'tensor<3x2xf32>' (broadcast first with ember.broadcast_to)}}
  %0 = ember.add %a, %b : tensor<2x3xf32>, tensor<3x2xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @sub_element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.sub' op operand element types must be identical, got 'tensor<4xf32>' and 'tensor<4xf64>' (convert one with ember.cast)}}
  %0 = ember.sub %a, %b : tensor<4xf32>, tensor<4xf64>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_element_type_mismatch(%a: tensor<4xi32>, %b: tensor<4xi64>) -> tensor<4xi1> {
  // expected-error @+1 {{'ember.compare' op operand element types must be identical, got 'tensor<4xi32>' and 'tensor<4xi64>'}}
  %0 = ember.compare eq, %a, %b : tensor<4xi32>, tensor<4xi64>
  return %0 : tensor<4xi1>
}

// -----

func.func @wrong_result_type(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'ember.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  %0 = "ember.add"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @compare_result_not_i1(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'ember.compare' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "ember.compare"(%a, %a) <{direction = 0 : i32}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// select, cast, constant
//===----------------------------------------------------------------------===//

// -----

func.func @select_condition_not_i1(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.select' op condition must be a tensor of i1, got 'tensor<4xf32>'}}
  %0 = ember.select %c, %a, %a : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_condition_shape(%c: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.select' op condition shape must match the operands, got 'tensor<3xi1>' and 'tensor<4xf32>'}}
  %0 = ember.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_choices_differ(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.select' op operand element types must be identical, got 'tensor<4xf32>' and 'tensor<4xi32>'}}
  %0 = ember.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xi32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cast_shape(%a: tensor<2x3xf32>) -> tensor<3x2xi32> {
  // expected-error @+1 {{'ember.cast' op operand and result shapes must be identical, got 'tensor<2x3xf32>' and 'tensor<3x2xi32>'}}
  %0 = ember.cast %a : tensor<2x3xf32> -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

func.func @constant_i8() -> tensor<2xi8> {
  // expected-error @+1 {{'ember.constant' op value must be a ranked tensor of f32, f64, f16, bf16, i1, i32 or i64, got 'tensor<2xi8>'}}
  %0 = ember.constant dense<1> : tensor<2xi8>
  return %0 : tensor<2xi8>
}

//===----------------------------------------------------------------------===//
// broadcast_to, reshape, transpose
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_two_inferred(%x: tensor<?x6xf32>) -> tensor<?x?x3xf32> {
  // expected-error @+1 {{'ember.reshape' op needs a size for each dynamic dim of 'tensor<?x?x3xf32>' (2): only one can be inferred}}
  %0 = ember.reshape %x : tensor<?x6xf32> -> tensor<?x?x3xf32>
  return %0 : tensor<?x?x3xf32>
}

// -----

func.func @reshape_sizes_count(%x: tensor<?x6xf32>, %n: index) -> tensor<?x?x3xf32> {
  // expected-error @+1 {{'ember.reshape' op needs one size for each dynamic dim of 'tensor<?x?x3xf32>' (2), or none for one, got 1}}
  %0 = ember.reshape %x [%n] : tensor<?x6xf32> -> tensor<?x?x3xf32>
  return %0 : tensor<?x?x3xf32>
}

// -----

func.func @iota_dimension(%n: index) -> tensor<?x3xi64> {
  // expected-error @+1 {{'ember.iota' op dimension 2 is out of range for 'tensor<?x3xi64>' (rank 2)}}
  %0 = ember.iota dim 2 [%n] : tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

func.func @iota_sizes() -> tensor<?x3xi64> {
  // expected-error @+1 {{'ember.iota' op needs one size for each dynamic dim of 'tensor<?x3xi64>' (1), got 0}}
  %0 = ember.iota dim 0 : tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

func.func @iota_bool() -> tensor<3xi1> {
  // expected-error @+1 {{'ember.iota' op counts in numbers, not in 'tensor<3xi1>'}}
  %0 = ember.iota dim 0 : tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @iota_scalar() -> tensor<i64> {
  // expected-error @+1 {{'ember.iota' op numbers the elements along a dim, and 'tensor<i64>' has none}}
  %0 = ember.iota dim 0 : tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @broadcast_to_element_type(%a: tensor<3xf32>) -> tensor<2x3xf64> {
  // expected-error @+1 {{'ember.broadcast_to' op element types must be identical, got 'tensor<3xf32>' and 'tensor<2x3xf64>'}}
  %0 = ember.broadcast_to %a : tensor<3xf32> -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

func.func @broadcast_to_incompatible(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'ember.broadcast_to' op cannot broadcast 'tensor<3xf32>' to 'tensor<2x4xf32>' (numpy rules: dims aligned at the right must be equal or 1)}}
  %0 = ember.broadcast_to %a : tensor<3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @broadcast_to_lower_rank(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'ember.broadcast_to' op cannot broadcast 'tensor<2x3xf32>' to 'tensor<3xf32>'}}
  %0 = ember.broadcast_to %a : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @broadcast_to_missing_size(%a: tensor<?xf32>, %n: index) -> tensor<?x?xf32> {
  // expected-error @+1 {{'ember.broadcast_to' op needs one size for each dynamic dim of 'tensor<?x?xf32>' (2), got 1}}
  %0 = ember.broadcast_to %a [%n] : tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @broadcast_to_dynamic_incompatible(%a: tensor<?x3xf32>, %n: index) -> tensor<?x4xf32> {
  // expected-error @+1 {{'ember.broadcast_to' op cannot broadcast 'tensor<?x3xf32>' to 'tensor<?x4xf32>'}}
  %0 = ember.broadcast_to %a [%n] : tensor<?x3xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @binary_dynamic_against_static(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'ember.add' op operand shapes must be identical, got 'tensor<?x3xf32>' and 'tensor<2x3xf32>'}}
  %0 = "ember.add"(%a, %b) : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reshape_element_type(%a: tensor<2x3xi32>) -> tensor<6xi64> {
  // expected-error @+1 {{'ember.reshape' op element types must be identical, got 'tensor<2x3xi32>' and 'tensor<6xi64>'}}
  %0 = ember.reshape %a : tensor<2x3xi32> -> tensor<6xi64>
  return %0 : tensor<6xi64>
}

// -----

func.func @reshape_element_count(%a: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{'ember.reshape' op cannot reshape 'tensor<2x3xf32>' (6 elements) to 'tensor<7xf32>' (7 elements)}}
  %0 = ember.reshape %a : tensor<2x3xf32> -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @transpose_duplicate(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'ember.transpose' op permutation [0, 0] is not a permutation of the 2 dims of 'tensor<2x3xf32>'}}
  %0 = ember.transpose %a permutation = [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @transpose_wrong_length(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'ember.transpose' op permutation [1, 0, 2] is not a permutation of the 2 dims of 'tensor<2x3xf32>'}}
  %0 = ember.transpose %a permutation = [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_out_of_range(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'ember.transpose' op permutation [2, 0] is not a permutation of the 2 dims}}
  %0 = ember.transpose %a permutation = [2, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_result_type(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'ember.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  %0 = ember.transpose %a permutation = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// -----

func.func @slice_entry_count(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'ember.slice' op start, limit and stride need 2 entries each for operand 'tensor<2x3xf32>', got 1, 2 and 2}}
  %0 = ember.slice %a start = [0] limit = [2, 3] stride = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_limit_past_end(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'ember.slice' op dim 1: slice 0:4:1 is invalid for size 3 of 'tensor<2x3xf32>' (need 0 <= start <= limit <= size, stride >= 1)}}
  %0 = ember.slice %a start = [0, 0] limit = [2, 4] stride = [1, 1] : tensor<2x3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_start_after_limit(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'ember.slice' op dim 0: slice 2:1:1 is invalid for size 2}}
  %0 = ember.slice %a start = [2, 0] limit = [1, 3] stride = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_negative_start(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'ember.slice' op dim 1: slice -1:3:1 is invalid for size 3}}
  %0 = ember.slice %a start = [0, -1] limit = [2, 3] stride = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_zero_stride(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'ember.slice' op dim 1: slice 0:3:0 is invalid for size 3}}
  %0 = ember.slice %a start = [0, 0] limit = [2, 3] stride = [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// concat, gather
//===----------------------------------------------------------------------===//

// -----

func.func @concat_no_inputs() -> tensor<2xf32> {
  // expected-error @+1 {{'ember.concat' op needs at least one input}}
  %0 = "ember.concat"() <{axis = 0 : i64}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @concat_rank0(%a: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{'ember.concat' op cannot concatenate rank-0 tensors}}
  %0 = ember.concat %a, %a axis = 0 : tensor<f32>, tensor<f32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'ember.concat' op axis 2 is out of range for rank 2 operand 'tensor<2x3xf32>'}}
  %0 = ember.concat %a, %a axis = 2 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// Known sizes beside a `?` still must agree.
func.func @concat_dynamic_mismatch(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>, %c: tensor<5x2xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'ember.concat' op inputs 'tensor<?x3xf32>' and 'tensor<5x2xf32>' differ in rank, element type or a dim other than axis 1}}
  %0 = ember.concat %a, %b, %c axis = 1 : tensor<?x3xf32>, tensor<2x3xf32>, tensor<5x2xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @concat_negative_axis(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'ember.concat' op axis -1 is out of range for rank 2 operand 'tensor<2x3xf32>'}}
  %0 = ember.concat %a, %a axis = -1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_dim_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'ember.concat' op inputs 'tensor<2x3xf32>' and 'tensor<3x3xf32>' differ in rank, element type or a dim other than axis 1}}
  %0 = ember.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<3x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'ember.concat' op inputs 'tensor<2x3xf32>' and 'tensor<2x3xi32>' differ in rank, element type or a dim other than axis 0}}
  %0 = ember.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<2x3xi32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'ember.concat' op inputs 'tensor<2x3xf32>' and 'tensor<2x3x1xf32>' differ in rank}}
  %0 = ember.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<2x3x1xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @scatter_updates_of_another_shape(%a: tensor<5x3xf32>, %i: tensor<2xi64>, %u: tensor<2x4xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{'ember.scatter' op updates 'tensor<2x4xf32>' must be 'tensor<2x3xf32>' (the dims of the operand 'tensor<5x3xf32>' around axis 0, those of the indices 'tensor<2xi64>' in its place)}}
  %0 = ember.scatter update, %a, %i, %u axis = 0 : tensor<5x3xf32>, tensor<2xi64>, tensor<2x4xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @scatter_updates_of_another_type(%a: tensor<5xf32>, %i: tensor<2xi64>, %u: tensor<2xf64>) -> tensor<5xf32> {
  // expected-error @+1 {{'ember.scatter' op updates 'tensor<2xf64>' must be 'tensor<2xf32>'}}
  %0 = ember.scatter add, %a, %i, %u axis = 0 : tensor<5xf32>, tensor<2xi64>, tensor<2xf64> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @scatter_add_of_bools(%a: tensor<5xi1>, %i: tensor<2xi64>, %u: tensor<2xi1>) -> tensor<5xi1> {
  // expected-error @+1 {{'ember.scatter' op}}
  %0 = ember.scatter add, %a, %i, %u axis = 0 : tensor<5xi1>, tensor<2xi64>, tensor<2xi1> -> tensor<5xi1>
  return %0 : tensor<5xi1>
}

// -----

func.func @scatter_axis_out_of_range(%a: tensor<5xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'ember.scatter' op axis 1 is out of range for rank 1 operand 'tensor<5xf32>'}}
  %0 = ember.scatter update, %a, %i, %u axis = 1 : tensor<5xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @gather_axis_out_of_range(%a: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<5x2xf32> {
  // expected-error @+1 {{'ember.gather' op axis 2 is out of range for rank 2 operand 'tensor<5x3xf32>'}}
  %0 = ember.gather %a, %i axis = 2 : tensor<5x3xf32>, tensor<2xi64> -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @gather_rank0_operand(%a: tensor<f32>, %i: tensor<2xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{'ember.gather' op axis 0 is out of range for rank 0 operand 'tensor<f32>'}}
  %0 = ember.gather %a, %i axis = 0 : tensor<f32>, tensor<2xi32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// Reductions, argmax
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_sum_axis_out_of_range(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'ember.reduce_sum' op axis 2 is out of range for rank 2 operand 'tensor<2x3xf32>'}}
  %0 = ember.reduce_sum %a axes = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_max_negative_axis(%a: tensor<2x3xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{'ember.reduce_max' op axis -1 is out of range for rank 2 operand 'tensor<2x3xi32>'}}
  %0 = ember.reduce_max %a axes = [-1] : tensor<2x3xi32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @reduce_min_duplicate_axis(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'ember.reduce_min' op axis 1 appears twice}}
  %0 = ember.reduce_min %a axes = [1, 1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_prod_i1(%a: tensor<2x3xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{'ember.reduce_prod' op requires numeric (f32, f64, f16, bf16, i32 or i64) elements, got 'tensor<2x3xi1>'}}
  %0 = ember.reduce_prod %a axes = [1] : tensor<2x3xi1> -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @reduce_mean_int(%a: tensor<2x3xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{'ember.reduce_mean' op requires floating-point (f32, f64, f16 or bf16) elements, got 'tensor<2x3xi32>'}}
  %0 = ember.reduce_mean %a axes = [1] : tensor<2x3xi32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @reduce_sum_keepdims_result(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'ember.reduce_sum' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  %0 = ember.reduce_sum %a axes = [1] keepdims : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @argmax_empty_axis(%a: tensor<2x0xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'ember.argmax' op axis 1 of operand 'tensor<2x0xf32>' is empty: it has no maximum}}
  %0 = ember.argmax %a axis = 1 : tensor<2x0xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @argmax_axis_out_of_range(%a: tensor<2x3xf32>) -> tensor<2xi64> {
  // expected-error @+1 {{'ember.argmax' op axis 2 is out of range for rank 2 operand 'tensor<2x3xf32>'}}
  %0 = ember.argmax %a axis = 2 : tensor<2x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @argmax_i1(%a: tensor<4xi1>) -> tensor<i64> {
  // expected-error @+1 {{'ember.argmax' op requires numeric (f32, f64, f16, bf16, i32 or i64) elements, got 'tensor<4xi1>'}}
  %0 = ember.argmax %a axis = 0 : tensor<4xi1> -> tensor<i64>
  return %0 : tensor<i64>
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank1(%a: tensor<3xf32>, %b: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.matmul' op operands must both have rank 2, or equal rank > 2 (batched), got 'tensor<3xf32>' and 'tensor<3x4xf32>'}}
  %0 = ember.matmul %a, %b : tensor<3xf32>, tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_rank_mismatch(%a: tensor<5x2x3xf32>, %b: tensor<3x4xf32>) -> tensor<5x2x4xf32> {
  // expected-error @+1 {{'ember.matmul' op operands must both have rank 2, or equal rank > 2 (batched), got 'tensor<5x2x3xf32>' and 'tensor<3x4xf32>'}}
  %0 = ember.matmul %a, %b : tensor<5x2x3xf32>, tensor<3x4xf32> -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

func.func @matmul_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'ember.matmul' op contracting dims differ: 'tensor<2x3xf32>' has 3 columns but 'tensor<4x5xf32>' has 4 rows}}
  %0 = ember.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Sizes that are known must agree, even beside `?` dims.
func.func @matmul_contracting_dynamic(%a: tensor<?x3xf32>, %b: tensor<4x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'ember.matmul' op contracting dims differ: 'tensor<?x3xf32>' has 3 columns but 'tensor<4x?xf32>' has 4 rows}}
  %0 = ember.matmul %a, %b : tensor<?x3xf32>, tensor<4x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) -> tensor<2x2x4xf32> {
  // expected-error @+1 {{'ember.matmul' op batch dims must be equal, got 'tensor<2x2x3xf32>' and 'tensor<3x3x4xf32>'}}
  %0 = ember.matmul %a, %b : tensor<2x2x3xf32>, tensor<3x3x4xf32> -> tensor<2x2x4xf32>
  return %0 : tensor<2x2x4xf32>
}

// -----

func.func @matmul_element_type(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'ember.matmul' op operand element types must be identical, got 'tensor<2x3xf32>' and 'tensor<3x4xf64>'}}
  %0 = ember.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf64> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @matmul_i1(%a: tensor<2x3xi1>, %b: tensor<3x4xi1>) -> tensor<2x4xi1> {
  // expected-error @+1 {{'ember.matmul' op requires numeric (f32, f64, f16, bf16, i32 or i64) elements, got 'tensor<2x3xi1>'}}
  %0 = ember.matmul %a, %b : tensor<2x3xi1>, tensor<3x4xi1> -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

func.func @resource_without_data() -> tensor<2x32xf32> {
  // expected-error @+1 {{'ember.constant' op dense_resource<missing> has no data (no entry in the file's dialect_resources section)}}
  %w = ember.constant dense_resource<missing> : tensor<2x32xf32>
  return %w : tensor<2x32xf32>
}

// -----

func.func @resource_of_the_wrong_size() -> tensor<2x32xf32> {
  // expected-error @+1 {{'ember.constant' op dense_resource<short> holds 252 bytes; 'tensor<2x32xf32>' needs 256}}
  %w = ember.constant dense_resource<short> : tensor<2x32xf32>
  return %w : tensor<2x32xf32>
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000003F0000C03F0000204000006040000090400000B0400000D0400000F04000000841000018410000284100003841000048410000584100006841000078410000844100008C410000944100009C410000A4410000AC410000B4410000BC410000C4410000CC410000D4410000DC410000E4410000EC410000F4410000FC41000002420000064200000A4200000E42000012420000164200001A4200001E42000022420000264200002A4200002E42000032420000364200003A4200003E42000042420000464200004A4200004E42000052420000564200005A4200005E42000062420000664200006A4200006E42000072420000764200007A42"
    }
  }
#-}

// -----

func.func @resource_of_rank_zero() -> tensor<f32> {
  // expected-error @+1 {{'ember.constant' op dense_resource<scalar> of type 'tensor<f32>': 0-d and i1 constants must be dense<...>}}
  %w = ember.constant dense_resource<scalar> : tensor<f32>
  return %w : tensor<f32>
}

{-#
  dialect_resources: {
    builtin: {
      scalar: "0x040000000000803F"
    }
  }
#-}

// -----

func.func @conv2d_channels(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'ember.conv2d' op the input has 3 channels but the filter expects 2 ('tensor<1x5x5x3xf32>', 'tensor<3x3x2x8xf32>')}}
  %0 = "ember.conv2d"(%x, %w) {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, input_dilations = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x5x5x3xf32>, tensor<3x3x2x8xf32>) -> tensor<1x3x3x8xf32>
  return
}

// -----

func.func @conv2d_window(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+1 {{'ember.conv2d' op the filter's width (7 with its dilation) exceeds the padded input's (5): }}
  %0 = "ember.conv2d"(%x, %w) {strides = array<i64: 1, 1>, dilations = array<i64: 1, 3>, input_dilations = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x5x5x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x3x1x8xf32>
  return
}

// -----

func.func @conv2d_ints(%x: tensor<1x5x5x3xi32>, %w: tensor<3x3x3x8xi32>) {
  // expected-error @+1 {{'ember.conv2d' op operands must be floats of one element type}}
  %0 = "ember.conv2d"(%x, %w) {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, input_dilations = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x5x5x3xi32>, tensor<3x3x3x8xi32>) -> tensor<1x3x3x8xi32>
  return
}

// -----

func.func @pool_rank(%x: tensor<5x5x2xf32>) {
  // expected-error @+1 {{'ember.max_pool2d' op needs an NHWC float input (rank 4), got 'tensor<5x5x2xf32>'}}
  %0 = "ember.max_pool2d"(%x) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<5x5x2xf32>) -> tensor<2x2x2xf32>
  return
}

// -----

func.func @pool_padding(%x: tensor<1x5x5x2xf32>) {
  // expected-error @+1 {{'ember.avg_pool2d' op paddings must be at least 0 and smaller than the window (2), got [0, 2] along W}}
  %0 = "ember.avg_pool2d"(%x) {window = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 2>} : (tensor<1x5x5x2xf32>) -> tensor<1x4x6x2xf32>
  return
}

// -----

func.func @pool_window(%x: tensor<1x5x5x2xf32>) {
  // expected-error @+1 {{'ember.max_pool2d' op the window's width (6) exceeds the padded input's (5): 'tensor<1x5x5x2xf32>'}}
  %0 = "ember.max_pool2d"(%x) {window = array<i64: 1, 6>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x5x5x2xf32>) -> tensor<1x5x1x2xf32>
  return
}

// -----

func.func @pool_grad_cotangent(%x: tensor<1x4x4x2xf32>, %dy: tensor<1x3x3x2xf32>) {
  // expected-error @+1 {{'ember.max_pool2d_grad' op the cotangent must have the pooling's type 'tensor<1x2x2x2xf32>', got 'tensor<1x3x3x2xf32>'}}
  %0 = "ember.max_pool2d_grad"(%x, %dy) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x4x4x2xf32>
  return
}

// -----

func.func @pool_gather_values(%x: tensor<1x4x4x1xf32>, %v: tensor<1x2x2x1xf32>) {
  // expected-error @+1 {{'ember.max_pool2d_gather' op the values must have the input's type 'tensor<1x4x4x1xf32>', got 'tensor<1x2x2x1xf32>'}}
  %0 = "ember.max_pool2d_gather"(%x, %v) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @conv2d_dynamic_height(%x: tensor<1x?x5x3xf32>, %w: tensor<3x3x3x8xf32>) {
  // expected-error @+1 {{'ember.conv2d' op takes `?` dims only in the batch and the channels: the height and width of 'tensor<1x?x5x3xf32>' must be known}}
  %0 = "ember.conv2d"(%x, %w) {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, input_dilations = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x?x5x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32>
  return
}

// -----

func.func @max_pool2d_dynamic_width(%x: tensor<1x4x?x3xf32>) {
  // expected-error @+1 {{'ember.max_pool2d' op takes `?` dims only in the batch and the channels: the height and width of 'tensor<1x4x?x3xf32>' must be known}}
  %0 = "ember.max_pool2d"(%x) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x4x?x3xf32>) -> tensor<1x2x2x3xf32>
  return
}

// -----

func.func @slice_dynamic_dim_start_from_end_limit_from_start(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'ember.slice' op dim 0 of 'tensor<?x3xf32>': a start counted from the end (-2) needs a limit counted from the end too}}
  %0 = "ember.slice"(%x) {start = array<i64: -2, 0>, limit = array<i64: 4, 3>, stride = array<i64: 1, 1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @slice_dynamic_dim_strided_to_the_end(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'ember.slice' op dim 0 of 'tensor<?x3xf32>': a slice to a limit counted from the end takes stride 1, not 2}}
  %0 = "ember.slice"(%x) {start = array<i64: 1, 0>, limit = array<i64: -9223372036854775808, 3>, stride = array<i64: 2, 1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @slice_dynamic_dim_start_after_limit(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'ember.slice' op dim 0 of 'tensor<?x3xf32>': start -1 is after limit -3}}
  %0 = "ember.slice"(%x) {start = array<i64: -1, 0>, limit = array<i64: -3, 3>, stride = array<i64: 1, 1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @slice_static_dim_to_the_end(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'ember.slice' op dim 1 of 'tensor<?x3xf32>': a limit of -9223372036854775808 (the end) is for `?` dims only}}
  %0 = "ember.slice"(%x) {start = array<i64: 0, 1>, limit = array<i64: -9223372036854775808, -9223372036854775808>, stride = array<i64: 1, 1>} : (tensor<?x3xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @max_pool2d_grad_dynamic_cotangent_height(%x: tensor<?x4x4x3xf32>, %g: tensor<?x?x2x3xf32>) {
  // expected-error @+1 {{'ember.max_pool2d_grad' op takes `?` dims only in the batch and the channels: the height and width of 'tensor<?x?x2x3xf32>' must be known}}
  %0 = "ember.max_pool2d_grad"(%x, %g) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<?x4x4x3xf32>, tensor<?x?x2x3xf32>) -> tensor<?x4x4x3xf32>
  return
}

// -----

func.func @slice_dynamic_dim_start_is_the_end_marker(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'ember.slice' op dim 0 of 'tensor<?x3xf32>': bounds -9223372036854775808:-9223372036854775808 are out of range (need |bound| <= 2^61; the end is limit -9223372036854775808)}}
  %0 = "ember.slice"(%x) {start = array<i64: -9223372036854775808, 0>, limit = array<i64: -9223372036854775808, 3>, stride = array<i64: 1, 1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @slice_dynamic_dim_bounds_too_far(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'ember.slice' op dim 0 of 'tensor<?x3xf32>': bounds 4611686018427387904:-4611686018427387904 are out of range (need |bound| <= 2^61; the end is limit -9223372036854775808)}}
  %0 = "ember.slice"(%x) {start = array<i64: 4611686018427387904, 0>, limit = array<i64: -4611686018427387904, 3>, stride = array<i64: 1, 1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @all_reduce_bool(%x: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{'ember.all_reduce' op reduces f32, f64, i32 or i64 elements, not 'i1'}}
  %0 = ember.all_reduce sum, %x : tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @all_reduce_integer_mean(%x: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{'ember.all_reduce' op mean needs floating-point elements, not 'i32'}}
  %0 = ember.all_reduce mean, %x : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @all_reduce_result_type(%x: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'ember.all_reduce' op failed to verify that all of {operand, result} have same type}}
  %0 = "ember.all_reduce"(%x) <{reduction = 0 : i32}> : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @all_reduce_unknown_reduction(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'reduction' [sum, mean, max, min]}}
  %0 = ember.all_reduce prod, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
