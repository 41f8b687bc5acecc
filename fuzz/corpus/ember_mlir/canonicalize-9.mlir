func.func @div_no_fold_by_zero() -> tensor<2xi32> {
  %a = ember.constant dense<[1, 2]> : tensor<2xi32>
  %b = ember.constant dense<[0, 1]> : tensor<2xi32>
  %0 = ember.div %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}
