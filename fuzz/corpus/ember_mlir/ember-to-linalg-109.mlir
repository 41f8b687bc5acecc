func.func @conv2d(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>) -> tensor<2x7x5x4xf32> {
  %0 = ember.conv2d %x, %w strides = [2, 1] dilations = [1, 1] input_dilations = [2, 1] padding = [1, 1, 0, 0] : tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32> -> tensor<2x7x5x4xf32>
  return %0 : tensor<2x7x5x4xf32>
}
