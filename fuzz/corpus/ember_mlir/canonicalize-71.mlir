func.func @reduce_empty_axes(%x: tensor<2x3xf32>, %y: tensor<4xi32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi32>, tensor<2x3xf32>) {
  %0 = ember.reduce_sum %x axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = ember.reduce_max %x axes = [] keepdims : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = ember.reduce_min %y axes = [] : tensor<4xi32> -> tensor<4xi32>
  %3 = ember.reduce_prod %y axes = [] : tensor<4xi32> -> tensor<4xi32>
  %4 = ember.reduce_mean %x axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<4xi32>, tensor<2x3xf32>
}
