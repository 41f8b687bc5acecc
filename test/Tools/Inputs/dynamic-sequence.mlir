// A sequence batch [B, T, 3]: merged into B * T rows (a product of two
// arguments' dims), and rows split into [b, t] taken from another argument
// (the element counts must agree).
func.func @merge_steps(%x: tensor<?x?x3xf32>) -> tensor<?x3xf32> {
  %0 = ember.reshape %x : tensor<?x?x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

func.func @split_rows(%x: tensor<?x2xf32>, %like: tensor<?x?xf32>) -> tensor<?x?x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %like, %c0 : tensor<?x?xf32>
  %t = tensor.dim %like, %c1 : tensor<?x?xf32>
  %0 = ember.reshape %x [%b, %t] : tensor<?x2xf32> -> tensor<?x?x2xf32>
  return %0 : tensor<?x?x2xf32>
}
