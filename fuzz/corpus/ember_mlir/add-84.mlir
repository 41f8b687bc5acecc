func.func @add_mul(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = ember.add %a, %b : tensor<4x8xf32>
  %1 = ember.mul %0, %a : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
