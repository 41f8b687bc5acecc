func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = ember.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = ember.transpose %0 permutation = [1, 0, 2] : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  return %1 : tensor<4x3x2xf32>
}
