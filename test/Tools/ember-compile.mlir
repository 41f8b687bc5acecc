// ember-compile, the ahead-of-time compiler: each phase on request, CPUs by
// name or triple (cross-compiling), GPU objects, and clear errors that leave
// no output behind.
// RUN: ember-compile %s --emit=llvm-ir -o - | FileCheck %s --check-prefix=IR
// RUN: ember-compile %s --emit=linalg -o - | FileCheck %s --check-prefix=LINALG
// RUN: ember-compile %s --mtriple=aarch64-linux-gnu --emit=asm -o - | FileCheck %s --check-prefix=ARM
// RUN: ember-compile %s --mcpu=x86-64 --emit=asm -o - | FileCheck %s --check-prefix=SSE
// RUN: ember-compile %s --mcpu=x86-64-v3 --emit=asm -o - | FileCheck %s --check-prefix=AVX2
// RUN: ember-compile %s -O0 --emit=llvm-ir -o - | FileCheck %s --check-prefix=IR
// RUN: ember-compile %s -o %t.o && llvm-objdump -t %t.o | FileCheck %s --check-prefix=OBJ
// RUN: ember-compile %s --target=cuda:sm_90 -o %t.gpu.o && llvm-objdump -t %t.gpu.o | FileCheck %s --check-prefix=GPU
// The kernels load from a constructor in .init_array (what the loader runs;
// from .ctors they never loaded):
// RUN: llvm-objdump -h %t.gpu.o | FileCheck %s --check-prefix=INIT
// INIT: .init_array
// INIT-NOT: .ctors
// RUN: rm -rf %t.dump && ember-compile %s --dump-ir-dir=%t.dump -o %t.o && ls %t.dump | FileCheck %s --check-prefix=DUMP

// The entry point alone is exported; the function and its C wrapper are
// inlined into it.
// IR: define void @ember_entry_scale(ptr
// IR-NOT: define {{.*}}@scale(
// IR-NOT: define {{.*}}@_mlir_ciface_scale(
// LINALG: func.func @scale(
// LINALG: linalg.generic
// ARM: ember_entry_scale:
// ARM: fmul v{{[0-9]+}}.4s
// SSE-NOT: ymm
// AVX2: ymm
// OBJ: {{ g .*F .text.*}} ember_entry_scale
// OBJ-NOT: {{ g .*}} scale
// GPU-DAG: ember_entry_scale
// GPU-DAG: *UND*{{.*}}mgpuLaunchKernel
// DUMP: ember-compile.0-optimized.mlir
// DUMP-NEXT: ember-compile.1-linalg.mlir
// DUMP-NEXT: ember-compile.2-llvm.mlir
// DUMP-NEXT: ember-compile.3-llvm-ir.ll

// RUN: not ember-compile %s --emit=bogus -o %t.bad 2>&1 | FileCheck %s --check-prefix=BADEMIT
// RUN: not ember-compile %s --mcpu=nonsense -o %t.bad 2>&1 | FileCheck %s --check-prefix=BADCPU
// RUN: not ember-compile %s --target=tpu -o %t.bad 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not ember-compile %s --target=cuda:sm_9x -o %t.bad 2>&1 | FileCheck %s --check-prefix=BADCHIP
// RUN: not ember-compile %s --mtriple=nonsense-unknown-none -o %t.bad 2>&1 | FileCheck %s --check-prefix=BADTRIPLE
// RUN: not ember-compile %S/Inputs/unparsable.mlir -o %t.bad 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not ember-compile %S/Inputs/invalid-op.mlir -o %t.bad 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not ember-compile %S/Inputs/dynamic-shape.mlir -o %t.bad 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not ember-compile %s -o %t.missing/dir/out.o 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// RUN: not ember-compile %s --emit=llvm-ir --shared -o %t.bad 2>&1 | FileCheck %s --check-prefix=SHAREDTEXT
// RUN: not ember-compile %s --target=cuda --cuda-format=sass -o %t.bad 2>&1 | FileCheck %s --check-prefix=BADFORMAT
// RUN: not ember-compile %s --cuda-format=bin -o %t.bad 2>&1 | FileCheck %s --check-prefix=FORMATCPU
// RUN: not ember-compile %S/Inputs/no-functions.mlir -o %t.bad 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: not test -e %t.bad
// NOTHING: ember-compile: error: {{.*}}no-functions.mlir has no public function with a body: the output would export nothing
// BADFORMAT: ember-compile: error: unknown --cuda-format=sass: expected isa, bin or fatbin
// FORMATCPU: ember-compile: error: --cuda-format applies to --target=cuda
// BADEMIT: ember-compile: error: unknown --emit=bogus: expected one of optimized, linalg, llvm, llvm-ir, asm, obj
// BADCPU-NOT: recognized processor
// BADCPU: ember-compile: error: unknown CPU 'nonsense'
// BADTARGET: ember-compile: error: unknown target 'tpu': expected host, cuda or cuda:sm_XX
// BADCHIP: ember-compile: error: unknown CUDA target 'cuda:sm_9x'
// BADTRIPLE: ember-compile: error: unknown target triple
// PARSE: unparsable.mlir:3:{{[0-9]+}}: error:
// VERIFY: invalid-op.mlir:4:{{[0-9]+}}: error: 'ember.add' op operand shapes must be identical
// One problem, one error (not also MLIR's "failed to infer returned types").
// VERIFY-NOT: error:
// DYNAMIC: dynamic-shape.mlir:4:3: error: 'ember.print' op does not take None (`?`) dims yet: only elementwise ops, broadcasts, reductions, argmax, matmuls, transposes, reshapes, gathers, concatenations, convolutions, poolings, slices and iotas do
// DYNAMIC-NOT: note
// UNWRITABLE: ember-compile: error: cannot write {{.*}}out.o
// SHAREDTEXT: ember-compile: error: --shared makes a library from object code: not with --emit=llvm-ir

// One run's outputs are there together or not at all: a header that cannot
// be written leaves the object as it was (and no temporaries); outputs that
// are not regular files are written into, not replaced.
// RUN: echo old > %t.kept.o
// RUN: not ember-compile %s -o %t.kept.o --header %t.missing/dir/m.h 2>&1 | FileCheck %s --check-prefix=HEADERDIR
// RUN: FileCheck %s --check-prefix=KEPT < %t.kept.o
// RUN: not ls %t.kept.o.tmp*
// RUN: ember-compile %s -o /dev/null --header /dev/null && test -c /dev/null
// RUN: ember-compile %s --shared -o /dev/null && test -c /dev/null
// HEADERDIR: ember-compile: error: cannot write {{.*}}m.h
// KEPT: old

// A shared library exporting the entry point; --version; pass timing and
// printing.
// RUN: ember-compile %s --shared -o %t.so && llvm-nm -D %t.so | FileCheck %s --check-prefix=SHARED
// RUN: ember-compile --version | FileCheck %s --check-prefix=VERSION
// RUN: ember-compile %s --mlir-timing -o %t.o 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: ember-compile %s --print-ir-after-all --emit=optimized -o %t.ir 2>&1 | FileCheck %s --check-prefix=PRINT
// SHARED: T ember_entry_scale
// VERSION: ember-compile (ember, LLVM/MLIR 22
// TIMING: Execution time report
// PRINT: IR Dump After {{.*}}Inliner

func.func @scale(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = ember.add %a, %b : tensor<64x64xf32>
  %1 = ember.mul %0, %a : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
