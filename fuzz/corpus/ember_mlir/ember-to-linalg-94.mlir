func.func @slice(%x: tensor<5x6xf32>) -> tensor<2x2xf32> {
  %0 = ember.slice %x start = [1, 0] limit = [5, 6] stride = [2, 4] : tensor<5x6xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
