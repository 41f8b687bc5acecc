func.func @broadcast_to_constant() -> (tensor<2x3xi32>, tensor<1x2x3xf32>, tensor<2x2xi1>) {
  %a = ember.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = ember.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %c = ember.constant dense<true> : tensor<i1>
  %0 = ember.broadcast_to %a : tensor<3xi32> -> tensor<2x3xi32>
  %1 = ember.broadcast_to %b : tensor<2x1xf32> -> tensor<1x2x3xf32>
  %2 = ember.broadcast_to %c : tensor<i1> -> tensor<2x2xi1>
  return %0, %1, %2 : tensor<2x3xi32>, tensor<1x2x3xf32>, tensor<2x2xi1>
}
