// RUN: ember-opt %s --split-input-file --ember-lower-to-llvm --mlir-print-ir-after=buffer-results-to-out-params 2>&1 >/dev/null | FileCheck %s

// A private function that writes into the buffer it is given and returns it
// (an outlined matmul adding to a convolution's accumulator) returns
// nothing once bufferized: its callers use that buffer, with no copy into
// an out-parameter (which cost ResNet-18 at batch 32 most of its time).
// CHECK-LABEL: func.func private @add_into(
// CHECK-SAME:      %[[C:.*]]: memref<64x64xf32>, %[[A:.*]]: memref<64x64xf32>) attributes {no_inline} {
// CHECK-NOT:     memref.copy
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : memref<64x64xf32>) outs(%[[C]] : memref<64x64xf32>)
// CHECK:         return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[X:.*]]: memref<64x64xf32>, %[[OUT:.*]]: memref<64x64xf32>) {
// CHECK-NOT:     memref.copy
// CHECK:         call @add_into(%[[OUT]], %[[X]]) : (memref<64x64xf32>, memref<64x64xf32>) -> ()
// CHECK-NEXT:    call @add_into(%[[OUT]], %[[X]]) : (memref<64x64xf32>, memref<64x64xf32>) -> ()
// CHECK-NEXT:    return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @add_into(%c: tensor<64x64xf32>, %a: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {no_inline} {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @f(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%one : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = call @add_into(%c, %a) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = call @add_into(%0, %a) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// -----

// A function that returns its argument unchanged, whose result the caller
// returns twice: once the callee's result is dropped, the caller returns
// one buffer twice, which gets a copy for the repeat (no crash in
// buffer-results-to-out-params).
// CHECK-LABEL: func.func @twice(
// CHECK-SAME:      %[[X:.*]]: memref<64x64xf32>, %[[R0:.*]]: memref<64x64xf32>, %[[R1:.*]]: memref<64x64xf32>) {
// CHECK:         call @add_into(%[[R0]], %[[X]])
// CHECK:         call @ident(%[[R0]])
// CHECK:         memref.copy %[[R0]], %[[R1]]
// CHECK:         return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func private @add_into(%c: tensor<64x64xf32>, %a: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {no_inline} {
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
func.func private @ident(%c: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {no_inline} {
  return %c : tensor<64x64xf32>
}
func.func @twice(%a: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%one : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = call @add_into(%c, %a) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = call @ident(%0) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// Public functions (entry points) keep their results: the C ABI's
// out-parameter, into which an argument returned unchanged is copied.
// CHECK-LABEL: func.func @identity(
// CHECK-SAME:      %[[A:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>) {
// CHECK-NEXT:    memref.copy %[[A]], %[[OUT]]
// CHECK-NEXT:    return
func.func @identity(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
