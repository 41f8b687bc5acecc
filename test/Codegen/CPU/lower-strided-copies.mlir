// RUN: ember-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(ember-cpu-lower-strided-copies))" | FileCheck %s

// A copy into a padded buffer's interior (a strided subview) becomes a
// linalg.copy (loops LLVM vectorizes, split among threads when large); a
// copy between contiguous buffers stays one memref.copy (one memcpy).
// CHECK-LABEL: func.func @pad(
// CHECK-SAME:      %[[X:.*]]: memref<2x8x8x4xf32>, %[[Y:.*]]: memref<2x8x8x4xf32>, %[[P:.*]]: memref<2x10x10x4xf32>)
// CHECK:         %[[IN:.*]] = memref.subview %[[P]][0, 1, 1, 0] [2, 8, 8, 4] [1, 1, 1, 1]
// CHECK-NEXT:    linalg.copy ins(%[[X]] : memref<2x8x8x4xf32>) outs(%[[IN]] : memref<2x8x8x4xf32, strided<[400, 40, 4, 1], offset: 44>>)
// CHECK-NEXT:    memref.copy %[[X]], %[[Y]] : memref<2x8x8x4xf32> to memref<2x8x8x4xf32>
// CHECK-NOT:     memref.copy
func.func @pad(%x: memref<2x8x8x4xf32>, %y: memref<2x8x8x4xf32>, %p: memref<2x10x10x4xf32>) {
  %in = memref.subview %p[0, 1, 1, 0] [2, 8, 8, 4] [1, 1, 1, 1] : memref<2x10x10x4xf32> to memref<2x8x8x4xf32, strided<[400, 40, 4, 1], offset: 44>>
  memref.copy %x, %in : memref<2x8x8x4xf32> to memref<2x8x8x4xf32, strided<[400, 40, 4, 1], offset: 44>>
  memref.copy %x, %y : memref<2x8x8x4xf32> to memref<2x8x8x4xf32>
  return
}

// -----

// A transposed view as the source, and dynamic sizes: loops too. A
// contiguous subview (whole rows) stays a memcpy.
// CHECK-LABEL: func.func @transposed(
// CHECK:         linalg.copy ins(%{{.*}} : memref<?x?xf32, strided<[1, ?]>>) outs(%{{.*}} : memref<?x?xf32>)
// CHECK:         memref.copy %{{.*}}, %{{.*}} : memref<2x16xf32, strided<[16, 1], offset: 32>> to memref<2x16xf32>
func.func @transposed(%x: memref<?x?xf32>, %y: memref<?x?xf32>, %z: memref<8x16xf32>, %w: memref<2x16xf32>) {
  %t = memref.transpose %x (i, j) -> (j, i) : memref<?x?xf32> to memref<?x?xf32, strided<[1, ?]>>
  memref.copy %t, %y : memref<?x?xf32, strided<[1, ?]>> to memref<?x?xf32>
  %rows = memref.subview %z[2, 0] [2, 16] [1, 1] : memref<8x16xf32> to memref<2x16xf32, strided<[16, 1], offset: 32>>
  memref.copy %rows, %w : memref<2x16xf32, strided<[16, 1], offset: 32>> to memref<2x16xf32>
  return
}
