func.func @mul_one(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %one = ember.constant dense<1.0> : tensor<3xf64>
  %0 = ember.mul %x, %one : tensor<3xf64>
  %1 = ember.mul %one, %x : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}
