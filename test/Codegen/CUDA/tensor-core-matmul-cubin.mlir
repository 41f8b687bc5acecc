// ptxas accepts every tensor-core kernel: bfloat16, float16 and TF32, each
// with A and B as stored and transposed (ldmatrix's two forms, TF32's word
// reads), both warp grids, partial tiles.
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root ember-opt %s "--ember-lower-to-nvvm=chip=sm_90 format=bin tf32=true" | FileCheck %s

// CHECK-DAG: llvm.func @ember_entry_bf16(
func.func @bf16(%a: tensor<200x72xbf16>, %b: tensor<72x1096xbf16>, %at: tensor<72x1040xbf16>, %bt: tensor<136x72xbf16>) -> (tensor<200x1096xbf16>, tensor<1040x136xbf16>) attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<200x72xbf16>, tensor<72x1096xbf16> -> tensor<200x1096xbf16>
  %a1 = ember.transpose %at permutation = [1, 0] : tensor<72x1040xbf16> -> tensor<1040x72xbf16>
  %b1 = ember.transpose %bt permutation = [1, 0] : tensor<136x72xbf16> -> tensor<72x136xbf16>
  %1 = ember.matmul %a1, %b1 : tensor<1040x72xbf16>, tensor<72x136xbf16> -> tensor<1040x136xbf16>
  return %0, %1 : tensor<200x1096xbf16>, tensor<1040x136xbf16>
}

// CHECK-DAG: llvm.func @ember_entry_f16(
func.func @f16(%a: tensor<1030x64xf16>, %bt: tensor<1024x64xf16>) -> tensor<1030x1024xf16> attributes {llvm.emit_c_interface} {
  %b = ember.transpose %bt permutation = [1, 0] : tensor<1024x64xf16> -> tensor<64x1024xf16>
  %0 = ember.matmul %a, %b : tensor<1030x64xf16>, tensor<64x1024xf16> -> tensor<1030x1024xf16>
  return %0 : tensor<1030x1024xf16>
}

// CHECK-DAG: llvm.func @ember_entry_tf32(
func.func @tf32(%a: tensor<100x36xf32>, %b: tensor<36x1100xf32>, %at: tensor<36x1028xf32>, %bt: tensor<1024x36xf32>) -> (tensor<100x1100xf32>, tensor<1028x1024xf32>) attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<100x36xf32>, tensor<36x1100xf32> -> tensor<100x1100xf32>
  %a1 = ember.transpose %at permutation = [1, 0] : tensor<36x1028xf32> -> tensor<1028x36xf32>
  %b1 = ember.transpose %bt permutation = [1, 0] : tensor<1024x36xf32> -> tensor<36x1024xf32>
  %1 = ember.matmul %a1, %b1 : tensor<1028x36xf32>, tensor<36x1024xf32> -> tensor<1028x1024xf32>
  return %0, %1 : tensor<100x1100xf32>, tensor<1028x1024xf32>
}

// Rows that are not whole 16-byte chunks (36 bfloat16): the CUDA cores'
// tiles, widening as they stage.
// CHECK-DAG: llvm.func @ember_entry_unaligned(
func.func @unaligned(%a: tensor<200x36xbf16>, %b: tensor<36x40xbf16>) -> tensor<200x40xbf16> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<200x36xbf16>, tensor<36x40xbf16> -> tensor<200x40xbf16>
  return %0 : tensor<200x40xbf16>
}

// A batch of bfloat16 matmuls (not a tensor-core nest: widened in the
// loop body, a thread per element of C).
// CHECK-DAG: llvm.func @ember_entry_batch(
func.func @batch(%a: tensor<4x64x32xbf16>, %b: tensor<4x32x48xbf16>) -> tensor<4x64x48xbf16> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<4x64x32xbf16>, tensor<4x32x48xbf16> -> tensor<4x64x48xbf16>
  return %0 : tensor<4x64x48xbf16>
}
