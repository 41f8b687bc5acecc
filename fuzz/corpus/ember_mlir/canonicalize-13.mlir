func.func @floordiv_no_fold_by_zero() -> tensor<2xi64> {
  %a = ember.constant dense<[4, 5]> : tensor<2xi64>
  %b = ember.constant dense<[2, 0]> : tensor<2xi64>
  %0 = ember.floordiv %a, %b : tensor<2xi64>
  return %0 : tensor<2xi64>
}
