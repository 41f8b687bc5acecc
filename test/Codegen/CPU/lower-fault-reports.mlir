// RUN: ember-opt %s --ember-lower-fault-reports -split-input-file | FileCheck %s

// Inside loops, a fault check is or-ed into a flag on the stack, and the
// outermost loop is followed by one report: the loops have no call.
// CHECK-LABEL: func.func private @emberrt_report_fault(i32, i32)
// CHECK-LABEL: func.func @nest(
// CHECK-SAME:      %[[A:.*]]: memref<4x8xi32>, %[[B:.*]]: memref<4x8xi32>, %[[OUT:.*]]: memref<4x8xi32>)
// CHECK:         %[[FLAG:.*]] = memref.alloca() : memref<i1>
// CHECK:         %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:    memref.store %[[FALSE]], %[[FLAG]][] : memref<i1>
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for
// CHECK:             %[[ZERO:.*]] = arith.cmpi eq
// CHECK:             %[[Q:.*]] = arith.divsi
// CHECK-NEXT:        %[[SEEN:.*]] = memref.load %[[FLAG]][] : memref<i1>
// CHECK-NEXT:        %[[ANY:.*]] = arith.ori %[[SEEN]], %[[ZERO]] : i1
// CHECK-NEXT:        memref.store %[[ANY]], %[[FLAG]][] : memref<i1>
// CHECK-NEXT:        memref.store %[[Q]], %[[OUT]]
// CHECK-NOT:         func.call
// CHECK:         %[[FAULT:.*]] = memref.load %[[FLAG]][] : memref<i1>
// CHECK-DAG:     %[[KIND:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[SITE:.*]] = arith.constant 5 : i32
// CHECK:         scf.if %[[FAULT]] {
// CHECK-NEXT:      func.call @emberrt_report_fault(%[[KIND]], %[[SITE]]) : (i32, i32) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @nest(%a: memref<4x8xi32>, %b: memref<4x8xi32>, %out: memref<4x8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %a[%i, %j] : memref<4x8xi32>
      %y = memref.load %b[%i, %j] : memref<4x8xi32>
      %z = arith.cmpi eq, %y, %zero : i32
      %d = arith.select %z, %one, %y : i32
      %q = arith.divsi %x, %d : i32
      %r = ember.fault_if %z, %q {kind = 1 : i32, site = 5 : i32} : i32
      memref.store %r, %out[%i, %j] : memref<4x8xi32>
    }
  }
  return
}

// -----

// Outside loops the report is made in place; checks of another kind or site
// get flags of their own.
// CHECK-LABEL: func.func @scalar_and_two_kinds(
// CHECK-SAME:      %[[C:.*]]: i1, %[[D:.*]]: i1, %[[V:.*]]: i32
// CHECK-DAG:     memref.alloca() : memref<i1>
// CHECK-DAG:     memref.alloca() : memref<i1>
// CHECK:         scf.if %[[C]] {
// CHECK-NEXT:      func.call @emberrt_report_fault
// CHECK:         scf.for
// CHECK-NOT:       func.call
// CHECK:         }
// CHECK:         scf.if
// CHECK-NEXT:      func.call @emberrt_report_fault
// CHECK:         scf.if
// CHECK-NEXT:      func.call @emberrt_report_fault
// CHECK:         return %[[V]] : i32
func.func @scalar_and_two_kinds(%c: i1, %d: i1, %v: i32, %m: memref<8xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = ember.fault_if %c, %v {kind = 1 : i32, site = 0 : i32} : i32
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %m[%i] : memref<8xi32>
    %y = ember.fault_if %d, %x {kind = 1 : i32, site = 0 : i32} : i32
    %w = ember.fault_if %c, %y {kind = 3 : i32, site = 1 : i32} : i32
    memref.store %w, %m[%i] : memref<8xi32>
  }
  return %r : i32
}

// -----

// A loop nest inside a while loop reports after the nest, inside the while
// loop's body: never outside a loop whose trip count it may decide.
// CHECK-LABEL: func.func @in_while(
// CHECK:         scf.while
// CHECK:         } do {
// CHECK:           memref.store %{{.*}}, %[[FLAG:.*]][] : memref<i1>
// CHECK-NEXT:      scf.for
// CHECK:           }
// CHECK-NEXT:      %[[F:.*]] = memref.load %[[FLAG]][] : memref<i1>
// CHECK:           scf.if %[[F]] {
// CHECK-NEXT:        func.call @emberrt_report_fault
// CHECK:           scf.yield
func.func @in_while(%m: memref<8xi32>, %n: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %r = scf.while (%k = %n) : (i32) -> i32 {
    %go = arith.cmpi sgt, %k, %zero : i32
    scf.condition(%go) %k : i32
  } do {
  ^bb0(%k: i32):
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %m[%i] : memref<8xi32>
      %z = arith.cmpi eq, %x, %zero : i32
      %y = ember.fault_if %z, %x {kind = 1 : i32, site = 2 : i32} : i32
      memref.store %y, %m[%i] : memref<8xi32>
    }
    %next = arith.subi %k, %n : i32
    scf.yield %next : i32
  }
  return %r : i32
}

// -----

// In an OpenMP team's work-sharing loop (a parallel loop after
// convert-scf-to-openmp), each thread or-s into a flag of its own, cleared
// when the team starts, then once into a shared one after the loop (an
// atomic or); the report follows the team, on the calling thread.
// CHECK-LABEL: func.func @team(
// CHECK:         %[[SHARED:.*]] = memref.alloca() : memref<i32>
// CHECK:         memref.store %{{.*}}, %[[SHARED]][] : memref<i32>
// CHECK-NEXT:    omp.parallel {
// CHECK-NEXT:      %[[OWN:.*]] = memref.alloca() : memref<i1>
// CHECK-NEXT:      %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:      memref.store %[[FALSE]], %[[OWN]][] : memref<i1>
// CHECK:           omp.wsloop {
// CHECK:             scf.for
// CHECK:               %[[SEEN:.*]] = memref.load %[[OWN]][] : memref<i1>
// CHECK:               arith.ori %[[SEEN]]
// CHECK-NOT:           func.call
// CHECK:           %[[MINE:.*]] = memref.load %[[OWN]][] : memref<i1>
// CHECK-NEXT:      scf.if %[[MINE]] {
// CHECK:             memref.atomic_rmw ori %{{.*}}, %[[SHARED]][] : (i32, memref<i32>) -> i32
// CHECK:           omp.terminator
// CHECK:         %[[ANY:.*]] = memref.load %[[SHARED]][] : memref<i32>
// CHECK:         %[[SET:.*]] = arith.cmpi ne, %[[ANY]]
// CHECK:         scf.if %[[SET]] {
// CHECK-NEXT:      func.call @emberrt_report_fault
func.func @team(%a: memref<16x8xi32>, %out: memref<16x8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%b) : index = (%c0) to (%c16) step (%c4) {
        memref.alloca_scope {
          scf.for %i = %c0 to %c4 step %c1 {
            scf.for %j = %c0 to %c8 step %c1 {
              %row = arith.addi %b, %i : index
              %y = memref.load %a[%row, %j] : memref<16x8xi32>
              %z = arith.cmpi eq, %y, %zero : i32
              %d = arith.select %z, %one, %y : i32
              %q = arith.divsi %one, %d : i32
              %r = ember.fault_if %z, %q {kind = 1 : i32, site = 2 : i32} : i32
              memref.store %r, %out[%row, %j] : memref<16x8xi32>
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

// A GPU module's kernels are left alone (they report to the runtime's fault
// word: ember-cuda-lower-fault-reports); the host function's check is a call.
// CHECK-LABEL: gpu.module @kernels
// CHECK:         gpu.func @divide
// CHECK-NOT:       func.call
// CHECK:           ember.fault_if %{{.*}}, %{{.*}} {kind = 1 : i32, site = 0 : i32} : i32
// CHECK-LABEL: func.func @host
// CHECK:         scf.if
// CHECK:           func.call @emberrt_report_fault
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @divide(%a: memref<4xi32>, %b: memref<4xi32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<4xi32>
      %y = memref.load %b[%i] : memref<4xi32>
      %c0 = arith.constant 0 : i32
      %zero = arith.cmpi eq, %y, %c0 : i32
      %r = ember.fault_if %zero, %x {kind = 1 : i32, site = 0 : i32} : i32
      memref.store %r, %a[%i] : memref<4xi32>
      gpu.return
    }
  }
  func.func @host(%c: i1, %v: i32) -> i32 {
    %r = ember.fault_if %c, %v {kind = 1 : i32, site = 1 : i32} : i32
    return %r : i32
  }
}
