func.func @not_not(%x: tensor<4xi1>) -> tensor<4xi1> {
  %0 = ember.not %x : tensor<4xi1>
  %1 = ember.not %0 : tensor<4xi1>
  return %1 : tensor<4xi1>
}
