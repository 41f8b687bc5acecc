func.func @div_fold_i32() -> tensor<4xi32> {
  %a = ember.constant dense<[-7, 7, -7, 7]> : tensor<4xi32>
  %b = ember.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
  %0 = ember.div %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}
