func.func @select_fold_constants() -> tensor<3xf32> {
  %c = ember.constant dense<[true, false, true]> : tensor<3xi1>
  %a = ember.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = ember.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = ember.select %c, %a, %b : tensor<3xi1>, tensor<3xf32>
  return %0 : tensor<3xf32>
}
