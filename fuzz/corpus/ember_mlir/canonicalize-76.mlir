func.func @reshape_constant() -> tensor<3x2xi64> {
  %a = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = ember.reshape %a : tensor<2x3xi64> -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}
