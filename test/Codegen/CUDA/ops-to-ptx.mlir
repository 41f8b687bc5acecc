// Every class of op compiles to PTX that ptxas accepts for sm_90 (format=bin
// runs ptxas on each kernel; a rejected kernel fails the pipeline).
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root ember-opt %s "--ember-lower-to-nvvm=chip=sm_90 format=bin" | FileCheck %s

// CHECK-DAG: llvm.func @ember_entry_elementwise_f32(
func.func @elementwise_f32(%a: tensor<64x33xf32>, %b: tensor<64x33xf32>) -> tensor<64x33xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.div %a, %b : tensor<64x33xf32>
  %1 = ember.exp %0 : tensor<64x33xf32>
  %2 = ember.tanh %1 : tensor<64x33xf32>
  %3 = ember.sqrt %2 : tensor<64x33xf32>
  %4 = ember.sigmoid %3 : tensor<64x33xf32>
  %5 = ember.pow %4, %a : tensor<64x33xf32>
  %6 = ember.log1p %5 : tensor<64x33xf32>
  %7 = ember.erf %6 : tensor<64x33xf32>
  %8 = ember.asin %7 : tensor<64x33xf32>
  %9 = ember.acos %8 : tensor<64x33xf32>
  %10 = ember.atan %9 : tensor<64x33xf32>
  return %10 : tensor<64x33xf32>
}

// CHECK-DAG: llvm.func @ember_entry_elementwise_f64(
func.func @elementwise_f64(%a: tensor<7x5xf64>, %b: tensor<5xf64>) -> tensor<7x5xf64> attributes {llvm.emit_c_interface} {
  %0 = ember.broadcast_to %b : tensor<5xf64> -> tensor<7x5xf64>
  %1 = ember.mul %a, %0 : tensor<7x5xf64>
  %2 = ember.exp %1 : tensor<7x5xf64>
  %3 = ember.sin %2 : tensor<7x5xf64>
  return %3 : tensor<7x5xf64>
}

// CHECK-DAG: llvm.func @ember_entry_integers(
func.func @integers(%a: tensor<100xi32>, %b: tensor<100xi32>) -> (tensor<100xi32>, tensor<100xi1>) attributes {llvm.emit_c_interface} {
  %0 = ember.floordiv %a, %b : tensor<100xi32>
  %1 = ember.mod %0, %b : tensor<100xi32>
  %2 = ember.compare lt, %1, %a : tensor<100xi32>
  return %1, %2 : tensor<100xi32>, tensor<100xi1>
}

// CHECK-DAG: llvm.func @ember_entry_iota(
func.func @iota(%a: tensor<6x5xf32>) -> tensor<6x5xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.iota dim 0 : tensor<6x5xf32>
  %1 = ember.mul %a, %0 : tensor<6x5xf32>
  return %1 : tensor<6x5xf32>
}

// CHECK-DAG: llvm.func @ember_entry_reductions(
func.func @reductions(%a: tensor<32x48xf32>) -> (tensor<f32>, tensor<32xf32>, tensor<48xi64>) attributes {llvm.emit_c_interface} {
  %0 = ember.reduce_sum %a axes = [0, 1] : tensor<32x48xf32> -> tensor<f32>
  %1 = ember.reduce_max %a axes = [1] : tensor<32x48xf32> -> tensor<32xf32>
  %2 = ember.argmax %a axis = 0 : tensor<32x48xf32> -> tensor<48xi64>
  return %0, %1, %2 : tensor<f32>, tensor<32xf32>, tensor<48xi64>
}

// CHECK-DAG: llvm.func @ember_entry_matmuls(
func.func @matmuls(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>, %c: tensor<4x8x16xf64>, %d: tensor<4x16x8xf64>) -> (tensor<128x96xf32>, tensor<4x8x8xf64>) attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<128x64xf32>, tensor<64x96xf32> -> tensor<128x96xf32>
  %1 = ember.matmul %c, %d : tensor<4x8x16xf64>, tensor<4x16x8xf64> -> tensor<4x8x8xf64>
  return %0, %1 : tensor<128x96xf32>, tensor<4x8x8xf64>
}

// CHECK-DAG: llvm.func @ember_entry_shapes(
func.func @shapes(%a: tensor<6x4xf32>, %i: tensor<3xi32>) -> (tensor<4x6xf32>, tensor<2x4xf32>, tensor<12x4xf32>, tensor<3x4xf32>, tensor<24xf32>) attributes {llvm.emit_c_interface} {
  %0 = ember.transpose %a permutation = [1, 0] : tensor<6x4xf32> -> tensor<4x6xf32>
  %1 = ember.slice %a start = [1, 0] limit = [5, 4] stride = [2, 1] : tensor<6x4xf32> -> tensor<2x4xf32>
  %2 = ember.concat %a, %a axis = 0 : tensor<6x4xf32>, tensor<6x4xf32> -> tensor<12x4xf32>
  %3 = ember.gather %a, %i axis = 0 : tensor<6x4xf32>, tensor<3xi32> -> tensor<3x4xf32>
  %4 = ember.reshape %a : tensor<6x4xf32> -> tensor<24xf32>
  return %0, %1, %2, %3, %4 : tensor<4x6xf32>, tensor<2x4xf32>, tensor<12x4xf32>, tensor<3x4xf32>, tensor<24xf32>
}

// A scatter is a loop nest over its updates, run by a kernel of one thread
// (in row-major order: the last update to an element wins), between
// elementwise kernels.
// CHECK-DAG: llvm.func @ember_entry_scatter(
func.func @scatter(%a: tensor<6x4xf32>, %i: tensor<3xi32>, %u: tensor<3x4xf32>) -> tensor<6x4xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.exp %a : tensor<6x4xf32>
  %1 = ember.scatter add, %0, %i, %u axis = 0 : tensor<6x4xf32>, tensor<3xi32>, tensor<3x4xf32> -> tensor<6x4xf32>
  %2 = ember.tanh %1 : tensor<6x4xf32>
  return %2 : tensor<6x4xf32>
}

// A result that is an argument and one returned twice are copied by kernels.
// CHECK-DAG: llvm.func @ember_entry_copies(
func.func @copies(%a: tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) attributes {llvm.emit_c_interface} {
  %0 = ember.neg %a : tensor<10xf32>
  return %a, %0, %0 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
}

// float16 and bfloat16: elementwise ops, a float32-accumulated sum and
// matmul (sm_90 has bf16 and f16 arithmetic; math ops run in float32).
// CHECK-DAG: llvm.func @ember_entry_half_precision(
func.func @half_precision(%a: tensor<64x33xbf16>, %h: tensor<64x33xf16>, %m: tensor<64x64xbf16>) -> (tensor<64x33xbf16>, tensor<64x33xf16>, tensor<64xbf16>, tensor<64x64xbf16>) attributes {llvm.emit_c_interface} {
  %0 = ember.mul %a, %a : tensor<64x33xbf16>
  %1 = ember.exp %0 : tensor<64x33xbf16>
  %2 = ember.tanh %h : tensor<64x33xf16>
  %3 = ember.add %2, %h : tensor<64x33xf16>
  %4 = ember.reduce_sum %a axes = [1] : tensor<64x33xbf16> -> tensor<64xbf16>
  %5 = ember.matmul %m, %m : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xbf16>
  return %1, %3, %4, %5 : tensor<64x33xbf16>, tensor<64x33xf16>, tensor<64xbf16>, tensor<64x64xbf16>
}
