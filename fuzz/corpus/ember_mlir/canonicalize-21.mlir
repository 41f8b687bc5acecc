func.func @maximum_fold_f32_nan() -> tensor<3xf32> {
  %a = ember.constant dense<[0x7FC00000, -1.5, 2.0]> : tensor<3xf32>
  %b = ember.constant dense<[1.0, 0x7FC00000, -2.0]> : tensor<3xf32>
  %0 = ember.maximum %a, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}
