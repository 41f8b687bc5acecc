func.func @argmax(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = ember.argmax %x axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
