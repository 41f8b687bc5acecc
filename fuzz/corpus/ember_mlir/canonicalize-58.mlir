func.func @same_operands(%x: tensor<3xf32>, %y: tensor<3xi1>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xi1>) {
  %0 = ember.maximum %x, %x : tensor<3xf32>
  %1 = ember.minimum %x, %x : tensor<3xf32>
  %2 = ember.and %y, %y : tensor<3xi1>
  %3 = ember.or %y, %y : tensor<3xi1>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xi1>
}
