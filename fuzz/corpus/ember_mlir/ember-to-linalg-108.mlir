func.func @unary_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.neg %x : tensor<4xi32>
  %1 = ember.not %0 : tensor<4xi32>
  return %1 : tensor<4xi32>
}
