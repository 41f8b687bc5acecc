func.func @abs_fold() -> (tensor<3xi64>, tensor<2xf32>) {
  %a = ember.constant dense<[-3, 4, 0]> : tensor<3xi64>
  %b = ember.constant dense<[-1.5, 2.0]> : tensor<2xf32>
  %0 = ember.abs %a : tensor<3xi64>
  %1 = ember.abs %b : tensor<2xf32>
  return %0, %1 : tensor<3xi64>, tensor<2xf32>
}
