func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = ember.gather %x, %i axis = 0 : tensor<5x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
