func.func @cast_fold_i1_to_i64() -> tensor<2xi64> {
  %a = ember.constant dense<[false, true]> : tensor<2xi1>
  %0 = ember.cast %a : tensor<2xi1> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
