func.func @broadcast_to_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.broadcast_to %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
