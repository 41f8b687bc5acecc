func.func @add_fold_i32() -> tensor<4xi32> {
  %a = ember.constant dense<[1, 2, 3, 2147483647]> : tensor<4xi32>
  %b = ember.constant dense<[10, 20, -30, 1]> : tensor<4xi32>
  %0 = ember.add %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}
