// RUN: ember-opt %s --ember-fuse-elementwise-trees --split-input-file | FileCheck %s

// A chain of three elementwise ops: one generic, in one step. The splat
// constant is a scalar in the body, and the two identical reshapes of %x are
// one input.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xf32>)
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[X]]
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<4xf32>) outs(
// CHECK-NEXT:    ^bb0(%[[E:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[E]], %[[HALF]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[A]], %[[E]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[M]] : f32
// CHECK-NEXT:      linalg.yield %[[N]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<2x2xf32>) -> tensor<4xf32> {
  %c1 = tensor.collapse_shape %x [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %c2 = tensor.collapse_shape %x [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%c1, %half : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%0, %c2 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%1 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// A producer used twice stays (the upstream pass decides); a reduction is
// not elementwise and is not fused here.
// CHECK-LABEL: func.func @shared_producer(
// CHECK-COUNT-3: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @shared_producer(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = math.absf %a : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = math.exp %a : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}
