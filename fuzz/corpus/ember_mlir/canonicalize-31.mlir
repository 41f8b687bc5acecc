func.func @select_splat_false(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %c = ember.constant dense<false> : tensor<3xi1>
  %0 = ember.select %c, %a, %b : tensor<3xi1>, tensor<3xi32>
  return %0 : tensor<3xi32>
}
