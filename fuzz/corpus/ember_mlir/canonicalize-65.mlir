func.func @reshape_reshape_back(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %0 = ember.reshape %x : tensor<2x3xi64> -> tensor<6x1xi64>
  %1 = ember.reshape %0 : tensor<6x1xi64> -> tensor<2x3xi64>
  return %1 : tensor<2x3xi64>
}
