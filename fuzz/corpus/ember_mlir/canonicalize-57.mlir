func.func @pow_one(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = ember.constant dense<1.0> : tensor<3xf32>
  %0 = ember.pow %x, %one : tensor<3xf32>
  return %0 : tensor<3xf32>
}
