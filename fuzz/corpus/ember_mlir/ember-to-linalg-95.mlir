func.func @concat(%a: tensor<2x3xi32>, %b: tensor<2x1xi32>, %c: tensor<2x2xi32>) -> tensor<2x6xi32> {
  %0 = ember.concat %a, %b, %c axis = 1 : tensor<2x3xi32>, tensor<2x1xi32>, tensor<2x2xi32> -> tensor<2x6xi32>
  return %0 : tensor<2x6xi32>
}
