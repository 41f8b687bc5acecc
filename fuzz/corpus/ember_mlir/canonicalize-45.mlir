func.func @cast_fold_out_of_range() -> (tensor<5xi32>, tensor<3xi64>) {
  %a = ember.constant dense<[1.0e10, -1.0e10, 0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<5xf32>
  %b = ember.constant dense<[1.0e300, -1.0e300, 0x7FF8000000000000]> : tensor<3xf64>
  %0 = ember.cast %a : tensor<5xf32> -> tensor<5xi32>
  %1 = ember.cast %b : tensor<3xf64> -> tensor<3xi64>
  return %0, %1 : tensor<5xi32>, tensor<3xi64>
}
