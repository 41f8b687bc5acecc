func.func @cast_fold_f32_to_i32() -> tensor<4xi32> {
  %a = ember.constant dense<[-2.7, 2.7, -0.5, 3.0]> : tensor<4xf32>
  %0 = ember.cast %a : tensor<4xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
