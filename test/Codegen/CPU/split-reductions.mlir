// RUN: ember-opt %s --convert-ember-to-linalg --canonicalize --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --ember-cpu-split-reductions --split-input-file | FileCheck %s

// sum(x * x) over a whole 1024x256 tensor: the fused generic's two
// reduction dims collapse into one of 262144, split into 64 blocks whose
// partial sums are computed along a new parallel dim, then summed.
// CHECK-LABEL: func.func @sum_of_squares(
// CHECK-SAME:      %[[X:.*]]: tensor<1024x256xf32>
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<1024x256xf32> into tensor<262144xf32>
// CHECK:         %[[BLOCKS:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [64, 4096] : tensor<262144xf32> into tensor<64x4096xf32>
// CHECK:         %[[PARTIALS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[BLOCKS]] : tensor<64x4096xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf {{.*}} fastmath<reassoc>
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[PARTIALS]] : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:           arith.addf {{.*}} fastmath<reassoc>
func.func @sum_of_squares(%x: tensor<1024x256xf32>) -> tensor<f32> {
  %0 = ember.mul %x, %x : tensor<1024x256xf32>
  %1 = ember.reduce_sum %0 axes = [0, 1] : tensor<1024x256xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// Small reductions, and reductions along rows (ember-cpu-parallelize splits
// their rows), are left alone.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         iterator_types = ["reduction"]
// CHECK:         iterator_types = ["parallel", "reduction"]
func.func @left_alone(%x: tensor<1000xf32>, %y: tensor<1024x256xf32>) -> (tensor<f32>, tensor<1024xf32>) {
  %0 = ember.reduce_sum %x axes = [0] : tensor<1000xf32> -> tensor<f32>
  %1 = ember.reduce_sum %y axes = [1] : tensor<1024x256xf32> -> tensor<1024xf32>
  return %0, %1 : tensor<f32>, tensor<1024xf32>
}
