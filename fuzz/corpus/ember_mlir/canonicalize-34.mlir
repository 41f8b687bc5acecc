func.func @neg_fold() -> (tensor<4xi32>, tensor<2xf64>) {
  %a = ember.constant dense<[1, -2, 0, -2147483648]> : tensor<4xi32>
  %b = ember.constant dense<[1.5, -2.0]> : tensor<2xf64>
  %0 = ember.neg %a : tensor<4xi32>
  %1 = ember.neg %b : tensor<2xf64>
  return %0, %1 : tensor<4xi32>, tensor<2xf64>
}
