func.func @compare_fold_f32_nan() -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %a = ember.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %b = ember.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %0 = ember.compare lt, %a, %b : tensor<2xf32>
  %1 = ember.compare ne, %a, %b : tensor<2xf32>
  %2 = ember.compare eq, %a, %b : tensor<2xf32>
  return %0, %1, %2 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}
