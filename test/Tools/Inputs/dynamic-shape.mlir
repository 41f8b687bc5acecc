// A `?` dim reaching an op whose sizes ember cannot follow yet: refused up
// front, naming the op.
func.func @f(%a: tensor<?x3xf32>) -> tensor<?xi64> {
  %0 = ember.argmax %a axis = 1 : tensor<?x3xf32> -> tensor<?xi64>
  return %0 : tensor<?xi64>
}
