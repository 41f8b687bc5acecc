// Two batches of any size, which must be equal (the add), through a dense
// layer: ember-compile's header checks the sizes and gives the result's.
func.func @dense_sum(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>, %w: tensor<3x2xf32>) -> tensor<?x2xf32> {
  %0 = ember.add %x, %y : tensor<?x3xf32>
  %1 = ember.matmul %0, %w : tensor<?x3xf32>, tensor<3x2xf32> -> tensor<?x2xf32>
  return %1 : tensor<?x2xf32>
}
