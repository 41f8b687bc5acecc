// Not MLIR: the error names this file and the position.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ember.add %a, %a : tensor<4xf32
  return %0 : tensor<4xf32>
}
