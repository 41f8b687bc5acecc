// A `?` dim reaching an op whose sizes ember cannot follow yet: refused up
// front, naming the op.
func.func @f(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = ember.concat %a, %a axis = 0 : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
