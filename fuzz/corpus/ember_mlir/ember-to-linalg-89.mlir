func.func @elementwise_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.add %a, %b : tensor<4xi32>
  %1 = ember.div %0, %b : tensor<4xi32>
  %2 = ember.floordiv %1, %b : tensor<4xi32>
  %3 = ember.mod %2, %b : tensor<4xi32>
  %4 = ember.pow %3, %b : tensor<4xi32>
  %5 = ember.maximum %4, %b : tensor<4xi32>
  %6 = ember.and %5, %b : tensor<4xi32>
  return %6 : tensor<4xi32>
}
