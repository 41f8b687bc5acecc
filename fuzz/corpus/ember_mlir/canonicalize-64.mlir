func.func @reshape_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = ember.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = ember.reshape %0 : tensor<6xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}
