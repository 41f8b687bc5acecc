func.func @reduce_mean(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = ember.reduce_mean %x axes = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
