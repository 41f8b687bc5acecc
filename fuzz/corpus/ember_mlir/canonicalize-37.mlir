func.func @sqrt_rsqrt_fold() -> (tensor<3xf32>, tensor<2xf32>) {
  %a = ember.constant dense<[4.0, 2.0, 0.0]> : tensor<3xf32>
  %b = ember.constant dense<[4.0, 16.0]> : tensor<2xf32>
  %0 = ember.sqrt %a : tensor<3xf32>
  %1 = ember.rsqrt %b : tensor<2xf32>
  return %0, %1 : tensor<3xf32>, tensor<2xf32>
}
