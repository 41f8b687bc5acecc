// A matmul whose operand is computed elementwise (a gradient's seed times a
// tensor, x^T (s * dz)) keeps it as a kernel of its own on the GPU
// (ember-fuse-elementwise-ops{contractions-take-moves-only}): the matmul
// still reads buffers, A transposed, so tensor cores take it. Fused into the
// matmul, it ran a thread per element of C.
// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_90 tf32=true" | FileCheck %s
// CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK: llvm.func @ember_entry_weight_gradient(
func.func @weight_gradient(%x: tensor<64x128xf32>, %s: tensor<f32>, %dz: tensor<64x64xf32>) -> tensor<128x64xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.reshape %s : tensor<f32> -> tensor<1x1xf32>
  %1 = ember.broadcast_to %0 : tensor<1x1xf32> -> tensor<64x64xf32>
  %2 = ember.mul %1, %dz : tensor<64x64xf32>
  %3 = ember.transpose %x permutation = [1, 0] : tensor<64x128xf32> -> tensor<128x64xf32>
  %4 = ember.matmul %3, %2 : tensor<128x64xf32>, tensor<64x64xf32> -> tensor<128x64xf32>
  return %4 : tensor<128x64xf32>
}
