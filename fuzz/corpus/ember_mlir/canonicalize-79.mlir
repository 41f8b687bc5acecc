func.func @concat_constant() -> (tensor<2x3xi32>, tensor<3x2xi32>) {
  %a = ember.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %b = ember.constant dense<[[7], [8]]> : tensor<2x1xi32>
  %c = ember.constant dense<9> : tensor<1x2xi32>
  %0 = ember.concat %a, %b axis = 1 : tensor<2x2xi32>, tensor<2x1xi32> -> tensor<2x3xi32>
  %1 = ember.concat %a, %c axis = 0 : tensor<2x2xi32>, tensor<1x2xi32> -> tensor<3x2xi32>
  return %0, %1 : tensor<2x3xi32>, tensor<3x2xi32>
}
