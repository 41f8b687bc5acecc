func.func @sub_fold_f32() -> tensor<2xf32> {
  %a = ember.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %b = ember.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %0 = ember.sub %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
