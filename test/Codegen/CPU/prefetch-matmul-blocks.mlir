// RUN: ember-opt %s --pass-pipeline='builtin.module(func.func(ember-cpu-prefetch-matmul-blocks))' | FileCheck %s

// A pass over k adding to C's 2 x 32 blocks (f32: 16 floats a cache line):
// each block's lines prefetched into L2 before its k loop, rows and columns
// clamped to C's last ones (30 rows, 40 columns).
// CHECK-LABEL: func.func @adds_to_blocks(
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:       ember.matmul_adds_to_blocks
// CHECK:           %[[R0:.*]] = arith.minsi %{{.*}}, %[[LASTROW:.*]] : index
// CHECK:           %[[C0:.*]] = arith.minsi %{{.*}}, %[[LASTCOL:.*]] : index
// CHECK:           memref.prefetch %{{.*}}[%[[R0]], %[[C0]]], read, locality<2>, data : memref<30x40xf32>
// CHECK:           %[[C1:.*]] = arith.minsi %{{.*}}, %[[LASTCOL]] : index
// CHECK:           memref.prefetch %{{.*}}[%[[R0]], %[[C1]]], read, locality<2>, data
// CHECK:           arith.minsi %{{.*}}, %[[LASTROW]] : index
// CHECK-COUNT-2:   memref.prefetch
// CHECK-NOT:       memref.prefetch
// CHECK:           scf.for
// CHECK:           vector.transfer_read
func.func @adds_to_blocks(%c: memref<30x40xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c40 = arith.constant 40 : index
  %zero = arith.constant 0.0 : f32
  %init = arith.constant dense<1.0> : vector<2x32xf32>
  scf.for %j = %c0 to %c40 step %c32 {
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %init) -> (vector<2x32xf32>) {
      %next = arith.addf %acc, %init : vector<2x32xf32>
      scf.yield %next : vector<2x32xf32>
    }
    %old = vector.transfer_read %c[%i, %j], %zero : memref<30x40xf32>, vector<2x32xf32>
    %new = arith.addf %sum, %old : vector<2x32xf32>
    vector.transfer_write %new, %c[%i, %j] : vector<2x32xf32>, memref<30x40xf32>
  } {ember.matmul_adds_to_blocks}
  return
}

// The same loop unmarked (a first pass, which writes C without reading it,
// or any other loop): no prefetches.
// CHECK-LABEL: func.func @unmarked(
// CHECK-NOT:     memref.prefetch
func.func @unmarked(%c: memref<30x40xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c40 = arith.constant 40 : index
  %zero = arith.constant 0.0 : f32
  %init = arith.constant dense<1.0> : vector<2x32xf32>
  scf.for %j = %c0 to %c40 step %c32 {
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %init) -> (vector<2x32xf32>) {
      %next = arith.addf %acc, %init : vector<2x32xf32>
      scf.yield %next : vector<2x32xf32>
    }
    %old = vector.transfer_read %c[%i, %j], %zero : memref<30x40xf32>, vector<2x32xf32>
    %new = arith.addf %sum, %old : vector<2x32xf32>
    vector.transfer_write %new, %c[%i, %j] : vector<2x32xf32>, memref<30x40xf32>
  }
  return
}
