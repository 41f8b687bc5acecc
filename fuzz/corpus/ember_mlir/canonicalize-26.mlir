func.func @compare_fold_i32() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = ember.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = ember.constant dense<[2, 2, 2]> : tensor<3xi32>
  %0 = ember.compare eq, %a, %b : tensor<3xi32>
  %1 = ember.compare ne, %a, %b : tensor<3xi32>
  %2 = ember.compare lt, %a, %b : tensor<3xi32>
  %3 = ember.compare le, %a, %b : tensor<3xi32>
  %4 = ember.compare gt, %a, %b : tensor<3xi32>
  %5 = ember.compare ge, %a, %b : tensor<3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}
