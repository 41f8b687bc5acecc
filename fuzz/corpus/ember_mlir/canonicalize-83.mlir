func.func @pool_identity(%x: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>) {
  %0 = ember.max_pool2d %x window = [1, 1] strides = [1, 1] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32> -> tensor<1x4x4x2xf32>
  %1 = ember.avg_pool2d %x window = [1, 1] strides = [1, 1] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32> -> tensor<1x4x4x2xf32>
  %2 = ember.max_pool2d %x window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
  return %0, %1, %2 : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>
}
