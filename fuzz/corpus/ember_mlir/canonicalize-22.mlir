func.func @minimum_fold_f64() -> tensor<3xf64> {
  %a = ember.constant dense<[-2.0, 0x7FF8000000000000, 1.0]> : tensor<3xf64>
  %b = ember.constant dense<[3.0, 1.0, 4.0]> : tensor<3xf64>
  %0 = ember.minimum %a, %b : tensor<3xf64>
  return %0 : tensor<3xf64>
}
