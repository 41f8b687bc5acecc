func.func @gather_constant_scalar_index() -> tensor<2xi32> {
  %a = ember.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %i = ember.constant dense<-2> : tensor<i64>
  %0 = ember.gather %a, %i axis = 1 : tensor<2x3xi32>, tensor<i64> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
