// RUN: ember-opt %s | ember-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: ember-opt %s --convert-ember-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: ember-opt %s --ember-optimize | FileCheck %s --check-prefix=KEPT

// ROUNDTRIP-LABEL: func.func @print_twice(
// ROUNDTRIP:         ember.print %{{.*}} message = "x = " : tensor<2xf32>
// ROUNDTRIP:         ember.print %{{.*}} message = "" : tensor<2x2xi32>

// The runtime prints; its declaration says it only reads its arguments.
// LOWER:       func.func private @emberrt_print_i32(tensor<*xi32> {bufferization.access = "read"}, tensor<*xi8> {bufferization.access = "read"})
// LOWER:       func.func private @emberrt_print_f32(tensor<*xf32> {bufferization.access = "read"}, tensor<*xi8> {bufferization.access = "read"})
// LOWER-LABEL: func.func @print_twice(
// LOWER:         %[[MSG:.*]] = arith.constant dense<[120, 32, 61, 32]> : tensor<4xi8>
// LOWER:         %[[V:.*]] = tensor.cast %{{.*}} : tensor<2xf32> to tensor<*xf32>
// LOWER:         %[[M:.*]] = tensor.cast %[[MSG]] : tensor<4xi8> to tensor<*xi8>
// LOWER:         call @emberrt_print_f32(%[[V]], %[[M]])
// LOWER:         call @emberrt_print_i32(

// Prints have an effect: optimization neither prunes nor merges them.
// KEPT-LABEL: func.func @print_twice(
// KEPT-COUNT-2: ember.print %{{.*}} message = "x = "
func.func @print_twice(%x: tensor<2xf32>, %i: tensor<2x2xi32>) {
  ember.print %x message = "x = " : tensor<2xf32>
  ember.print %x message = "x = " : tensor<2xf32>
  ember.print %i message = "" : tensor<2x2xi32>
  return
}
