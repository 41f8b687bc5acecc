func.func @argmax_no_fold(%x: tensor<3x2xf32>) -> tensor<3xi64> {
  %0 = ember.argmax %x axis = 1 : tensor<3x2xf32> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
