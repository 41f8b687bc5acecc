func.func @add_fold_f64() -> tensor<2xf64> {
  %a = ember.constant dense<[1.5, -0.5]> : tensor<2xf64>
  %b = ember.constant dense<[0.25, 0.25]> : tensor<2xf64>
  %0 = ember.add %a, %b : tensor<2xf64>
  return %0 : tensor<2xf64>
}
