func.func @chain(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = ember.matmul %x, %y : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %1 = ember.matmul %0, %y : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %2 = ember.matmul %1, %y : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %3 = ember.relu %2 : tensor<64x64xf32>
  return %3 : tensor<64x64xf32>
}
