// RUN: ember-opt %s --split-input-file --ember-lower-to-llvm --mlir-print-ir-after=ember-cpu-parallelize 2>&1 >/dev/null | FileCheck %s
// RUN: ember-opt %s --split-input-file --ember-lower-to-llvm | FileCheck %s --check-prefix=OMP

// Enough work (512x256 elements): the rows split into 64 blocks of 8, an
// scf.parallel around the op on each block. A reduction along rows splits
// its rows too, and so does an integer division (ember-lower-fault-reports
// gives each thread its own fault flag). A 16x16 op stays serial.
// CHECK-LABEL: func.func @f(
// CHECK:         scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%[[STEP:.*]]) {
// CHECK:           memref.subview %{{.*}}[%[[I]], 0] [8, 256] [1, 1]
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]{{.*}} ins(%{{.*}} : memref<8x256xf32, strided<[256, 1], offset: ?>>)
// CHECK:             math.exp
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : memref<16x16xf32>)
// CHECK:           arith.addf
// CHECK:         scf.parallel
// CHECK:           linalg.generic {{.*}} ins(%{{.*}} : memref<8x256xi32, strided<[256, 1], offset: ?>>)
// CHECK:             ember.fault_if
// CHECK:         scf.parallel
// CHECK:           linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} ins(%{{.*}} : memref<8x256xf32, strided<[256, 1], offset: ?>>)

// Each parallel loop is an OpenMP work-sharing loop whose team size the
// runtime gives when it runs.
// OMP:       llvm.func @emberrt_num_threads() -> i32
// OMP-LABEL: llvm.func @f(
// OMP:         %[[N:.*]] = llvm.call @emberrt_num_threads() : () -> i32
// OMP-NEXT:    omp.parallel num_threads(%[[N]] : i32) {
// OMP-NEXT:      omp.wsloop {
// OMP:         %[[M:.*]] = llvm.call @emberrt_num_threads() : () -> i32
// OMP-NEXT:    omp.parallel num_threads(%[[M]] : i32) {
// OMP:           omp.wsloop
// OMP:           llvm.atomicrmw _or
// OMP:         llvm.call @emberrt_report_fault
// OMP:         %[[R:.*]] = llvm.call @emberrt_num_threads() : () -> i32
// OMP-NEXT:    omp.parallel num_threads(%[[R]] : i32) {
// OMP-NOT:     omp.parallel
// OMP-LABEL: llvm.func @mm(
// OMP:         omp.parallel
func.func @f(%a: tensor<512x256xf32>, %s: tensor<16x16xf32>, %i: tensor<512x256xi32>) -> (tensor<512x256xf32>, tensor<16x16xf32>, tensor<512x256xi32>, tensor<512xf32>) attributes {llvm.emit_c_interface} {
  %0 = ember.exp %a : tensor<512x256xf32>
  %1 = ember.add %s, %s : tensor<16x16xf32>
  %2 = ember.floordiv %i, %i : tensor<512x256xi32>
  %3 = ember.reduce_sum %a axes = [1] : tensor<512x256xf32> -> tensor<512xf32>
  return %0, %1, %2, %3 : tensor<512x256xf32>, tensor<16x16xf32>, tensor<512x256xi32>, tensor<512xf32>
}

// -----

// A blocked matmul with several panels of columns: the panel loop is the
// parallel one (each panel writes its own columns and packs its own B).
// CHECK-LABEL: func.func @mm(
// CHECK:         scf.parallel
// CHECK:           scf.for
// CHECK:           } {ember.blocked_matmul_rows = 2097152 : i64}
// CHECK:         } {ember.blocked_matmul = 2097152 : i64}
func.func @mm(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}
