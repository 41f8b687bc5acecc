func.func @elementwise_float(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %0 = ember.floordiv %a, %b : tensor<4xf64>
  %1 = ember.mod %0, %b : tensor<4xf64>
  %2 = ember.pow %1, %b : tensor<4xf64>
  %3 = ember.minimum %2, %b : tensor<4xf64>
  %4 = ember.tanh %3 : tensor<4xf64>
  %5 = ember.sigmoid %4 : tensor<4xf64>
  return %5 : tensor<4xf64>
}
