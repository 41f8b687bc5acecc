func.func @mod_fold_i32() -> tensor<6xi32> {
  %a = ember.constant dense<[-7, 7, -7, 7, 6, -1]> : tensor<6xi32>
  %b = ember.constant dense<[2, 2, -2, -2, 3, 5]> : tensor<6xi32>
  %0 = ember.mod %a, %b : tensor<6xi32>
  return %0 : tensor<6xi32>
}
