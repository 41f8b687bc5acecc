func.func @cast(%a: tensor<4xf32>, %b: tensor<4xi1>, %c: tensor<4xi64>)
    -> (tensor<4xi32>, tensor<4xi64>, tensor<4xi1>, tensor<4xf64>, tensor<4xi32>) {
  %0 = ember.cast %a : tensor<4xf32> -> tensor<4xi32>
  %1 = ember.cast %b : tensor<4xi1> -> tensor<4xi64>
  %2 = ember.cast %a : tensor<4xf32> -> tensor<4xi1>
  %3 = ember.cast %b : tensor<4xi1> -> tensor<4xf64>
  %4 = ember.cast %c : tensor<4xi64> -> tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xi64>, tensor<4xi1>, tensor<4xf64>, tensor<4xi32>
}
