func.func @transpose_constant() -> (tensor<3x2xi32>, tensor<4x2x2xi32>) {
  %a = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %b = ember.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7]], [[8, 9, 10, 11], [12, 13, 14, 15]]]> : tensor<2x2x4xi32>
  %0 = ember.transpose %a permutation = [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %1 = ember.transpose %b permutation = [2, 0, 1] : tensor<2x2x4xi32> -> tensor<4x2x2xi32>
  return %0, %1 : tensor<3x2xi32>, tensor<4x2x2xi32>
}
