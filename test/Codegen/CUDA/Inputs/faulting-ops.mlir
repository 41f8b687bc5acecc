// Ops whose kernels can fault (lower-fault-reports.mlir).
func.func @divide(%a: tensor<64xi32>, %b: tensor<64xi32>) -> tensor<64xi32> attributes {llvm.emit_c_interface} {
  %0 = ember.div %a, %b {ember.fault_site = 3 : i32} : tensor<64xi32>
  return %0 : tensor<64xi32>
}
func.func @pick(%t: tensor<5x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.gather %t, %i axis = 0 {ember.fault_site = 7 : i32} : tensor<5x4xf32>, tensor<3xi32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
