func.func @reduce_inits(%x: tensor<2x3xi32>, %y: tensor<2x3xf32>, %z: tensor<4xi64>) -> (tensor<i32>, tensor<3xf32>, tensor<i64>) {
  %0 = ember.reduce_max %x axes = [1, 0] : tensor<2x3xi32> -> tensor<i32>
  %1 = ember.reduce_min %y axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %2 = ember.reduce_prod %z axes = [0] : tensor<4xi64> -> tensor<i64>
  return %0, %1, %2 : tensor<i32>, tensor<3xf32>, tensor<i64>
}
