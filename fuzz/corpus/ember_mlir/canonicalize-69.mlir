func.func @slice_full(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.slice %x start = [0, 0] limit = [2, 3] stride = [1, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
