func.func @select_constant(%c: tensor<2xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  %k = ember.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = ember.select %c, %a, %k : tensor<2xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}
