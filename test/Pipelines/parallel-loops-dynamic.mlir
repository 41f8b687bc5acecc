// RUN: ember-opt %s --pass-pipeline='builtin.module(convert-ember-to-linalg,one-shot-bufferize{bufferize-function-boundaries},func.func(ember-cpu-parallelize{split-dynamic-sizes}))' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(convert-ember-to-linalg,one-shot-bufferize{bufferize-function-boundaries},func.func(ember-cpu-parallelize{split-dynamic-sizes}),convert-linalg-to-loops,convert-scf-to-openmp,ember-omp-num-threads)' | FileCheck %s --check-prefix=OMP
// RUN: ember-opt %s --ember-lower-to-llvm --mlir-print-ir-after=ember-cpu-parallelize 2>&1 >/dev/null | FileCheck %s --check-prefix=JIT

// A shape-generic op splits its rows when the code runs: with at least two
// rows and 65536 iterations into at most 64 blocks of ceil(rows / blocks)
// rows, else into one block of all rows. One copy of the loop either way.
// No division by 0 where there are no rows: the blocks are at least 1.
// CHECK-LABEL: func.func @f(
// CHECK:         %[[ENOUGH:.*]] = arith.andi
// CHECK:         %[[WHOLE:.*]] = arith.maxui %[[ROWS:.*]], %{{.*}} : index
// CHECK:         %[[BLOCKS:.*]] = arith.minui %[[WHOLE]], %{{.*}} : index
// CHECK:         %[[SPLIT:.*]] = arith.ceildivui %[[ROWS]], %[[BLOCKS]] : index
// CHECK:         %[[TILE:.*]] = arith.select %[[ENOUGH]], %[[SPLIT]], %[[WHOLE]] : index
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[TILE]]) {
// CHECK:           linalg.generic
// CHECK:             math.exp
// CHECK-NOT:     linalg.generic

// The JIT's pipeline leaves shape-generic ops serial (their compile time
// would double); their hot shapes are specialized, and split, instead.
// JIT-LABEL: func.func @f(
// JIT-NOT:     scf.parallel
// JIT:         linalg.generic
// JIT-NOT:     scf.parallel

// One block runs on the calling thread: the OpenMP region starts a team only
// when its loop has more than one iteration.
// OMP-LABEL: func.func @f(
// OMP:         %[[SEVERAL:.*]] = arith.cmpi sgt, %{{.*}}, %{{.*}} : index
// OMP:         omp.parallel if(%[[SEVERAL]]) num_threads(%{{.*}} : i32) {
func.func @f(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = ember.exp %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

