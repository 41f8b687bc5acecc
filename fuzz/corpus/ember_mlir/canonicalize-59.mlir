func.func @neg_neg(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = ember.neg %x : tensor<2x2xf32>
  %1 = ember.neg %0 : tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
