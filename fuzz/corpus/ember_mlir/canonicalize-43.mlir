func.func @not_fold() -> (tensor<2xi1>, tensor<3xi32>) {
  %a = ember.constant dense<[true, false]> : tensor<2xi1>
  %b = ember.constant dense<[0, -1, 5]> : tensor<3xi32>
  %0 = ember.not %a : tensor<2xi1>
  %1 = ember.not %b : tensor<3xi32>
  return %0, %1 : tensor<2xi1>, tensor<3xi32>
}
