// A float32 matmul whose rows are whole 16-byte chunks: TF32 tensor cores
// take it with ember-compile --target=cuda --tf32.
func.func @project(%x: tensor<64x128xf32>, %w: tensor<128x96xf32>) -> tensor<64x96xf32> {
  %0 = ember.matmul %x, %w : tensor<64x128xf32>, tensor<128x96xf32> -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}
