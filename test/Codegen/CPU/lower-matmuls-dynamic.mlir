// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls --cse --split-input-file | FileCheck %s

// Sizes known at run time: the blocked matmul's loops run to the run-time
// M, N and K. B's panels are always packed (N may leave a partial panel, K
// may make a panel longer than L1), [K, 16] with K a `?`; rows past M are
// read as A's last row and masked when written, like columns past N.
// CHECK-LABEL: func.func @all_dynamic(
// CHECK-SAME:      %[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>
// CHECK-DAG:     %[[M:.*]] = tensor.dim %[[A]], %c0
// CHECK-DAG:     %[[N:.*]] = tensor.dim %[[B]], %c1
// CHECK-DAG:     %[[K:.*]] = tensor.dim %[[A]], %c1
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %c16
// CHECK:           tensor.empty(%[[K]]) : tensor<?x16xf32>
// CHECK:           %[[PANEL:.*]] = scf.for {{.*}} to %[[K]] {{.*}} -> (tensor<?x16xf32>)
// CHECK:             vector.transfer_read %[[B]]{{.*}} : tensor<?x?xf32>, vector<8xf32>
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %[[M]] step %c6
// CHECK:             %[[LAST:.*]] = arith.subi %[[M]], %c1
// CHECK:             arith.minsi %{{.*}}, %[[LAST]]
// CHECK:             %{{.*}}:12 = scf.for {{.*}} to %[[K]] {{.*}} iter_args
// CHECK-COUNT-2:       vector.transfer_read %[[PANEL]]{{.*}} {in_bounds = [true]} : tensor<?x16xf32>, vector<8xf32>
// CHECK-COUNT-12:      vector.fma
// CHECK:             vector.transfer_write %{{.*}}[%[[I]], %[[J]]] {ember.matmul_block_write} : vector<6x16xf32>, tensor<?x?xf32>
// CHECK:         } {ember.blocked_matmul_rows = 0 : i64}
func.func @all_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = ember.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A dynamic batch (M) with N and K known: whole panels that fit L1 are read
// from B in place, and whole columns written in bounds; the rows are masked.
// CHECK-LABEL: func.func @dynamic_batch(
// CHECK-SAME:      %[[A:.*]]: tensor<?x40xf32>, %[[B:.*]]: tensor<40x32xf32>
// CHECK-NOT:     tensor.empty() : tensor<40x16xf32>
// CHECK:               vector.transfer_read %[[B]]{{.*}} {in_bounds = [true]} : tensor<40x32xf32>, vector<8xf32>
// CHECK:             vector.transfer_write {{.*}} {ember.matmul_block_write, in_bounds = [false, true]} : vector<6x16xf32>, tensor<?x32xf32>
func.func @dynamic_batch(%a: tensor<?x40xf32>, %b: tensor<40x32xf32>) -> tensor<?x32xf32> {
  %0 = ember.matmul %a, %b : tensor<?x40xf32>, tensor<40x32xf32> -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

// Short, narrow rows known (K, N <= 16) with a run-time M (a convolution's
// first layer on a `?` batch): a loop over A's rows, each row of C one
// vector, K fused multiply-adds of B's rows.
// CHECK-LABEL: func.func @short_rows(
// CHECK-SAME:      %[[A:.*]]: tensor<?x3xf32>
// CHECK:         %[[M:.*]] = tensor.dim %[[A]], %c0
// CHECK:         %[[C:.*]] = tensor.empty(%[[M]]) : tensor<?x4xf32>
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %[[M]] step %c1{{.*}} iter_args(%{{.*}} = %[[C]]) -> (tensor<?x4xf32>)
// CHECK-COUNT-3:   vector.fma {{.*}} : vector<4xf32>
// CHECK:           vector.transfer_write {{.*}} : vector<4xf32>, tensor<?x4xf32>
// CHECK:         ember.blocked_matmul_rows = 0
func.func @short_rows(%a: tensor<?x3xf32>, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %0 = ember.matmul %a, %b : tensor<?x3xf32>, tensor<3x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Batched with a run-time batch: the loop nest over [batch, m, k, n].
// CHECK-LABEL: func.func @batched(
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK-SAME:      outs(%{{.*}} : tensor<?x20x30xf32>)
func.func @batched(%a: tensor<?x20x25xf32>, %b: tensor<?x25x30xf32>) -> tensor<?x20x30xf32> {
  %0 = ember.matmul %a, %b : tensor<?x20x25xf32>, tensor<?x25x30xf32> -> tensor<?x20x30xf32>
  return %0 : tensor<?x20x30xf32>
}
