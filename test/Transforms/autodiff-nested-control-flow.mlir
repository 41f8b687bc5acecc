// RUN: ember-opt %s --ember-autodiff --split-input-file | FileCheck %s

// Control flow nested in a loop: the reverse loop recomputes the body, and
// the nested scf.if / scf.for in it is swept like a top-level one. (The
// reverse loop's body used to be swept while scf::ForOp::create built it,
// before the loop was an operation: walking up from the nested region
// reached a region without a parent op and crashed.)

// A branch inside a counted loop (ember::cond inside ember::fori_loop): the
// reverse loop holds a backward scf.if on the recomputed condition, which
// yields the cotangents of the iteration's state and of the captured %x.
// CHECK-LABEL: func.func @if_in_for_vjp(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<f32>, %[[G:[^:]*]]: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK:         %[[SAVED:.*]]:2 = scf.for {{.*}} iter_args
// CHECK:           tensor.insert_slice
// CHECK:         %[[REV:.*]]:2 = scf.for {{.*}} iter_args(%[[DS:[^ ]*]] = %[[G]], %[[DX:[^ ]*]] = %{{.*}})
// CHECK:           %[[S:.*]] = tensor.extract_slice %[[SAVED]]#1
// CHECK:           %[[GT:.*]] = ember.compare gt, %[[S]]
// CHECK:           %[[P:.*]] = tensor.extract %[[GT]][]
// CHECK:           %[[BR:.*]]:2 = scf.if %[[P]] -> (tensor<f32>, tensor<f32>) {
// CHECK-DAG:         %[[A:.*]] = ember.mul %[[DS]], %[[X]]
// CHECK-DAG:         %[[B:.*]] = ember.mul %[[DS]], %[[S]]
// CHECK:             scf.yield %[[A]], %[[B]] : tensor<f32>, tensor<f32>
// CHECK:           } else {
// CHECK:             %[[N:.*]] = ember.neg %[[DS]]
// CHECK:             %[[Z:.*]] = ember.constant dense<0.000000e+00>
// CHECK:             scf.yield %[[N]], %[[Z]] : tensor<f32>, tensor<f32>
// CHECK:           }
// CHECK:           %[[SUM:.*]] = ember.add %[[DX]], %[[BR]]#1
// CHECK:           scf.yield %[[BR]]#0, %[[SUM]] : tensor<f32>, tensor<f32>
// CHECK:         }
// CHECK:         %[[TOTAL:.*]] = ember.add %[[REV]]#0, %[[REV]]#1
// CHECK:         return %{{.*}}, %[[TOTAL]] : tensor<f32>, tensor<f32>
func.func @if_in_for(%x: tensor<f32>) -> tensor<f32> attributes {ember.differentiate} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %0 = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %x) -> tensor<f32> {
    %zero = ember.constant dense<0.0> : tensor<f32>
    %gt = ember.compare gt, %s, %zero : tensor<f32>
    %p = tensor.extract %gt[] : tensor<i1>
    %r = scf.if %p -> tensor<f32> {
      %m = ember.mul %s, %x : tensor<f32>
      scf.yield %m : tensor<f32>
    } else {
      %n = ember.neg %s : tensor<f32>
      scf.yield %n : tensor<f32>
    }
    scf.yield %r : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// A loop inside a loop: the inner loop, recomputed inside the outer reverse
// loop, gets its own saving and reverse loops there.
// CHECK-LABEL: func.func @for_in_for_vjp(
// CHECK:         scf.for
// CHECK:         scf.for
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:           scf.for
// CHECK:             tensor.insert_slice
// CHECK:           scf.for
// CHECK:             tensor.extract_slice
// CHECK:             ember.mul
// CHECK:         return
func.func @for_in_for(%x: tensor<f32>) -> tensor<f32> attributes {ember.differentiate} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = scf.for %i = %c0 to %c2 step %c1 iter_args(%s = %x) -> tensor<f32> {
    %1 = scf.for %j = %c0 to %c2 step %c1 iter_args(%t = %s) -> tensor<f32> {
      %m = ember.mul %t, %x : tensor<f32>
      scf.yield %m : tensor<f32>
    }
    scf.yield %1 : tensor<f32>
  }
  return %0 : tensor<f32>
}
