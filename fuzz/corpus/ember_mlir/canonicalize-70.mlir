func.func @concat_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.concat %x axis = 1 : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
