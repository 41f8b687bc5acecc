// RUN: ember-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(ember-dynamic-results-in-out-params))' | FileCheck %s

// A dynamic result computed in a buffer of its own and copied out at the end
// is computed in the out-param: no allocation, no copy, nothing leaked.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[IN]] : memref<?xf32>) outs(%[[OUT]] : memref<?xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @dynamic(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%in : memref<?xf32>) outs(%a : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  return
}

// -----

// Copied out through reshapes (views of the same elements in the same
// order): the buffer becomes a row-major view of the out-param.
// CHECK-LABEL: func.func @reshaped(
// CHECK-SAME:      %[[IN:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [%{{.*}}], strides: [1] : memref<?x?xf32> to memref<?xf32>
// CHECK:         linalg.fill {{.*}} outs(%[[V]] : memref<?xf32>)
// CHECK-NOT:     memref.copy
func.func @reshaped(%in: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.dim %in, %c0 : memref<?x?xf32>
  %c = memref.dim %in, %c1 : memref<?x?xf32>
  %n = arith.muli %r, %c : index
  %a = memref.alloc(%n) : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<?xf32>)
  %e = memref.expand_shape %a [[0, 1]] output_shape [%r, %c] : memref<?xf32> into memref<?x?xf32>
  memref.copy %e, %out : memref<?x?xf32> to memref<?x?xf32>
  return
}

// -----

// The out-param read before the copy (it is not only an output), or the
// buffer used after it: left alone.
// CHECK-LABEL: func.func @read_out_param(
// CHECK:         memref.alloc
// CHECK:         memref.copy
func.func @read_out_param(%in: memref<?xf32>, %out: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  %v = memref.load %out[%c0] : memref<?xf32>
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  return %v : f32
}

// -----

// CHECK-LABEL: func.func @used_after(
// CHECK:         memref.alloc
// CHECK:         memref.copy
func.func @used_after(%in: memref<?xf32>, %out: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  %v = memref.load %a[%c0] : memref<?xf32>
  return %v : f32
}
