// A `?` dim reaching an op whose sizes ember cannot follow yet: refused up
// front, naming the op.
func.func @f(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
  ember.print %a message = "a" : tensor<?x3xf32>
  return %a : tensor<?x3xf32>
}
