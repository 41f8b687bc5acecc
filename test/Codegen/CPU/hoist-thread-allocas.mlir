// RUN: ember-opt %s --pass-pipeline='builtin.module(func.func(ember-cpu-hoist-thread-allocas),canonicalize)' -split-input-file | FileCheck %s

// A parallel loop's stack buffer (a blocked matmul's packed panel) is
// allocated once per thread, at the start of the team's region; the alloca
// scope around the body, left empty of allocas, folds away. (With the alloca
// in it, the scope's one block could not hold the branches of the loop
// inside it: ember-lower-to-llvm failed to verify; see
// Pipelines/small-packed-panels.mlir.)
// CHECK-LABEL: func.func @panel_per_iteration(
// CHECK:         omp.parallel {
// CHECK-NEXT:      %[[PANEL:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x16xf32>
// CHECK-NEXT:      omp.wsloop {
// CHECK-NEXT:        omp.loop_nest
// CHECK-NOT:           memref.alloca_scope
// CHECK-NOT:           memref.alloca
// CHECK:               scf.for
// CHECK:                 memref.store %{{.*}}, %[[PANEL]]
// CHECK:               scf.for
// CHECK:                 memref.load %[[PANEL]]
func.func @panel_per_iteration(%b: memref<4x64xf32>, %c: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%j) : index = (%c0) to (%c64) step (%c16) {
        memref.alloca_scope {
          %panel = memref.alloca() {alignment = 64 : i64} : memref<4x16xf32>
          scf.for %k = %c0 to %c4 step %c1 {
            scf.for %col = %c0 to %c16 step %c1 {
              %at = arith.addi %j, %col : index
              %v = memref.load %b[%k, %at] : memref<4x64xf32>
              memref.store %v, %panel[%k, %col] : memref<4x16xf32>
            }
          }
          scf.for %k = %c0 to %c4 step %c1 {
            scf.for %col = %c0 to %c16 step %c1 {
              %at = arith.addi %j, %col : index
              %v = memref.load %panel[%k, %col] : memref<4x16xf32>
              memref.store %v, %c[%k, %at] : memref<4x64xf32>
            }
          }
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Allocas of loops nested deeper, and those whose size is dynamic, stay.
// CHECK-LABEL: func.func @nested_and_dynamic(
// CHECK:         omp.parallel {
// CHECK-NEXT:      omp.wsloop {
// CHECK:             memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK:             scf.for
// CHECK-NEXT:          memref.alloca() : memref<8xf32>
func.func @nested_and_dynamic(%n: index, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %x = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        memref.alloca_scope {
          %dynamic = memref.alloca(%n) : memref<?xf32>
          memref.store %x, %dynamic[%c0] : memref<?xf32>
          %first = memref.load %dynamic[%c0] : memref<?xf32>
          scf.for %k = %c0 to %c4 step %c1 {
            %inner = memref.alloca() : memref<8xf32>
            memref.store %first, %inner[%k] : memref<8xf32>
            %v = memref.load %inner[%k] : memref<8xf32>
            memref.store %v, %out[%i] : memref<64xf32>
          }
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
