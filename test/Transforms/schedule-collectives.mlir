// RUN: ember-opt %s --pass-pipeline="builtin.module(func.func(ember-schedule-collectives))" | FileCheck %s

// A training step's shape: two layers' gradients (the second's computed
// first), one bucket each, all-reduced after the whole backward pass. Each
// bucket's packing and all_reduce move up to just after its gradient; the
// split back and the updates move down to their first use (the return).
// CHECK-LABEL: func.func @step(
// CHECK:         %[[G2:.*]] = ember.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    %[[F2:.*]] = ember.reshape %[[G2]] : tensor<4x2xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[R2:.*]] = ember.all_reduce mean, %[[F2]] : tensor<8xf32>
// CHECK-NEXT:    %[[G1:.*]] = ember.matmul %{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %[[F1:.*]] = ember.reshape %[[G1]] : tensor<3x2xf32> -> tensor<6xf32>
// CHECK-NEXT:    %[[R1:.*]] = ember.all_reduce mean, %[[F1]] : tensor<6xf32>
// CHECK-NEXT:    %[[U2:.*]] = ember.reshape %[[R2]] : tensor<8xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    %[[W2:.*]] = ember.sub %{{.*}}, %[[U2]] : tensor<4x2xf32>
// CHECK-NEXT:    %[[U1:.*]] = ember.reshape %[[R1]] : tensor<6xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %[[W1:.*]] = ember.sub %{{.*}}, %[[U1]] : tensor<3x2xf32>
// CHECK-NEXT:    return %[[W1]], %[[W2]]
func.func @step(%a1: tensor<3x4xf32>, %d1: tensor<4x2xf32>, %a2: tensor<4x8xf32>,
                %d2: tensor<8x2xf32>, %w1: tensor<3x2xf32>, %w2: tensor<4x2xf32>)
    -> (tensor<3x2xf32>, tensor<4x2xf32>) {
  %g2 = ember.matmul %a2, %d2 : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  %g1 = ember.matmul %a1, %d1 : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  %f2 = ember.reshape %g2 : tensor<4x2xf32> -> tensor<8xf32>
  %r2 = ember.all_reduce mean, %f2 : tensor<8xf32>
  %u2 = ember.reshape %r2 : tensor<8xf32> -> tensor<4x2xf32>
  %f1 = ember.reshape %g1 : tensor<3x2xf32> -> tensor<6xf32>
  %r1 = ember.all_reduce mean, %f1 : tensor<6xf32>
  %u1 = ember.reshape %r1 : tensor<6xf32> -> tensor<3x2xf32>
  %n2 = ember.sub %w2, %u2 : tensor<4x2xf32>
  %n1 = ember.sub %w1, %u1 : tensor<3x2xf32>
  return %n1, %n2 : tensor<3x2xf32>, tensor<4x2xf32>
}

// A bucket of two gradients laid end to end: the concatenation and its
// reshapes move with the all_reduce, which starts once both gradients are
// there (the gradients themselves, computations, stay where they are); a
// value the bucket shares with other work (%g1, also returned) too.
// CHECK-LABEL: func.func @bucket(
// CHECK:         %[[G1:.*]] = ember.mul
// CHECK-NEXT:    %[[F1:.*]] = ember.reshape %[[G1]]
// CHECK-NEXT:    %[[G2:.*]] = ember.add
// CHECK-NEXT:    %[[F2:.*]] = ember.reshape %[[G2]]
// CHECK-NEXT:    %[[C:.*]] = ember.concat %[[F1]], %[[F2]] axis = 0
// CHECK-NEXT:    %[[R:.*]] = ember.all_reduce sum, %[[C]] : tensor<10xf32>
// CHECK-NEXT:    %[[LATER:.*]] = ember.exp
// CHECK-NEXT:    %[[S:.*]] = ember.slice %[[R]]
// CHECK-NEXT:    return %[[LATER]], %[[S]], %[[G1]]
func.func @bucket(%x: tensor<2x2xf32>, %y: tensor<6xf32>, %z: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<4xf32>, tensor<2x2xf32>) {
  %g1 = ember.mul %x, %x : tensor<2x2xf32>
  %g2 = ember.add %y, %y : tensor<6xf32>
  %later = ember.exp %z : tensor<8xf32>
  %f1 = ember.reshape %g1 : tensor<2x2xf32> -> tensor<4xf32>
  %f2 = ember.reshape %g2 : tensor<6xf32> -> tensor<6xf32>
  %c = ember.concat %f1, %f2 axis = 0 : tensor<4xf32>, tensor<6xf32> -> tensor<10xf32>
  %r = ember.all_reduce sum, %c : tensor<10xf32>
  %s = ember.slice %r start = [0] limit = [4] stride = [1] : tensor<10xf32> -> tensor<4xf32>
  return %later, %s, %g1 : tensor<8xf32>, tensor<4xf32>, tensor<2x2xf32>
}

// Collectives keep their order among themselves and never pass another op
// with side effects: the second all_reduce stays after the print, though
// its operand is ready before it (the first starts before the neg).
// CHECK-LABEL: func.func @ordered(
// CHECK:         ember.all_reduce sum, %{{.*}} : tensor<3xf32>
// CHECK-NEXT:    ember.neg
// CHECK-NEXT:    ember.print
// CHECK-NEXT:    ember.all_reduce max
func.func @ordered(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = ember.neg %x : tensor<3xf32>
  %0 = ember.all_reduce sum, %x : tensor<3xf32>
  ember.print %0 message = "sum = " : tensor<3xf32>
  %1 = ember.all_reduce max, %a : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
