func.func @slice_constant() -> tensor<2x2xf32> {
  %a = ember.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]> : tensor<4x4xf32>
  %0 = ember.slice %a start = [1, 1] limit = [4, 4] stride = [2, 2] : tensor<4x4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
