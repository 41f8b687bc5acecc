func.func @reduce_no_fold(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = ember.reduce_sum %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
