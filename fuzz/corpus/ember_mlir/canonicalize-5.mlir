func.func @mul_fold_i64() -> tensor<3xi64> {
  %a = ember.constant dense<[3, -4, 0]> : tensor<3xi64>
  %b = ember.constant dense<[5, 6, 7]> : tensor<3xi64>
  %0 = ember.mul %a, %b : tensor<3xi64>
  return %0 : tensor<3xi64>
}
