func.func @cast_fold_floats() -> (tensor<2xf32>, tensor<2xf64>) {
  %a = ember.constant dense<[0.1, -2.5]> : tensor<2xf64>
  %b = ember.constant dense<[0.1, -2.5]> : tensor<2xf32>
  %0 = ember.cast %a : tensor<2xf64> -> tensor<2xf32>
  %1 = ember.cast %b : tensor<2xf32> -> tensor<2xf64>
  return %0, %1 : tensor<2xf32>, tensor<2xf64>
}
