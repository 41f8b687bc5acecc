func.func @sub_fold_i64() -> tensor<2xi64> {
  %a = ember.constant dense<[5, -9223372036854775808]> : tensor<2xi64>
  %b = ember.constant dense<[10, 1]> : tensor<2xi64>
  %0 = ember.sub %a, %b : tensor<2xi64>
  return %0 : tensor<2xi64>
}
