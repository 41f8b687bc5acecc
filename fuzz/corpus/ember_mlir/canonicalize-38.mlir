func.func @tanh_sigmoid_fold() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = ember.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %0 = ember.tanh %a : tensor<3xf32>
  %1 = ember.sigmoid %a : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
