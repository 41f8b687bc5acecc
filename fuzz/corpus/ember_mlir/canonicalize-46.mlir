func.func @cast_fold_i1_to_f32() -> tensor<2xf32> {
  %a = ember.constant dense<[true, false]> : tensor<2xi1>
  %0 = ember.cast %a : tensor<2xi1> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
