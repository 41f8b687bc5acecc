func.func @max_pool_grad(%x: tensor<1x4x4x2xf32>, %dy: tensor<1x2x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = ember.max_pool2d_grad %x, %dy window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32> -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}
