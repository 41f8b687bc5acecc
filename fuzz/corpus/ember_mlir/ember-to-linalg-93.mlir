func.func @transpose(%x: tensor<2x3x4xi64>) -> tensor<4x2x3xi64> {
  %0 = ember.transpose %x permutation = [2, 0, 1] : tensor<2x3x4xi64> -> tensor<4x2x3xi64>
  return %0 : tensor<4x2x3xi64>
}
