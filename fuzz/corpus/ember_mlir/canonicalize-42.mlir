func.func @sign_fold() -> (tensor<3xi64>, tensor<4xf32>) {
  %a = ember.constant dense<[-7, 0, 42]> : tensor<3xi64>
  %b = ember.constant dense<[-2.5, 0.0, 3.0, 0x7FC00000]> : tensor<4xf32>
  %0 = ember.sign %a : tensor<3xi64>
  %1 = ember.sign %b : tensor<4xf32>
  return %0, %1 : tensor<3xi64>, tensor<4xf32>
}
