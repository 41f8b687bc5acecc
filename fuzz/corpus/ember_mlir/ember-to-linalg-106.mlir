func.func @compare(%a: tensor<4xf32>, %b: tensor<4xi32>, %c: tensor<4xi1>, %d: tensor<4xi64>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = ember.compare lt, %a, %a : tensor<4xf32>
  %1 = ember.compare lt, %b, %b : tensor<4xi32>
  %2 = ember.compare lt, %c, %c : tensor<4xi1>
  %3 = ember.compare ne, %a, %a : tensor<4xf32>
  %4 = ember.compare ge, %d, %d : tensor<4xi64>
  return %0, %1, %2, %3, %4 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
