// The pipeline outlines kernels itself, then the upstream NVVM pipeline runs
// outlining again (nothing left): the first dump is the one to check.
// RUN: ember-opt %s --ember-lower-to-nvvm --mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 | awk '/IR Dump After/ { n++ } n == 1' | FileCheck %s
// RUN: ember-opt %s --ember-lower-to-nvvm --mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 | awk '/IR Dump After/ { n++ } n == 1' | FileCheck %s --check-prefix=ONE

// power(x, 100) on 10x10 through the whole CUDA pipeline, seen after kernel
// outlining: the host function launches one kernel, whose one block runs the
// loop of matmuls (unrolled by two: two products an iteration) between
// barriers, with its temporaries in shared memory.
// Exactly one launch and one kernel for it.
// ONE:         gpu.launch_func @power100_
// ONE-NOT:     gpu.launch_func @power100_
// ONE:         gpu.func @power100_kernel(
// ONE-NOT:     @power100_
// CHECK-LABEL: func.func @power100(
// CHECK-NOT:     scf.for
// CHECK:         gpu.launch_func @power100_kernel::@power100_kernel blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK-LABEL: gpu.module @power100_kernel
// CHECK:         gpu.func @power100_kernel({{.*}}) workgroup(%{{.*}} : memref<10x10xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<10x10xf32, #gpu.address_space<workgroup>>) kernel
// CHECK:           gpu.barrier
// CHECK:           scf.for %{{.*}} = %c0 to %c100 step %c2 {
// CHECK:             scf.for {{.*}} iter_args
// CHECK:             gpu.barrier
// CHECK:             scf.for {{.*}} iter_args
// CHECK:             gpu.barrier
// CHECK-NEXT:      }
// CHECK:           gpu.return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @power100(%x: tensor<10x10xf32>) -> tensor<10x10xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %e = tensor.empty() : tensor<10x10xf32>
  %id = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<10x10xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %same = arith.cmpi eq, %i, %j : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %v = arith.select %same, %one, %zero : f32
    linalg.yield %v : f32
  } -> tensor<10x10xf32>
  %r = scf.for %k = %c0 to %c100 step %c1 iter_args(%acc = %id) -> (tensor<10x10xf32>) {
    %next = ember.matmul %acc, %x : tensor<10x10xf32>, tensor<10x10xf32> -> tensor<10x10xf32>
    scf.yield %next : tensor<10x10xf32>
  }
  return %r : tensor<10x10xf32>
}

// 80x80 (6400 elements, more than one block's worth): the loop stays on the
// host and launches kernels over many blocks each iteration.
// CHECK-LABEL: func.func @power_big(
// CHECK:         scf.for
// CHECK:           gpu.launch_func @power_big_kernel_0::@power_big_kernel blocks in (%c7, %c1, %c1)
// CHECK:           gpu.launch_func @power_big_kernel_1::@power_big_kernel blocks in (%c2, %c2, %c1)
// CHECK:         }
// CHECK:         gpu.launch_func
// CHECK:         return
func.func @power_big(%x: tensor<80x80xf32>) -> tensor<80x80xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<80x80xf32>) {
    %next = ember.matmul %acc, %x : tensor<80x80xf32>, tensor<80x80xf32> -> tensor<80x80xf32>
    scf.yield %next : tensor<80x80xf32>
  }
  return %r : tensor<80x80xf32>
}
