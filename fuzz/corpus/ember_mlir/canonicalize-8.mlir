func.func @div_fold_f32() -> tensor<2xf32> {
  %a = ember.constant dense<[1.0, -3.0]> : tensor<2xf32>
  %b = ember.constant dense<[4.0, 2.0]> : tensor<2xf32>
  %0 = ember.div %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
