// RUN: ember-opt %s --ember-lower-to-llvm --mlir-print-ir-after=ember-cpu-lower-matmuls 2>&1 >/dev/null | FileCheck %s
// RUN: ember-opt %s "--ember-lower-to-llvm=vector-bits=512" --mlir-print-ir-after=ember-cpu-lower-matmuls 2>&1 >/dev/null | FileCheck %s --check-prefix=AVX512

// The pipeline sizes blocked matmuls to the target's vector registers (the
// JIT passes the host's width): two registers per row of accumulators.
// CHECK:  vector.transfer_write {{.*}} : vector<6x16xf32>, tensor<64x256xf32>
// AVX512: vector.transfer_write {{.*}} : vector<6x32xf32>, tensor<64x256xf32>
func.func @layer(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = ember.matmul %x, %w : tensor<64x128xf32>, tensor<128x256xf32> -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
