// ember-lower-to-nvvm picks tensor cores from the chip: on sm_80 and later
// a bfloat16 matmul's kernel is mma.sync on bfloat16 with fragments from
// ldmatrix and slices staged by cp.async (tensor-core-matmul.mlir checks the steps); on
// sm_75 it is the widened float32 matmul. (ops-to-ptx.mlir runs ptxas on
// such a kernel.)
// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_90" | FileCheck %s
// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_80" | FileCheck %s
// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_75" | FileCheck %s --check-prefix=SM75

// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.wait_group
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM75-NOT: mma.sync
// SM75-NOT: ldmatrix
// SM75: llvm.func @ember_entry_bf16_matmul(
func.func @bf16_matmul(%a: tensor<128x64xbf16>, %b: tensor<64x96xbf16>) -> tensor<128x96xbf16> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<128x64xbf16>, tensor<64x96xbf16> -> tensor<128x96xbf16>
  return %0 : tensor<128x96xbf16>
}

// float32 matmuls: TF32 tensor cores with tf32=true (the front end's
// default, TensorFlow's), the CUDA cores' tiles without.
// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_90 tf32=true" | FileCheck %s --check-prefix=TF32
// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_90" | FileCheck %s --check-prefix=NOTF32
// TF32: cvt.rna.tf32.f32
// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// NOTF32-NOT: tf32
// NOTF32: llvm.func @ember_entry_f32_matmul(
func.func @f32_matmul(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>) -> tensor<128x96xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<128x64xf32>, tensor<64x96xf32> -> tensor<128x96xf32>
  return %0 : tensor<128x96xf32>
}
