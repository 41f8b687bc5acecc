func.func @add_zero(%x: tensor<2x3xf32>, %y: tensor<4xi32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi32>) {
  %zf = ember.constant dense<0.0> : tensor<2x3xf32>
  %zi = ember.constant dense<0> : tensor<4xi32>
  %0 = ember.add %x, %zf : tensor<2x3xf32>
  %1 = ember.add %zf, %x : tensor<2x3xf32>
  %2 = ember.add %y, %zi : tensor<4xi32>
  %3 = ember.add %zi, %y : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi32>
}
