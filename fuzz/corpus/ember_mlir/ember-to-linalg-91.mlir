func.func @broadcast_to(%x: tensor<2x1xf32>) -> tensor<4x2x3xf32> {
  %0 = ember.broadcast_to %x : tensor<2x1xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}
