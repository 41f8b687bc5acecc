func.func @pooling(%x: tensor<1x5x5x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) {
  %m = ember.max_pool2d %x window = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x5x5x2xf32> -> tensor<1x3x3x2xf32>
  %a = ember.avg_pool2d %x window = [2, 2] strides = [2, 2] padding = [0, 1, 0, 1] : tensor<1x5x5x2xf32> -> tensor<1x3x3x2xf32>
  return %m, %a : tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>
}
