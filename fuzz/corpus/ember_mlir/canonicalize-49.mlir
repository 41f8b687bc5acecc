func.func @cast_fold_ints() -> (tensor<2xi32>, tensor<2xi64>, tensor<2xf64>) {
  %a = ember.constant dense<[4294967297, 4294967295]> : tensor<2xi64>
  %b = ember.constant dense<[-5, 2147483647]> : tensor<2xi32>
  %0 = ember.cast %a : tensor<2xi64> -> tensor<2xi32>
  %1 = ember.cast %b : tensor<2xi32> -> tensor<2xi64>
  %c = ember.constant dense<[-5, 1000]> : tensor<2xi32>
  %2 = ember.cast %c : tensor<2xi32> -> tensor<2xf64>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi64>, tensor<2xf64>
}
