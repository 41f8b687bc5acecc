func.func @div_one(%x: tensor<3xi32>, %y: tensor<2xf32>) -> (tensor<3xi32>, tensor<2xf32>) {
  %one = ember.constant dense<1> : tensor<3xi32>
  %onef = ember.constant dense<1.0> : tensor<2xf32>
  %0 = ember.div %x, %one : tensor<3xi32>
  %1 = ember.div %y, %onef : tensor<2xf32>
  return %0, %1 : tensor<3xi32>, tensor<2xf32>
}
