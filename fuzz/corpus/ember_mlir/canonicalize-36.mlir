func.func @exp_log_fold() -> (tensor<3xf32>, tensor<3xf32>, tensor<2xf64>) {
  %a = ember.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %b = ember.constant dense<[1.0, 0.5, 0.0]> : tensor<3xf32>
  %c = ember.constant dense<[0.0, 1.0]> : tensor<2xf64>
  %0 = ember.exp %a : tensor<3xf32>
  %1 = ember.log %b : tensor<3xf32>
  %2 = ember.log1p %c : tensor<2xf64>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<2xf64>
}
