// REQUIRES: ptxas
// A cubin (through ptxas) instead of PTX: the object embeds the ELF image
// (it starts with \x7fELF), and the host code loads it as is (mgpuModuleLoad,
// not the driver's PTX compiler: mgpuModuleLoadJIT).
// RUN: env CUDA_ROOT=%cuda_root ember-compile %s --target=cuda:sm_90 --cuda-format=bin --emit=llvm-ir -o - | FileCheck %s
// CHECK: c"\7FELF
// CHECK: call ptr @mgpuModuleLoad(
// CHECK-NOT: mgpuModuleLoadJIT
func.func @twice(%a: tensor<64xf32>) -> tensor<64xf32> {
  %0 = ember.add %a, %a : tensor<64xf32>
  return %0 : tensor<64xf32>
}
