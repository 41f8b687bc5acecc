func.func @sub_zero(%x: tensor<4xi64>) -> tensor<4xi64> {
  %z = ember.constant dense<0> : tensor<4xi64>
  %0 = ember.sub %x, %z : tensor<4xi64>
  return %0 : tensor<4xi64>
}
