func.func @argmax_keepdims(%x: tensor<2x3xi32>) -> tensor<1x3xi64> {
  %0 = ember.argmax %x axis = 0 keepdims : tensor<2x3xi32> -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}
