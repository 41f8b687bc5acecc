// Temporaries of ahead-of-time code come from the runtime's per-thread
// cache (emberrt_scratch_allocate / emberrt_scratch_free), as in the JIT, not
// from the C library's allocator: a function called in a loop does not map
// and fault in fresh pages for its large temporaries each call.
// RUN: ember-compile %s --emit=llvm -o - | FileCheck %s
// RUN: ember-compile %s -o %t.o && llvm-nm %t.o | FileCheck %s --check-prefix=SYMBOLS
// CHECK: llvm.call @emberrt_scratch_allocate(
// CHECK: llvm.call @emberrt_scratch_free(
// CHECK-NOT: @aligned_alloc
// SYMBOLS-NOT: aligned_alloc
// SYMBOLS: U emberrt_scratch_allocate
// SYMBOLS: U emberrt_scratch_free
// SYMBOLS-NOT: aligned_alloc

func.func @twice(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %t = ember.transpose %a permutation = [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %m = ember.matmul %t, %b : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %e = ember.exp %m : tensor<64x64xf32>
  %s = ember.matmul %e, %t : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}
