func.func @sin_cos_fold() -> (tensor<3xf64>, tensor<3xf64>) {
  %a = ember.constant dense<[0.0, 1.5707963267948966, 1.0]> : tensor<3xf64>
  %0 = ember.sin %a : tensor<3xf64>
  %1 = ember.cos %a : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}
