func.func @gather_constant() -> (tensor<3xf32>, tensor<2x2x2xi64>) {
  %a = ember.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %i = ember.constant dense<[-1, 0, 2]> : tensor<3xi32>
  %b = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %j = ember.constant dense<[[-1, 0], [0, 1]]> : tensor<2x2xi64>
  %0 = ember.gather %a, %i axis = 0 : tensor<4xf32>, tensor<3xi32> -> tensor<3xf32>
  %1 = ember.gather %b, %j axis = 1 : tensor<2x3xi64>, tensor<2x2xi64> -> tensor<2x2x2xi64>
  return %0, %1 : tensor<3xf32>, tensor<2x2x2xi64>
}
