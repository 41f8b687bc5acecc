func.func @add_f32(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
