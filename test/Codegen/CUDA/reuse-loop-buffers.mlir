// RUN: ember-opt %s --ember-reuse-loop-buffers --split-input-file | FileCheck %s

// A loop that yields a new product each iteration (power(x, 100)): the
// product reads the accumulator while writing the new one, so the loop is
// unrolled by two: the first half writes a temporary, the second writes the
// accumulator in place (after zeroing it). The loop carries no buffer.
// CHECK-LABEL: func.func @power(
// CHECK-SAME:      %[[X:.*]]: memref<10x10xf32>, %[[OUT:.*]]: memref<10x10xf32>)
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<10x10xf32>
// CHECK:         linalg.fill ins(%{{.*}}) outs(%[[ACC]]
// CHECK:         scf.for %{{.*}} = %c0 to %c100 step %c2 {
// CHECK:           %[[T:.*]] = memref.alloc() : memref<10x10xf32>
// CHECK:           linalg.fill ins(%{{.*}}) outs(%[[T]]
// CHECK:           linalg.matmul ins(%[[ACC]], %[[X]] : {{.*}}) outs(%[[T]]
// CHECK:           linalg.fill ins(%{{.*}}) outs(%[[ACC]]
// CHECK:           linalg.matmul ins(%[[T]], %[[X]] : {{.*}}) outs(%[[ACC]]
// CHECK-NOT:       scf.yield %
// CHECK:         }
// CHECK:         memref.copy %[[ACC]], %[[OUT]]
func.func @power(%x: memref<10x10xf32>, %out: memref<10x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  %init = memref.alloc() : memref<10x10xf32>
  linalg.fill ins(%zero : f32) outs(%init : memref<10x10xf32>)
  %r = scf.for %k = %c0 to %c100 step %c1 iter_args(%acc = %init) -> (memref<10x10xf32>) {
    %next = memref.alloc() : memref<10x10xf32>
    linalg.fill ins(%zero : f32) outs(%next : memref<10x10xf32>)
    linalg.matmul ins(%acc, %x : memref<10x10xf32>, memref<10x10xf32>) outs(%next : memref<10x10xf32>)
    scf.yield %next : memref<10x10xf32>
  }
  memref.copy %r, %out : memref<10x10xf32> to memref<10x10xf32>
  return
}

// -----

// An odd trip count runs the first iteration before the unrolled loop; it
// reads the argument and writes a new buffer, which the loop then reuses
// (the argument itself is never written).
// CHECK-LABEL: func.func @odd_from_argument(
// CHECK-SAME:      %[[X:.*]]: memref<10x10xf32>, %[[OUT:.*]]: memref<10x10xf32>)
// CHECK:         %[[FIRST:.*]] = memref.alloc() : memref<10x10xf32>
// CHECK:         linalg.matmul ins(%[[X]], %[[X]] : {{.*}}) outs(%[[FIRST]]
// CHECK:         scf.for %{{.*}} = %c2{{.*}} to %c100 step %c2{{.*}} {
// CHECK:           linalg.matmul ins(%[[FIRST]], %[[X]] : {{.*}}) outs(%[[T:[^ ]*]]
// CHECK:           linalg.matmul ins(%[[T]], %[[X]] : {{.*}}) outs(%[[FIRST]]
// CHECK:         memref.copy %[[FIRST]], %[[OUT]]
func.func @odd_from_argument(%x: memref<10x10xf32>, %out: memref<10x10xf32>) {
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %k = %c1 to %c100 step %c1 iter_args(%acc = %x) -> (memref<10x10xf32>) {
    %next = memref.alloc() : memref<10x10xf32>
    linalg.fill ins(%zero : f32) outs(%next : memref<10x10xf32>)
    linalg.matmul ins(%acc, %x : memref<10x10xf32>, memref<10x10xf32>) outs(%next : memref<10x10xf32>)
    scf.yield %next : memref<10x10xf32>
  }
  memref.copy %r, %out : memref<10x10xf32> to memref<10x10xf32>
  return
}

// -----

// An elementwise body writes in place (each element is read where it is
// written); a product with an unknown trip count copies its result back at
// the end of each iteration.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[X:.*]]: memref<16xf32>, %[[N:.*]]: index, %[[M:.*]]: memref<4x4xf32>,
// CHECK:         %[[V:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         memref.copy %[[X]], %[[V]]
// CHECK:         %[[P:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK:         memref.copy %[[M]], %[[P]]
// CHECK:         scf.for %{{.*}} = %c0 to %[[N]] step %c1 {
// CHECK-NOT:       memref.alloc() : memref<16xf32>
// CHECK:           linalg.generic {{.*}} ins(%[[V]] : memref<16xf32>) outs(%[[V]] : memref<16xf32>)
// CHECK:           %[[T:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK:           linalg.matmul ins(%[[P]], %[[P]] : {{.*}}) outs(%[[T]]
// CHECK:           memref.copy %[[T]], %[[P]]
// CHECK-NOT:       scf.yield %
func.func @dynamic(%x: memref<16xf32>, %n: index, %m: memref<4x4xf32>, %out: memref<16xf32>, %mout: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %x, %p = %m) -> (memref<16xf32>, memref<4x4xf32>) {
    %next = memref.alloc() : memref<16xf32>
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%acc : memref<16xf32>) outs(%next : memref<16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    }
    %q = memref.alloc() : memref<4x4xf32>
    linalg.fill ins(%zero : f32) outs(%q : memref<4x4xf32>)
    linalg.matmul ins(%p, %p : memref<4x4xf32>, memref<4x4xf32>) outs(%q : memref<4x4xf32>)
    scf.yield %next, %q : memref<16xf32>, memref<4x4xf32>
  }
  memref.copy %r#0, %out : memref<16xf32> to memref<16xf32>
  memref.copy %r#1, %mout : memref<4x4xf32> to memref<4x4xf32>
  return
}

// -----

// A traced while_loop: the condition passes a copy of the buffer on, the
// body yields a new one; both become the one buffer, written in place.
// CHECK-LABEL: func.func @halve(
// CHECK-SAME:      %[[X:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<16xf32>)
// CHECK:         %[[V:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         memref.copy %[[X]], %[[V]]
// CHECK:         scf.while : () -> () {
// CHECK:           linalg.generic {{.*}} ins(%[[V]] : memref<16xf32>) outs(%[[SUM:.*]] : memref<f32>)
// CHECK-NOT:       memref.copy
// CHECK:           scf.condition(%{{.*}})
// CHECK:         } do {
// CHECK:           linalg.generic {{.*}} ins(%[[V]] : memref<16xf32>) outs(%[[V]] : memref<16xf32>)
// CHECK:           scf.yield
// CHECK:         memref.copy %[[V]], %[[OUT]]
func.func @halve(%x: memref<16xf32>, %out: memref<16xf32>) {
  %half = arith.constant 0.5 : f32
  %limit = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %r = scf.while (%v = %x) : (memref<16xf32>) -> memref<16xf32> {
    %sum = memref.alloc() : memref<f32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<f32>)
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%v : memref<16xf32>) outs(%sum : memref<f32>) {
    ^bb0(%a: f32, %s: f32):
      %t = arith.addf %a, %s : f32
      linalg.yield %t : f32
    }
    %s = memref.load %sum[] : memref<f32>
    %more = arith.cmpf ogt, %s, %limit : f32
    %passed = memref.alloc() : memref<16xf32>
    memref.copy %v, %passed : memref<16xf32> to memref<16xf32>
    scf.condition(%more) %passed : memref<16xf32>
  } do {
  ^bb0(%v: memref<16xf32>):
    %next = memref.alloc() : memref<16xf32>
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%v : memref<16xf32>) outs(%next : memref<16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %h = arith.mulf %a, %half : f32
      linalg.yield %h : f32
    }
    scf.yield %next : memref<16xf32>
  }
  memref.copy %r, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// A branch (traced cond): one buffer allocated before it; the branch that
// computes writes it, the one that passes an argument on copies it.
// CHECK-LABEL: func.func @branch(
// CHECK-SAME:      %{{.*}}: i1, %[[X:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<16xf32>)
// CHECK:         %[[R:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         scf.if %{{.*}} {
// CHECK:           linalg.generic {{.*}} ins(%[[X]] : memref<16xf32>) outs(%[[R]] : memref<16xf32>)
// CHECK:         } else {
// CHECK:           memref.copy %[[X]], %[[R]]
// CHECK:         }
// CHECK:         memref.copy %[[R]], %[[OUT]]
func.func @branch(%c: i1, %x: memref<16xf32>, %out: memref<16xf32>) {
  %r = scf.if %c -> (memref<16xf32>) {
    %a = memref.alloc() : memref<16xf32>
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : memref<16xf32>) outs(%a : memref<16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %s = arith.mulf %v, %v : f32
      linalg.yield %s : f32
    }
    scf.yield %a : memref<16xf32>
  } else {
    scf.yield %x : memref<16xf32>
  }
  memref.copy %r, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// A branch inside a loop (a traced cond in a fori_loop): bufferization
// gives the branch's result and the loop's variable a dynamic layout, cast
// from plain allocations; they get the plain layout back first, and then one
// buffer each.
// CHECK-LABEL: func.func @branch_in_loop(
// CHECK-SAME:      %{{.*}}: i1, %[[X:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<16xf32>)
// CHECK-NOT:     strided
// CHECK:         %[[V:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         memref.copy %[[X]], %[[V]]
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c2 {
// CHECK:           %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK:           scf.if %{{.*}} {
// CHECK:             linalg.generic {{.*}} ins(%[[V]] : memref<16xf32>) outs(%[[T]] : memref<16xf32>)
// CHECK:           } else {
// CHECK:             linalg.generic {{.*}} ins(%[[V]] : memref<16xf32>) outs(%[[T]] : memref<16xf32>)
// CHECK:           scf.if %{{.*}} {
// CHECK:             linalg.generic {{.*}} ins(%[[T]] : memref<16xf32>) outs(%[[V]] : memref<16xf32>)
// CHECK:           } else {
// CHECK:             linalg.generic {{.*}} ins(%[[T]] : memref<16xf32>) outs(%[[V]] : memref<16xf32>)
// CHECK:         memref.copy %[[V]], %[[OUT]]
func.func @branch_in_loop(%c: i1, %x: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cast = memref.cast %x : memref<16xf32> to memref<16xf32, strided<[?], offset: ?>>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%v = %cast) -> (memref<16xf32, strided<[?], offset: ?>>) {
    %n = scf.if %c -> (memref<16xf32, strided<[?], offset: ?>>) {
      %a = memref.alloc() : memref<16xf32>
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%v : memref<16xf32, strided<[?], offset: ?>>) outs(%a : memref<16xf32>) {
      ^bb0(%e: f32, %o: f32):
        %s = arith.mulf %e, %e : f32
        linalg.yield %s : f32
      }
      %ca = memref.cast %a : memref<16xf32> to memref<16xf32, strided<[?], offset: ?>>
      scf.yield %ca : memref<16xf32, strided<[?], offset: ?>>
    } else {
      %b = memref.alloc() : memref<16xf32>
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%v : memref<16xf32, strided<[?], offset: ?>>) outs(%b : memref<16xf32>) {
      ^bb0(%e: f32, %o: f32):
        %s = arith.addf %e, %e : f32
        linalg.yield %s : f32
      }
      %cb = memref.cast %b : memref<16xf32> to memref<16xf32, strided<[?], offset: ?>>
      scf.yield %cb : memref<16xf32, strided<[?], offset: ?>>
    }
    scf.yield %n : memref<16xf32, strided<[?], offset: ?>>
  }
  memref.copy %r, %out : memref<16xf32, strided<[?], offset: ?>> to memref<16xf32>
  return
}

// -----

// Buffers of more than 4096 elements: left as they are.
// CHECK-LABEL: func.func @too_big(
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (memref<100x100xf32>)
// CHECK:           memref.alloc() : memref<100x100xf32>
// CHECK:           scf.yield %{{.*}} : memref<100x100xf32>
func.func @too_big(%x: memref<100x100xf32>, %out: memref<100x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (memref<100x100xf32>) {
    %next = memref.alloc() : memref<100x100xf32>
    linalg.copy ins(%acc : memref<100x100xf32>) outs(%next : memref<100x100xf32>)
    scf.yield %next : memref<100x100xf32>
  }
  memref.copy %r, %out : memref<100x100xf32> to memref<100x100xf32>
  return
}
