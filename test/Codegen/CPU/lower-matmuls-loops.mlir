// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls --split-input-file | FileCheck %s

// Small matmuls stay one linalg.generic accumulating into the zero fill. A
// short reduction (up to 16) runs innermost, over (i, j, k), as in a
// hand-written loop: LLVM unrolls it and vectorizes j.
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[M:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:        ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[M]]
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = ember.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Batched: the batch dim leads every map; loops (b, i, j, k).
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG:   #[[$C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_matmul_rank4(
// CHECK:         %[[M:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:        : tensor<10x3x4xi64>, tensor<10x4x6xi64>) outs(%{{.*}} : tensor<10x3x6xi64>)
// CHECK:           arith.muli
// CHECK:           arith.addi
// CHECK:         tensor.expand_shape %[[M]]
func.func @batch_matmul_rank4(%a: tensor<5x2x3x4xi64>, %b: tensor<5x2x4x6xi64>) -> tensor<5x2x3x6xi64> {
  %0 = ember.matmul %a, %b : tensor<5x2x3x4xi64>, tensor<5x2x4x6xi64> -> tensor<5x2x3x6xi64>
  return %0 : tensor<5x2x3x6xi64>
}

// -----

// A longer reduction runs in the middle, over (i, k, j): the innermost loop
// walks rows of B and C, which vectorizes.
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul_long_reduction(
// CHECK:         linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @matmul_long_reduction(%a: tensor<3x40xi32>, %b: tensor<40x5xi32>) -> tensor<3x5xi32> {
  %0 = ember.matmul %a, %b : tensor<3x40xi32>, tensor<40x5xi32> -> tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}

// -----

// A matmul that does not start from zeros (written by hand, not by
// convert-ember-to-linalg) accumulates into its init: left alone.
// CHECK-LABEL: func.func @accumulating(
// CHECK:         linalg.matmul
func.func @accumulating(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// A batch of large matmuls (each 128 x 32 x 128, a transformer's attention
// scores): a loop over the batch, each matmul's 2-D slices blocked (panels,
// blocks of rows, vector FMAs) and inserted into C; no loop nest over
// (b, i, k, j).
// CHECK-LABEL: func.func @batch_of_large_matmuls(
// CHECK-SAME:      %[[A:.*]]: tensor<4x128x32xf32>, %[[B:.*]]: tensor<4x32x128xf32>)
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4x128x128xf32>) {
// CHECK-DAG:       %[[AI:.*]] = tensor.extract_slice %[[A]][%[[I]], 0, 0] [1, 128, 32] [1, 1, 1] : tensor<4x128x32xf32> to tensor<128x32xf32>
// CHECK-DAG:       %[[BI:.*]] = tensor.extract_slice %[[B]][%[[I]], 0, 0] [1, 32, 128] [1, 1, 1] : tensor<4x32x128xf32> to tensor<32x128xf32>
// CHECK:           scf.for
// CHECK:             vector.fma
// CHECK:           } {ember.blocked_matmul
// CHECK:           %[[INS:.*]] = tensor.insert_slice %{{.*}} into %[[ACC]][%[[I]], 0, 0] [1, 128, 128] [1, 1, 1] : tensor<128x128xf32> into tensor<4x128x128xf32>
// CHECK:           scf.yield %[[INS]]
// CHECK-NOT:     linalg.generic
func.func @batch_of_large_matmuls(%a: tensor<4x128x32xf32>, %b: tensor<4x32x128xf32>) -> tensor<4x128x128xf32> {
  %0 = ember.matmul %a, %b : tensor<4x128x32xf32>, tensor<4x32x128xf32> -> tensor<4x128x128xf32>
  return %0 : tensor<4x128x128xf32>
}
