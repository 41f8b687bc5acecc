func.func @mod_no_fold_by_zero() -> tensor<2xi32> {
  %a = ember.constant dense<[4, 5]> : tensor<2xi32>
  %b = ember.constant dense<[0, 3]> : tensor<2xi32>
  %0 = ember.mod %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}
