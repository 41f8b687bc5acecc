func.func @mod_fold_i64_minus_one() -> tensor<2xi64> {
  %a = ember.constant dense<[-9223372036854775808, 7]> : tensor<2xi64>
  %b = ember.constant dense<-1> : tensor<2xi64>
  %0 = ember.mod %a, %b : tensor<2xi64>
  return %0 : tensor<2xi64>
}
