func.func @reshape(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3x1xf32>, tensor<3x2xf32>) {
  %0 = ember.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = ember.reshape %x : tensor<2x3xf32> -> tensor<2x3x1xf32>
  %2 = ember.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<2x3x1xf32>, tensor<3x2xf32>
}
