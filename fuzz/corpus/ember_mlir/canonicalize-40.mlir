func.func @relu_fold() -> (tensor<3xi32>, tensor<2xf32>) {
  %a = ember.constant dense<[-1, 0, 5]> : tensor<3xi32>
  %b = ember.constant dense<[-1.5, 2.5]> : tensor<2xf32>
  %0 = ember.relu %a : tensor<3xi32>
  %1 = ember.relu %b : tensor<2xf32>
  return %0, %1 : tensor<3xi32>, tensor<2xf32>
}
