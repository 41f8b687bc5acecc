// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-convolutions '--ember-cpu-lower-matmuls=vector-bits=512' --canonicalize --cse | FileCheck %s

// A convolution's register-blocked matmul reads its patches in place: no
// patch matrix; each row's (n, oh, ow) computed once per row block, k run as
// the KH, KW, C loops, each A element read from the input through the
// strides and dilations, the filter's rows (one 16-lane vector: 16 filters)
// read unpacked.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:      %[[X:.*]]: tensor<2x18x16x8xf32>, %[[W:.*]]: tensor<3x3x8x16xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[B:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1, 2], [3]] : tensor<3x3x8x16xf32> into tensor<72x16xf32>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           %[[ROW:.*]] = arith.minsi %[[I]]
// CHECK:           %[[OW:.*]] = arith.remui %[[ROW]], %{{.*}} : index
// CHECK:           scf.for %[[KH:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             scf.for %[[KW:.*]] = %{{.*}} to %{{.*}} step
// CHECK:               scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK:                 vector.transfer_read %[[B]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<72x16xf32>, vector<16xf32>
// CHECK:                 tensor.extract %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %[[C]]] : tensor<2x18x16x8xf32>
// CHECK:                 vector.fma
// CHECK:         tensor.expand_shape
// CHECK-NOT:     linalg.matmul
func.func @conv(%x: tensor<2x18x16x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<2x16x14x16xf32> {
  %0 = ember.conv2d %x, %w strides = [1, 1] dilations = [1, 1] input_dilations = [1, 1] padding = [0, 0, 0, 0] : tensor<2x18x16x8xf32>, tensor<3x3x8x16xf32> -> tensor<2x16x14x16xf32>
  return %0 : tensor<2x16x14x16xf32>
}
