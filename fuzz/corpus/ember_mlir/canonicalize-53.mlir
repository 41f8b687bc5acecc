func.func @sub_zero_lhs_no_fold(%x: tensor<4xi64>) -> tensor<4xi64> {
  %z = ember.constant dense<0> : tensor<4xi64>
  %0 = ember.sub %z, %x : tensor<4xi64>
  return %0 : tensor<4xi64>
}
