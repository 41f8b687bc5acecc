// Faults in GPU kernels (issue 27): an integer division by zero or a gather
// index out of range is guarded in the kernel and reported to the runtime's
// fault word (its address and the loader's tag are globals that the runtime
// sets at load), the first fault kept by a compare-and-swap from 0.
// REQUIRES: ptxas
// RUN: ember-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(ember-cuda-lower-fault-reports))" | FileCheck %s

// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG: llvm.mlir.global external @__ember_fault_word(0 : i64) {addr_space = 1 : i32, alignment = 8 : i64} : i64
// CHECK-DAG: llvm.mlir.global external @__ember_fault_tag(0 : i32) {addr_space = 1 : i32, alignment = 4 : i64} : i32
// CHECK: gpu.func @divide
// CHECK-NOT: ember.fault_if
// CHECK: %[[ZERO:.*]] = arith.cmpi eq
// CHECK: %[[Q:.*]] = arith.divsi
// CHECK: scf.if %[[ZERO]] {
// CHECK:   %[[WORD_AT:.*]] = llvm.mlir.addressof @__ember_fault_word : !llvm.ptr<1>
// CHECK:   %[[WORD:.*]] = llvm.load %[[WORD_AT]] : !llvm.ptr<1> -> i64
// CHECK:   %[[SET:.*]] = arith.cmpi ne, %[[WORD]], %[[C0:.*]] : i64
// CHECK:   scf.if %[[SET]] {
// CHECK:     %[[TAG_AT:.*]] = llvm.mlir.addressof @__ember_fault_tag : !llvm.ptr<1>
// CHECK:     %[[TAG:.*]] = llvm.load %[[TAG_AT]] : !llvm.ptr<1> -> i32
// CHECK:     %[[TAG64:.*]] = arith.extui %[[TAG]] : i32 to i64
// CHECK:     %[[HIGH:.*]] = arith.shli %[[TAG64]], %{{.*}} : i64
// kind 1 << 24 | site 3
// CHECK:     %[[LOW:.*]] = arith.constant 16777219 : i64
// CHECK:     %[[CODE:.*]] = arith.ori %[[HIGH]], %[[LOW]] : i64
// CHECK:     %[[PTR:.*]] = llvm.inttoptr %[[WORD]] : i64 to !llvm.ptr<1>
// CHECK:     llvm.cmpxchg %[[PTR]], %[[C0]], %[[CODE]] monotonic monotonic : !llvm.ptr<1>, i64
// The guarded value is used as it is.
// CHECK: memref.store %[[Q]], %arg0
// An op without a site number (-1) reports site 0xffffff: kind 3 << 24 | 0xffffff.
// CHECK-LABEL: gpu.func @gather
// CHECK: arith.constant 67108863 : i64
gpu.module @kernels {
  gpu.func @divide(%a: memref<64xi32>, %b: memref<64xi32>) kernel {
    %i = gpu.thread_id x
    %x = memref.load %a[%i] : memref<64xi32>
    %y = memref.load %b[%i] : memref<64xi32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.cmpi eq, %y, %c0 : i32
    %guarded = arith.select %zero, %c1, %y : i32
    %q = arith.divsi %x, %guarded : i32
    %r = ember.fault_if %zero, %q {kind = 1 : i32, site = 3 : i32} : i32
    memref.store %r, %a[%i] : memref<64xi32>
    gpu.return
  }
  gpu.func @gather(%t: memref<5xf32>, %i: memref<3xi32>, %out: memref<3xf32>) kernel {
    %j = gpu.thread_id x
    %raw = memref.load %i[%j] : memref<3xi32>
    %index = arith.index_cast %raw : i32 to index
    %c5 = arith.constant 5 : index
    %out_of_range = arith.cmpi uge, %index, %c5 : index
    %c0 = arith.constant 0 : index
    %clamped = arith.select %out_of_range, %c0, %index : index
    %v = memref.load %t[%clamped] : memref<5xf32>
    %w = ember.fault_if %out_of_range, %v {kind = 3 : i32, site = -1 : i32} : f32
    memref.store %w, %out[%j] : memref<3xf32>
    gpu.return
  }
}

// -----

// A module whose kernels cannot fault gets no globals.
// CHECK-LABEL: gpu.module @plain
// CHECK-NOT: __ember_fault
gpu.module @plain {
  gpu.func @copy(%a: memref<4xf32>, %b: memref<4xf32>) kernel {
    %i = gpu.thread_id x
    %x = memref.load %a[%i] : memref<4xf32>
    memref.store %x, %b[%i] : memref<4xf32>
    gpu.return
  }
}

// -----

// Through the whole CUDA pipeline: the kernels' PTX declares both globals
// and reports with a compare-and-swap; ptxas accepts it.
// RUN: env CUDA_ROOT=%cuda_root ember-opt %S/Inputs/faulting-ops.mlir "--ember-lower-to-nvvm=chip=sm_90" | FileCheck %s --check-prefix=PTX
// RUN: env CUDA_ROOT=%cuda_root ember-opt %S/Inputs/faulting-ops.mlir "--ember-lower-to-nvvm=chip=sm_90 format=bin" -o /dev/null
// PTX-DAG: .visible .global .align 8 .u64 __ember_fault_word
// PTX-DAG: .visible .global .align 4 .u32 __ember_fault_tag
// PTX-DAG: atom{{.*}}.global.cas.b64
// No call of the host's emberrt_report_fault anywhere.
// PTX-NOT: emberrt_report_fault
