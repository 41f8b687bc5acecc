// A step of a data-parallel program: this process's gradient averaged over
// every process (ember.all_reduce), scaled; compiled by
// ember-compile-all-reduce.test.
func.func @average(%g: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.all_reduce mean, %g : tensor<2x3xf32>
  %1 = ember.add %0, %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
