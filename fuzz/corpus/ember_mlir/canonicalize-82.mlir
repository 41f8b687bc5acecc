func.func @chain_constant() -> tensor<2xf32> {
  %a = ember.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = ember.broadcast_to %a : tensor<3xf32> -> tensor<2x3xf32>
  %c = ember.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %d = ember.broadcast_to %c : tensor<2x1xf32> -> tensor<2x3xf32>
  %e = ember.mul %b, %d : tensor<2x3xf32>
  %f = ember.slice %e start = [0, 2] limit = [2, 3] stride = [1, 1] : tensor<2x3xf32> -> tensor<2x1xf32>
  %g = ember.reshape %f : tensor<2x1xf32> -> tensor<2xf32>
  return %g : tensor<2xf32>
}
