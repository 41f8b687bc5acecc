func.func @compare_fold_i1() -> tensor<4xi1> {
  %a = ember.constant dense<[false, true, false, true]> : tensor<4xi1>
  %b = ember.constant dense<[true, false, false, true]> : tensor<4xi1>
  %0 = ember.compare lt, %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}
