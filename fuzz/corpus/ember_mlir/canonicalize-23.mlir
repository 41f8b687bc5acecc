func.func @minimum_fold_i64() -> tensor<2xi64> {
  %a = ember.constant dense<[-7, 9]> : tensor<2xi64>
  %b = ember.constant dense<[3, 2]> : tensor<2xi64>
  %0 = ember.minimum %a, %b : tensor<2xi64>
  return %0 : tensor<2xi64>
}
