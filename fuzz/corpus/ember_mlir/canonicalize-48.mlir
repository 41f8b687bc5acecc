func.func @cast_fold_to_i1() -> (tensor<3xi1>, tensor<4xi1>) {
  %a = ember.constant dense<[0, 5, -1]> : tensor<3xi32>
  %b = ember.constant dense<[0.0, 0.25, -3.0, 0x7FC00000]> : tensor<4xf32>
  %0 = ember.cast %a : tensor<3xi32> -> tensor<3xi1>
  %1 = ember.cast %b : tensor<4xf32> -> tensor<4xi1>
  return %0, %1 : tensor<3xi1>, tensor<4xi1>
}
