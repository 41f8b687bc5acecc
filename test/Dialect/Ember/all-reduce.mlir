// RUN: ember-opt %s | ember-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: ember-opt %s --convert-ember-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: ember-opt %s --ember-optimize | FileCheck %s --check-prefix=KEPT
// RUN: ember-opt %s --ember-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// ROUNDTRIP-LABEL: func.func @reduce_twice(
// ROUNDTRIP:         ember.all_reduce sum, %{{.*}} : tensor<?x3xf32>
// ROUNDTRIP:         ember.all_reduce mean, %{{.*}} : tensor<?x3xf32>
// ROUNDTRIP:         ember.all_reduce max, %{{.*}} : tensor<2xi64>

// The runtime copies the operand's buffer (any layout) into a new one, the
// result, and starts reducing it there (reduction 0: sum, 1: mean; site -1:
// no fault site numbered); the wait comes just before the result's first
// use, or the end of the block for a result nobody uses.
// LOWER-DAG:   func.func private @emberrt_all_reduce_start_f32(memref<*xf32>, memref<*xf32>, i32, i32) -> i64
// LOWER-DAG:   func.func private @emberrt_all_reduce_start_i64(memref<*xi64>, memref<*xi64>, i32, i32) -> i64
// LOWER-DAG:   func.func private @emberrt_all_reduce_wait(i64, i32)
// LOWER-LABEL: func.func @reduce_twice(
// LOWER:         %[[N:.*]] = tensor.dim %[[X:.*]], %{{.*}} : tensor<?x3xf32>
// LOWER:         %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<?x3xf32> to memref<?x3xf32, strided<[?, ?], offset: ?>>
// LOWER:         %[[BUF:.*]] = memref.alloc(%[[N]]) : memref<?x3xf32>
// LOWER-DAG:     %[[SUM:.*]] = arith.constant 0 : i32
// LOWER-DAG:     %[[SITE:.*]] = arith.constant -1 : i32
// LOWER:         %[[UIN:.*]] = memref.cast %[[IN]] : memref<?x3xf32, strided<[?, ?], offset: ?>> to memref<*xf32>
// LOWER:         %[[UOUT:.*]] = memref.cast %[[BUF]] : memref<?x3xf32> to memref<*xf32>
// LOWER:         %[[T0:.*]] = call @emberrt_all_reduce_start_f32(%[[UIN]], %[[UOUT]], %[[SUM]], %[[SITE]])
// LOWER:         %[[T1:.*]] = call @emberrt_all_reduce_start_f32(
// LOWER:         call @emberrt_all_reduce_wait(%[[T0]], %[[SITE]])
// LOWER-NEXT:    %[[R0:.*]] = bufferization.to_tensor %[[BUF]] restrict writable
// LOWER:         linalg.generic {{.*}} ins(%[[R0]], %[[X]]
// LOWER:         arith.constant 1 : i32
// LOWER:         %[[T2:.*]] = call @emberrt_all_reduce_start_f32(
// LOWER:         arith.constant 2 : i32
// LOWER:         %[[T3:.*]] = call @emberrt_all_reduce_start_i64(
// LOWER:         call @emberrt_all_reduce_wait(%[[T1]],
// LOWER:         call @emberrt_all_reduce_wait(%[[T2]],
// LOWER:         call @emberrt_all_reduce_wait(%[[T3]],
// LOWER:         return

// A collective has an effect: two equal all_reduces are not merged, and an
// unused one is not pruned (every process must run the same ones).
// KEPT-LABEL: func.func @reduce_twice(
// KEPT-COUNT-2: ember.all_reduce sum,
// KEPT:         ember.all_reduce mean,
// KEPT:         ember.all_reduce max,

// LLVM-LABEL: llvm.func @reduce_twice(
// LLVM-COUNT-2: llvm.call @emberrt_all_reduce_start_f32(
// LLVM:         llvm.call @emberrt_all_reduce_wait(
// LLVM:         llvm.call @emberrt_all_reduce_start_f32(
// LLVM:         llvm.call @emberrt_all_reduce_start_i64(
// LLVM-COUNT-3: llvm.call @emberrt_all_reduce_wait(
func.func @reduce_twice(%x: tensor<?x3xf32>, %i: tensor<2xi64>) -> (tensor<?x3xf32>, tensor<2xi64>) {
  %0 = ember.all_reduce sum, %x : tensor<?x3xf32>
  %unused = ember.all_reduce sum, %x : tensor<?x3xf32>
  %1 = ember.mul %0, %x : tensor<?x3xf32>
  %2 = ember.all_reduce mean, %1 : tensor<?x3xf32>
  %3 = ember.all_reduce max, %i : tensor<2xi64>
  return %2, %3 : tensor<?x3xf32>, tensor<2xi64>
}
