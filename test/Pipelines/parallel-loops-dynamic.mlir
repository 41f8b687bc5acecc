// RUN: ember-opt %s --ember-lower-to-llvm --mlir-print-ir-after=ember-cpu-parallelize 2>&1 >/dev/null | FileCheck %s

// A shape-generic op splits its rows when the code runs: if it has at least
// two rows and 65536 iterations, into at most 64 blocks of ceil(rows /
// blocks) rows each, in parallel; otherwise it runs as it is.
// CHECK-LABEL: func.func @f(
// CHECK:         %[[ENOUGH:.*]] = arith.andi
// CHECK:         %[[BLOCKS:.*]] = arith.minui %[[ROWS:.*]], %{{.*}} : index
// CHECK:         %[[TILE:.*]] = arith.ceildivui %[[ROWS]], %[[BLOCKS]] : index
// CHECK:         scf.if %[[ENOUGH]] {
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[TILE]]) {
// CHECK:             linalg.generic
// CHECK:               math.exp
// CHECK:         } else {
// CHECK:           linalg.generic
// CHECK:             math.exp
func.func @f(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = ember.exp %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
