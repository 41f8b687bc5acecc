// Sizes that are not an argument's: the rows of x and y stacked (a sum),
// x's rows in pairs (half its rows, whose count must be even), and x's rows
// after the first (one fewer, and there must be one).
func.func @stack_pairs(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x2x3xf32>, tensor<?x3xf32>) {
  %0 = ember.concat %x, %y axis = 0 : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  %1 = ember.reshape %x : tensor<?x3xf32> -> tensor<?x2x3xf32>
  %2 = ember.slice %x start = [1, 0] limit = [-9223372036854775808, 3] stride = [1, 1] : tensor<?x3xf32> -> tensor<?x3xf32>
  return %0, %1, %2 : tensor<?x3xf32>, tensor<?x2x3xf32>, tensor<?x3xf32>
}
