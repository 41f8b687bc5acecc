// A dynamic dimension: refused up front, naming the function and the type.
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = ember.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
