func.func @select_no_fold(%c: tensor<3xi1>, %a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %0 = ember.select %c, %a, %b : tensor<3xi1>, tensor<3xi32>
  return %0 : tensor<3xi32>
}
