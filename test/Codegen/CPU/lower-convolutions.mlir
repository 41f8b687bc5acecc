// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-convolutions | FileCheck %s

// A convolution as the matmul of its patches: [N, OH, OW, KH, KW, C] read
// through the strides and dilations (an affine map), collapsed to
// [N * OH * OW, KH * KW * C], times the filter as [KH * KW * C, F], into a
// fresh zero fill (which ember-cpu-lower-matmuls then blocks).
// CHECK-DAG:   #[[$READ:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 + d4 * 2, d5)>
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:      %[[X:.*]]: tensor<2x9x8x3xf32>, %[[W:.*]]: tensor<3x2x3x4xf32>)
// CHECK:         %[[PATCHES:.*]] = linalg.generic {indexing_maps = [#[[$READ]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x9x8x3xf32>) outs(%{{.*}} : tensor<2x4x6x3x2x3xf32>)
// CHECK:         %[[A:.*]] = tensor.collapse_shape %[[PATCHES]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<2x4x6x3x2x3xf32> into tensor<48x18xf32>
// CHECK:         %[[B:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1, 2], [3]] : tensor<3x2x3x4xf32> into tensor<18x4xf32>
// CHECK:         %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<48x4xf32>)
// CHECK:         %[[C:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<48x18xf32>, tensor<18x4xf32>) outs(%[[ZERO]] : tensor<48x4xf32>)
// CHECK:         tensor.expand_shape %[[C]] {{\[\[}}0, 1, 2], [3]] output_shape [2, 4, 6, 4] : tensor<48x4xf32> into tensor<2x4x6x4xf32>
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
func.func @conv(%x: tensor<2x9x8x3xf32>, %w: tensor<3x2x3x4xf32>) -> tensor<2x4x6x4xf32> {
  %0 = ember.conv2d %x, %w strides = [2, 1] dilations = [1, 2] input_dilations = [1, 1] padding = [0, 0, 0, 0] : tensor<2x9x8x3xf32>, tensor<3x2x3x4xf32> -> tensor<2x4x6x4xf32>
  return %0 : tensor<2x4x6x4xf32>
}

// A `?` batch: the patches, their matrix and the accumulator have `?` rows;
// the product is expanded back with the batch read at run time.
// CHECK-LABEL: func.func @conv_dynamic_batch(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<?x4x4x3x3x3xf32>)
// CHECK:         %[[A:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<?x4x4x3x3x3xf32> into tensor<?x27xf32>
// CHECK:         linalg.matmul ins(%[[A]], %{{.*}} : tensor<?x27xf32>, tensor<27x4xf32>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [%{{.*}}, 4, 4, 4] : tensor<?x4xf32> into tensor<?x4x4x4xf32>
func.func @conv_dynamic_batch(%x: tensor<?x6x6x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<?x4x4x4xf32> {
  %0 = ember.conv2d %x, %w strides = [1, 1] dilations = [1, 1] input_dilations = [1, 1] padding = [0, 0, 0, 0] : tensor<?x6x6x3xf32>, tensor<3x3x3x4xf32> -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}
