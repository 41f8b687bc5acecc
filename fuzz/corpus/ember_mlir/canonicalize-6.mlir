func.func @mul_fold_f32() -> tensor<2xf32> {
  %a = ember.constant dense<[1.5, 0.5]> : tensor<2xf32>
  %b = ember.constant dense<[-2.0, 0.5]> : tensor<2xf32>
  %0 = ember.mul %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
