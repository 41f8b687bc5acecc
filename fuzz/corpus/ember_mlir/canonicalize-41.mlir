func.func @square_fold() -> (tensor<3xi32>, tensor<2xf64>) {
  %a = ember.constant dense<[3, -4, 65536]> : tensor<3xi32>
  %b = ember.constant dense<[-1.5, 0.5]> : tensor<2xf64>
  %0 = ember.square %a : tensor<3xi32>
  %1 = ember.square %b : tensor<2xf64>
  return %0, %1 : tensor<3xi32>, tensor<2xf64>
}
