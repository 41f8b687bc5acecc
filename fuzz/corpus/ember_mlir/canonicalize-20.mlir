func.func @maximum_fold_i32() -> tensor<3xi32> {
  %a = ember.constant dense<[1, -2, 3]> : tensor<3xi32>
  %b = ember.constant dense<[0, 5, 3]> : tensor<3xi32>
  %0 = ember.maximum %a, %b : tensor<3xi32>
  return %0 : tensor<3xi32>
}
