// RUN: ember-opt %s --convert-ember-to-linalg --ember-cpu-lower-matmuls --canonicalize --linalg-generalize-named-ops --linalg-fuse-elementwise-ops --ember-fuse-matmul-epilogues --canonicalize | FileCheck %s

// Bias and ReLU run on each block of accumulators: the bias is read block by
// block (broadcast over the rows), the product is never written on its own.
// CHECK-LABEL: func.func @dense_relu(
// CHECK-SAME:      %[[A:.*]]: tensor<37x53xf32>, %[[B:.*]]: tensor<53x32xf32>, %[[BIAS:.*]]: tensor<32xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for
// CHECK:             vector.fma
// CHECK:           %[[BLOCK:.*]] = vector.insert_strided_slice %{{.*}} {offsets = [5, 8], strides = [1]} : vector<8xf32> into vector<6x16xf32>
// CHECK:           %[[B2:.*]] = vector.transfer_read %[[BIAS]]{{.*}}permutation_map = #{{.*}}} : tensor<32xf32>, vector<6x16xf32>
// CHECK:           %[[SUM:.*]] = arith.addf %[[BLOCK]], %[[B2]] : vector<6x16xf32>
// CHECK:           %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : vector<6x16xf32>
// CHECK:           vector.transfer_write %[[RELU]]
// CHECK-NOT:     linalg.generic
func.func @dense_relu(%a: tensor<37x53xf32>, %b: tensor<53x32xf32>, %bias: tensor<32xf32>) -> tensor<37x32xf32> {
  %0 = ember.matmul %a, %b : tensor<37x53xf32>, tensor<53x32xf32> -> tensor<37x32xf32>
  %1 = ember.broadcast_to %bias : tensor<32xf32> -> tensor<37x32xf32>
  %2 = ember.add %0, %1 : tensor<37x32xf32>
  %3 = ember.relu %2 : tensor<37x32xf32>
  return %3 : tensor<37x32xf32>
}

// With a run-time batch, the consumer's output, sized from the product,
// takes the accumulator's run-time rows and moves before the loops.
// CHECK-LABEL: func.func @dense_relu_dynamic(
// CHECK-SAME:      %[[A:.*]]: tensor<?x53xf32>
// CHECK:         %[[ROWS:.*]] = tensor.dim %[[A]], %c0
// CHECK:         tensor.empty(%[[ROWS]]) : tensor<?x32xf32>
// CHECK-NOT:     linalg.generic
// CHECK:           arith.maximumf %{{.*}}, %{{.*}} : vector<6x16xf32>
// CHECK:           vector.transfer_write
// CHECK-NOT:     linalg.generic
func.func @dense_relu_dynamic(%a: tensor<?x53xf32>, %b: tensor<53x32xf32>, %bias: tensor<32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x53xf32>
  %0 = ember.matmul %a, %b : tensor<?x53xf32>, tensor<53x32xf32> -> tensor<?x32xf32>
  %1 = ember.broadcast_to %bias [%n] : tensor<32xf32> -> tensor<?x32xf32>
  %2 = ember.add %0, %1 : tensor<?x32xf32>
  %3 = ember.relu %2 : tensor<?x32xf32>
  return %3 : tensor<?x32xf32>
}

// An SGD update of the weights by their gradient x^T @ dz: w - 0.1 * g.
// CHECK-LABEL: func.func @sgd_update(
// CHECK-SAME:      %[[W:.*]]: tensor<48x32xf32>
// CHECK-NOT:     linalg.generic
// CHECK:           vector.transfer_read %[[W]]
// CHECK:           arith.mulf {{.*}} : vector<6x16xf32>
// CHECK:           arith.subf {{.*}} : vector<6x16xf32>
func.func @sgd_update(%w: tensor<48x32xf32>, %x: tensor<64x48xf32>, %dz: tensor<64x32xf32>) -> tensor<48x32xf32> {
  %xt = ember.transpose %x permutation = [1, 0] : tensor<64x48xf32> -> tensor<48x64xf32>
  %g = ember.matmul %xt, %dz : tensor<48x64xf32>, tensor<64x32xf32> -> tensor<48x32xf32>
  %lr = ember.constant dense<0.1> : tensor<48x32xf32>
  %step = ember.mul %g, %lr : tensor<48x32xf32>
  %new = ember.sub %w, %step : tensor<48x32xf32>
  return %new : tensor<48x32xf32>
}

// ReLU's backward: the cotangent of the product kept where the forward
// pre-activation was positive (a compare and a select, on vectors).
// CHECK-LABEL: func.func @relu_backward(
// CHECK-NOT:     linalg.generic
// CHECK:           arith.cmpf ogt, {{.*}} : vector<6x16xf32>
// CHECK:           arith.select {{.*}} : vector<6x16xi1>, vector<6x16xf32>
func.func @relu_backward(%dz: tensor<37x53xf32>, %w: tensor<53x32xf32>, %pre: tensor<37x32xf32>) -> tensor<37x32xf32> {
  %dh = ember.matmul %dz, %w : tensor<37x53xf32>, tensor<53x32xf32> -> tensor<37x32xf32>
  %zero = ember.constant dense<0.0> : tensor<37x32xf32>
  %positive = ember.compare gt, %pre, %zero : tensor<37x32xf32>
  %0 = ember.select %positive, %dh, %zero : tensor<37x32xi1>, tensor<37x32xf32>
  return %0 : tensor<37x32xf32>
}

// A product used twice keeps its own write; so does one whose consumer
// reduces.
// CHECK-LABEL: func.func @used_twice(
// CHECK:         linalg.generic
func.func @used_twice(%a: tensor<37x53xf32>, %b: tensor<53x32xf32>) -> (tensor<37x32xf32>, tensor<37x32xf32>) {
  %0 = ember.matmul %a, %b : tensor<37x53xf32>, tensor<53x32xf32> -> tensor<37x32xf32>
  %1 = ember.relu %0 : tensor<37x32xf32>
  return %0, %1 : tensor<37x32xf32>, tensor<37x32xf32>
}
