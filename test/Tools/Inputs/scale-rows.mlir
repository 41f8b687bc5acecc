// 2 * x + (the sum of x's row) on 1024x256 float32: enough work for the
// rows to run on several threads. Compiled by ember-compile-parallel.test.
func.func @scale_rows(%x: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %c2 = ember.constant dense<2.0> : tensor<1024x256xf32>
  %0 = ember.mul %x, %c2 : tensor<1024x256xf32>
  %1 = ember.reduce_sum %x axes = [1] keepdims : tensor<1024x256xf32> -> tensor<1024x1xf32>
  %2 = ember.broadcast_to %1 : tensor<1024x1xf32> -> tensor<1024x256xf32>
  %3 = ember.add %0, %2 : tensor<1024x256xf32>
  return %3 : tensor<1024x256xf32>
}
