// RUN: ember-opt %s --ember-outline-loop-nests="min-loop-nests=2" --split-input-file | FileCheck %s
// RUN: ember-opt %s --ember-outline-loop-nests --split-input-file | FileCheck %s --check-prefix=DEFAULT

// Identical nests share one function; bounds and constants are cloned in, so
// only the buffers are arguments. The written buffer of each call is passed
// nowhere else, so its lowered pointers are recorded as noalias.
// CHECK-LABEL: func.func @scale_twice(
// CHECK-SAME:      %[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32>)
// CHECK:         call @scale_twice_nest(%[[A]]) : (memref<8xf32>) -> ()
// CHECK-NEXT:    call @scale_twice_nest(%[[B]]) : (memref<8xf32>) -> ()
// CHECK-NEXT:    return
// CHECK:       func.func private @scale_twice_nest(%[[M:.*]]: memref<8xf32>)
// CHECK-SAME:      attributes {ember.noalias_memrefs = array<i64: 0, 1>, passthrough = ["noinline"]}
// CHECK-DAG:     arith.constant 2.000000e+00 : f32
// CHECK-DAG:     arith.constant 8 : index
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}}, %[[M]]
// CHECK-NOT:   func.func private
// DEFAULT-LABEL: func.func @scale_twice(
// DEFAULT:         scf.for
// DEFAULT:         scf.for
// DEFAULT-NOT:     call
func.func @scale_twice(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %b[%i] : memref<8xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %b[%i] : memref<8xf32>
  }
  return
}

// -----

// A nest that writes a buffer another operand views (the same root) gets no
// noalias facts.
// CHECK-LABEL: func.func @shared_root(
// CHECK:       func.func private @shared_root_nest(
// CHECK-NOT:       ember.noalias_memrefs
// CHECK-SAME:      passthrough = ["noinline"]
func.func @shared_root(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %lo = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %hi = memref.subview %a[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %lo[%i] : memref<4xf32, strided<[1]>>
    memref.store %x, %hi[%i] : memref<4xf32, strided<[1], offset: 4>>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %hi[%i] : memref<4xf32, strided<[1], offset: 4>>
    memref.store %x, %lo[%i] : memref<4xf32, strided<[1]>>
  }
  return
}
