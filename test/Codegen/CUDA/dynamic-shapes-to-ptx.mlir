// `?` dims on the GPU (issue 25): kernels take memref descriptors
// (bare-pointers=false; ember-compile and the JIT choose it for modules with
// `?` dims), their grids sized from the run-time sizes; every class of op
// compiles to PTX that ptxas accepts. A buffer that bufferization left
// behind with a `?` size (a reduction's first init) is not kept on the host.
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root ember-opt %s "--ember-lower-to-nvvm=chip=sm_90 format=bin bare-pointers=false" | FileCheck %s
// RUN: not ember-opt %s "--ember-lower-to-nvvm=chip=sm_90" 2>&1 | FileCheck %s --check-prefix=BARE

// BARE: error: failed to legalize operation 'gpu.func'

// Matmuls with a `?` M (a batch) are tiled: float32 on the CUDA cores,
// bfloat16 on tensor cores.
// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_90 bare-pointers=false" | FileCheck %s --check-prefix=TILES
// TILES-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// TILES-DAG: ld.shared.v4.b32

// CHECK-DAG: llvm.func @ember_entry_elementwise(
func.func @elementwise(%a: tensor<?x64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x64xf32>
  %bb = ember.broadcast_to %b [%n] : tensor<64xf32> -> tensor<?x64xf32>
  %0 = ember.add %a, %bb : tensor<?x64xf32>
  %1 = ember.exp %0 : tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}

// CHECK-DAG: llvm.func @ember_entry_reductions(
func.func @reductions(%a: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<f32>) attributes {llvm.emit_c_interface} {
  %0 = ember.reduce_sum %a axes = [1] : tensor<?x?xf32> -> tensor<?xf32>
  %1 = ember.reduce_max %a axes = [0] : tensor<?x?xf32> -> tensor<?xf32>
  %2 = ember.reduce_sum %a axes = [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<?xf32>, tensor<?xf32>, tensor<f32>
}

// CHECK-DAG: llvm.func @ember_entry_softmax(
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %columns = tensor.dim %x, %c1 : tensor<?x?xf32>
  %0 = ember.reduce_max %x axes = [1] keepdims : tensor<?x?xf32> -> tensor<?x1xf32>
  %1 = ember.broadcast_to %0 [%rows, %columns] : tensor<?x1xf32> -> tensor<?x?xf32>
  %2 = ember.sub %x, %1 : tensor<?x?xf32>
  %3 = ember.exp %2 : tensor<?x?xf32>
  %4 = ember.reduce_sum %3 axes = [1] keepdims : tensor<?x?xf32> -> tensor<?x1xf32>
  %5 = ember.broadcast_to %4 [%rows, %columns] : tensor<?x1xf32> -> tensor<?x?xf32>
  %6 = ember.div %3, %5 : tensor<?x?xf32>
  return %6 : tensor<?x?xf32>
}

// CHECK-DAG: llvm.func @ember_entry_matmuls(
func.func @matmuls(%a: tensor<?x784xf32>, %w: tensor<784x256xf32>, %h: tensor<?x128xbf16>, %v: tensor<128x64xbf16>) -> (tensor<?x256xf32>, tensor<?x64xbf16>) attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %w : tensor<?x784xf32>, tensor<784x256xf32> -> tensor<?x256xf32>
  %1 = ember.matmul %h, %v : tensor<?x128xbf16>, tensor<128x64xbf16> -> tensor<?x64xbf16>
  return %0, %1 : tensor<?x256xf32>, tensor<?x64xbf16>
}

// A scatter of a `?` batch of rows.
// CHECK-DAG: llvm.func @ember_entry_scatter(
func.func @scatter(%a: tensor<?x4xi64>, %i: tensor<?xi64>, %u: tensor<?x4xi64>) -> tensor<?x4xi64> attributes {llvm.emit_c_interface} {
  %0 = ember.scatter update, %a, %i, %u axis = 0 : tensor<?x4xi64>, tensor<?xi64>, tensor<?x4xi64> -> tensor<?x4xi64>
  return %0 : tensor<?x4xi64>
}
