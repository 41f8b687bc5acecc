// Small functions with control flow around their work compile to one kernel
// of one block that ptxas accepts for sm_90 (format=bin runs ptxas on it); in
// the PTX, the temporaries are shared memory and barriers order the steps.
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root ember-opt %s "--ember-lower-to-nvvm=chip=sm_90 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_90" | FileCheck %s

// BIN-DAG: llvm.func @ember_entry_power99(
// BIN-DAG: llvm.func @ember_entry_halve(
// BIN-DAG: llvm.func @ember_entry_branches(

// power(x, 99) (an odd count: the first product runs before the loop).
// CHECK-LABEL: llvm.func @power99(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NEXT:    llvm.return
// CHECK:       gpu.binary @power99_kernel
// CHECK-SAME:    .entry power99_kernel(
// CHECK-SAME:    .maxntid 128, 1, 1
// CHECK-SAME:    .shared .align {{[0-9]+}} .b8 __wg_power99_kernel_0[400]
// CHECK-SAME:    bar.sync
// CHECK-NOT:   .entry
func.func @power99(%x: tensor<10x10xf32>) -> tensor<10x10xf32> attributes {llvm.emit_c_interface} {
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %r = scf.for %k = %c1 to %c100 step %c1 iter_args(%acc = %x) -> (tensor<10x10xf32>) {
    %next = ember.matmul %acc, %x : tensor<10x10xf32>, tensor<10x10xf32> -> tensor<10x10xf32>
    scf.yield %next : tensor<10x10xf32>
  }
  return %r : tensor<10x10xf32>
}

// A while loop whose condition reads a sum of the loop's tensor (a traced
// while_loop): on the host this would need the device's value.
// CHECK-LABEL: llvm.func @halve(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NEXT:    llvm.return
// CHECK:       gpu.binary @halve_kernel
// CHECK-SAME:    bar.sync
func.func @halve(%x: tensor<16xf32>) -> tensor<16xf32> attributes {llvm.emit_c_interface} {
  %r = scf.while (%v = %x) : (tensor<16xf32>) -> tensor<16xf32> {
    %s = ember.reduce_sum %v axes = [0] : tensor<16xf32> -> tensor<f32>
    %limit = ember.constant dense<1.0> : tensor<f32>
    %c = ember.compare gt, %s, %limit : tensor<f32>
    %b = tensor.extract %c[] : tensor<i1>
    scf.condition(%b) %v : tensor<16xf32>
  } do {
  ^bb0(%v: tensor<16xf32>):
    %h = ember.constant dense<0.5> : tensor<16xf32>
    %n = ember.mul %v, %h : tensor<16xf32>
    scf.yield %n : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// A branch on a tensor's value inside a counted loop (a traced cond in a
// fori_loop), on integers.
// CHECK-LABEL: llvm.func @branches(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NEXT:    llvm.return
func.func @branches(%x: tensor<8x8xi32>) -> tensor<8x8xi32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %r = scf.for %k = %c0 to %c10 step %c1 iter_args(%v = %x) -> (tensor<8x8xi32>) {
    %s = ember.reduce_sum %v axes = [0, 1] : tensor<8x8xi32> -> tensor<i32>
    %zero = ember.constant dense<0> : tensor<i32>
    %c = ember.compare gt, %s, %zero : tensor<i32>
    %b = tensor.extract %c[] : tensor<i1>
    %n = scf.if %b -> (tensor<8x8xi32>) {
      %one = ember.constant dense<1> : tensor<8x8xi32>
      %d = ember.sub %v, %one : tensor<8x8xi32>
      scf.yield %d : tensor<8x8xi32>
    } else {
      %two = ember.constant dense<2> : tensor<8x8xi32>
      %m = ember.mul %v, %two : tensor<8x8xi32>
      scf.yield %m : tensor<8x8xi32>
    }
    scf.yield %n : tensor<8x8xi32>
  }
  return %r : tensor<8x8xi32>
}
