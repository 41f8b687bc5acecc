// RUN: ember-opt %s --pass-pipeline="builtin.module(func.func(ember-read-only-arguments))" | FileCheck %s
// RUN: ember-opt %s --pass-pipeline="builtin.module(func.func(ember-read-only-arguments),convert-ember-to-linalg,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})" | FileCheck %s --check-prefix=BUFFERS

// A public function's tensor arguments are read-only; other arguments and
// private functions' are left alone.
// CHECK-LABEL: func.func @entry(
// CHECK-SAME:      %{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: tensor<2xi64> {bufferization.writable = false}, %{{.*}}: tensor<2xf32> {bufferization.writable = false}, %{{.*}}: index)
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME:      %{{.*}}: tensor<4xf32>)

// Bufferized, the scatter writes into a copy of the caller's tensor.
// BUFFERS-LABEL: func.func @entry(
// BUFFERS-SAME:      %[[X:.*]]: memref<4xf32>
// BUFFERS:         %[[COPY:.*]] = memref.alloc() {{.*}}: memref<4xf32>
// BUFFERS:         memref.copy %[[X]], %[[COPY]]
// BUFFERS-NEXT:    scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ITER:.*]] = %[[COPY]])
// BUFFERS-NOT:       memref.store %{{.*}}, %[[X]]
// BUFFERS:           memref.store %{{.*}}, %[[ITER]]
func.func @entry(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>, %n: index) -> tensor<4xf32> {
  %0 = ember.scatter add, %x, %i, %u axis = 0 : tensor<4xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<4xf32>
  %1 = func.call @helper(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
