func.func @pow_fold_f32() -> tensor<3xf32> {
  %a = ember.constant dense<[2.0, 4.0, -2.0]> : tensor<3xf32>
  %b = ember.constant dense<[0.5, -1.0, 3.0]> : tensor<3xf32>
  %0 = ember.pow %a, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}
