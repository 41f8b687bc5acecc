func.func @batch_matmul_rank4(%a: tensor<5x2x3x4xi64>, %b: tensor<5x2x4x6xi64>) -> tensor<5x2x3x6xi64> {
  %0 = ember.matmul %a, %b : tensor<5x2x3x4xi64>, tensor<5x2x4x6xi64> -> tensor<5x2x3x6xi64>
  return %0 : tensor<5x2x3x6xi64>
}
