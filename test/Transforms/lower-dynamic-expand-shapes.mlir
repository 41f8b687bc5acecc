// RUN: ember-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(ember-lower-dynamic-expand-shapes))' | FileCheck %s
// RUN: ember-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(ember-lower-dynamic-expand-shapes),expand-strided-metadata)' | FileCheck %s --check-prefix=META

// One dim split into two dynamic ones: a view with row-major strides, which
// expand-strided-metadata then takes (upstream crashes on the expand_shape).
// CHECK-LABEL: func.func @split(
// CHECK-SAME:      %[[M:.*]]: memref<?xf32>, %[[R:.*]]: index, %[[C:.*]]: index)
// CHECK-NOT:     memref.expand_shape
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[M]] to offset: [0], sizes: [%[[R]], %[[C]]], strides: [%[[C]], 1] : memref<?xf32> to memref<?x?xf32>
// CHECK:         memref.load %[[V]]
// META-LABEL: func.func @split(
// META:         memref.reinterpret_cast
func.func @split(%m: memref<?xf32>, %r: index, %c: index) -> f32 {
  %e = memref.expand_shape %m [[0, 1]] output_shape [%r, %c] : memref<?xf32> into memref<?x?xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %e[%c0, %c0] : memref<?x?xf32>
  return %v : f32
}

// -----

// Three dims, a static one among them: the strides multiply out.
// CHECK-LABEL: func.func @three(
// CHECK-SAME:      %[[M:.*]]: memref<?xf32>, %[[R:.*]]: index, %[[C:.*]]: index)
// CHECK:         %[[S:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:         memref.reinterpret_cast %[[M]] to offset: [0], sizes: [%[[R]], %[[C]], 4], strides: [%[[S]], 4, 1]
func.func @three(%m: memref<?xf32>, %r: index, %c: index) -> memref<?x?x4xf32> {
  %e = memref.expand_shape %m [[0, 1, 2]] output_shape [%r, %c, 4] : memref<?xf32> into memref<?x?x4xf32>
  return %e : memref<?x?x4xf32>
}

// -----

// At most one dynamic dim per group is upstream's to lower: left alone.
// CHECK-LABEL: func.func @one_dynamic(
// CHECK:         memref.expand_shape
func.func @one_dynamic(%m: memref<?xf32>, %r: index) -> memref<?x4xf32> {
  %e = memref.expand_shape %m [[0, 1]] output_shape [%r, 4] : memref<?xf32> into memref<?x4xf32>
  return %e : memref<?x4xf32>
}
