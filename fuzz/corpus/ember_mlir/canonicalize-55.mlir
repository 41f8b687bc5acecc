func.func @mul_two_no_fold(%x: tensor<3xi32>) -> tensor<3xi32> {
  %two = ember.constant dense<2> : tensor<3xi32>
  %0 = ember.mul %x, %two : tensor<3xi32>
  return %0 : tensor<3xi32>
}
