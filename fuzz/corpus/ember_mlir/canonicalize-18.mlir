func.func @pow_fold_i32() -> tensor<8xi32> {
  %a = ember.constant dense<[2, 3, -2, 2, 1, -1, -1, 0]> : tensor<8xi32>
  %b = ember.constant dense<[10, 2, 3, -1, -5, -3, -4, 0]> : tensor<8xi32>
  %0 = ember.pow %a, %b : tensor<8xi32>
  return %0 : tensor<8xi32>
}
