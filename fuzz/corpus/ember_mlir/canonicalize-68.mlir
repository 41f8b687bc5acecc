func.func @transpose_transpose_inverse(%x: tensor<2x3x4xi32>) -> tensor<2x3x4xi32> {
  %0 = ember.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xi32> -> tensor<3x4x2xi32>
  %1 = ember.transpose %0 permutation = [2, 0, 1] : tensor<3x4x2xi32> -> tensor<2x3x4xi32>
  return %1 : tensor<2x3x4xi32>
}
