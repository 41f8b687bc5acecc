// RUN: ember-opt %s --pass-pipeline='builtin.module(convert-ember-to-linalg,func.func(ember-cpu-lower-matmuls{vector-bits=256}),one-shot-bufferize{bufferize-function-boundaries},canonicalize,func.func(ember-cpu-parallelize{split-dynamic-sizes}))' | FileCheck %s --check-prefix=MATMUL

// A blocked matmul with a `?` M (a convolution's rows on a `?` batch) and
// one panel of columns: its loop over row blocks is shared, however many
// there turn out to be.
// MATMUL-LABEL: func.func @mm(
// MATMUL:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%c6{{.*}})
// MATMUL:           vector.fma
// MATMUL:         } {ember.blocked_matmul_rows = 0 : i64}
func.func @mm(%a: tensor<?x144xf32>, %b: tensor<144x16xf32>) -> tensor<?x16xf32> {
  %0 = ember.matmul %a, %b : tensor<?x144xf32>, tensor<144x16xf32> -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
