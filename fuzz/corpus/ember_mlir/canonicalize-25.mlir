func.func @and_or_fold_i32() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = ember.constant dense<[12, -1]> : tensor<2xi32>
  %b = ember.constant dense<[10, 6]> : tensor<2xi32>
  %c = ember.constant dense<[12, -8]> : tensor<2xi32>
  %d = ember.constant dense<[10, 3]> : tensor<2xi32>
  %0 = ember.and %a, %b : tensor<2xi32>
  %1 = ember.or %c, %d : tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}
