func.func @cast_same_type(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.cast %x : tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
