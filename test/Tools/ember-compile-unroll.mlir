// --unroll=compile-time-first asks for the JIT's unrolling policy ahead of
// time (CompileOptions::unrolling): loops but tiny innermost ones carry
// llvm.loop.unroll.disable. By default LLVM unrolls as it decides.
// RUN: ember-compile %s --mcpu=x86-64-v3 --emit=llvm-ir -o - | FileCheck %s --check-prefix=FULL
// RUN: ember-compile %s --mcpu=x86-64-v3 --unroll=compile-time-first --emit=llvm-ir -o - \
// RUN:   | FileCheck %s --check-prefix=JIT
// RUN: not ember-compile %s --unroll=sometimes 2>&1 | FileCheck %s --check-prefix=BAD

// FULL-NOT: llvm.loop.unroll.disable
// JIT: !{!"llvm.loop.unroll.disable"}
// BAD: Cannot find option named 'sometimes'

func.func @scale(%x: tensor<64x48xf32>, %y: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %t = ember.mul %x, %y : tensor<64x48xf32>
  %u = ember.exp %t : tensor<64x48xf32>
  return %u : tensor<64x48xf32>
}
