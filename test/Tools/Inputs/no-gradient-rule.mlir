// A function to differentiate that uses an op without a gradient rule:
// ember-autodiff fails on it.
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> attributes {ember.differentiate} {
  %0 = arith.negf %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
