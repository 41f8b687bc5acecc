func.func @mod_fold_f32() -> tensor<4xf32> {
  %a = ember.constant dense<[-7.5, 7.5, -7.5, 7.5]> : tensor<4xf32>
  %b = ember.constant dense<[2.0, 2.0, -2.0, -2.0]> : tensor<4xf32>
  %0 = ember.mod %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
