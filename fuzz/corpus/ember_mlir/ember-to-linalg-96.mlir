func.func @empty_pieces(%x: tensor<0x4xf32>, %a: tensor<3xi32>, %z: tensor<0xi32>) -> (tensor<0x2xf32>, tensor<3xi32>) {
  %0 = ember.slice %x start = [0, 0] limit = [0, 4] stride = [1, 2] : tensor<0x4xf32> -> tensor<0x2xf32>
  %1 = ember.concat %z, %a, %z axis = 0 : tensor<0xi32>, tensor<3xi32>, tensor<0xi32> -> tensor<3xi32>
  return %0, %1 : tensor<0x2xf32>, tensor<3xi32>
}
