// RUN: ember-opt %s --split-input-file "--pass-pipeline=builtin.module(func.func(ember-fuse-elementwise-ops{contractions-take-moves-only=true}))" | FileCheck %s
// RUN: ember-opt %s --split-input-file "--pass-pipeline=builtin.module(func.func(ember-fuse-elementwise-ops))" | FileCheck %s --check-prefix=ALL

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// A matmul's B computed elementwise (dz * mask): kept apart with
// contractions-take-moves-only (a matmul that GPU tiles read from buffers),
// fused as upstream does without. A's transpose is fused either way (the
// matmul reads A transposed).
// CHECK-LABEL: func.func @matmul_of_a_product(
// CHECK:         %[[PRODUCT:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:           arith.mulf
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[PRODUCT]] : tensor<8x16xf32>, tensor<8x32xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         return
// ALL-LABEL: func.func @matmul_of_a_product(
// ALL:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// ALL-NOT:     linalg.generic
// ALL:         return
func.func @matmul_of_a_product(%x: tensor<8x16xf32>, %dz: tensor<8x32xf32>, %mask: tensor<8x32xf32>) -> tensor<16x32xf32> {
  %e0 = tensor.empty() : tensor<16x8xf32>
  %xt = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e0 : tensor<16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x8xf32>
  %e1 = tensor.empty() : tensor<8x32xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%dz, %mask : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%u: f32, %v: f32, %out: f32):
    %m = arith.mulf %u, %v : f32
    linalg.yield %m : f32
  } -> tensor<8x32xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xt, %p : tensor<16x8xf32>, tensor<8x32xf32>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// Elementwise chains and reductions other than contractions fuse as
// upstream's pass fuses them.
// CHECK-LABEL: func.func @sum_of_squares(
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sum_of_squares(%x: tensor<8x32xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%u: f32, %out: f32):
    %m = arith.mulf %u, %u : f32
    linalg.yield %m : f32
  } -> tensor<8x32xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%u: f32, %acc: f32):
    %s = arith.addf %acc, %u : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
