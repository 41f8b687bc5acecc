func.func @argmax_size1_axis(%x: tensor<3x1xf32>, %y: tensor<1x4xi32>) -> (tensor<3xi64>, tensor<1x4xi64>) {
  %0 = ember.argmax %x axis = 1 : tensor<3x1xf32> -> tensor<3xi64>
  %1 = ember.argmax %y axis = 0 keepdims : tensor<1x4xi32> -> tensor<1x4xi64>
  return %0, %1 : tensor<3xi64>, tensor<1x4xi64>
}
