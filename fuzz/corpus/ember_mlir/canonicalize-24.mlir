func.func @and_or_fold_i1() -> (tensor<4xi1>, tensor<4xi1>) {
  %a = ember.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b = ember.constant dense<[true, false, true, false]> : tensor<4xi1>
  %0 = ember.and %a, %b : tensor<4xi1>
  %1 = ember.or %a, %b : tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}
