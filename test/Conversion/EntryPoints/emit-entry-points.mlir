// RUN: ember-opt %s -split-input-file --ember-lower-to-llvm | FileCheck %s
// RUN: ember-opt %s -split-input-file --ember-emit-entry-points | FileCheck %s --check-prefix=PASS

// Through the whole pipeline: a function with llvm.emit_c_interface gets a
// `_mlir_ciface_` wrapper taking descriptor pointers (inputs, then the output
// buffer), and `ember_entry_<name>(void **args)` loads args[i] and calls it.

// CHECK-LABEL: llvm.func @scale(
// CHECK-LABEL: llvm.func @_mlir_ciface_scale(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK:         llvm.call @scale(
// CHECK-NOT:     llvm.func @ember_entry_no_interface
// CHECK-LABEL: llvm.func @ember_entry_scale(
// CHECK-SAME:      %[[ARGS:.*]]: !llvm.ptr) {
// CHECK-NEXT:    %[[P0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[P1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[P2:.*]] = llvm.getelementptr %[[ARGS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A2:.*]] = llvm.load %[[P2]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.call @_mlir_ciface_scale(%[[A0]], %[[A1]], %[[A2]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
func.func @scale(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.mul %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Without the attribute there is no wrapper and no entry point.
func.func @no_interface(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ember.neg %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// On func.func input (no `_mlir_ciface_` wrappers yet) the pass alone adds nothing.
// PASS-LABEL: func.func @scale(
// PASS-NOT:   ember_entry

// -----

// The pass alone, on LLVM dialect input: one entry point per defined,
// void-returning `_mlir_ciface_` function.

// CHECK-LABEL: llvm.func @ember_entry_two(
// PASS-LABEL: llvm.func @ember_entry_two(
// PASS-SAME:      %[[ARGS:.*]]: !llvm.ptr) {
// PASS-NEXT:    %[[P0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// PASS-NEXT:    %[[A0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// PASS-NEXT:    %[[P1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// PASS-NEXT:    %[[A1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// PASS-NEXT:    llvm.call @_mlir_ciface_two(%[[A0]], %[[A1]]) : (!llvm.ptr, !llvm.ptr) -> ()
// PASS-NEXT:    llvm.return
// PASS-NEXT:  }
// PASS-NOT:   llvm.func @ember_entry_
llvm.func @_mlir_ciface_two(%a: !llvm.ptr, %b: !llvm.ptr) {
  llvm.return
}

// A declaration is skipped.
llvm.func @_mlir_ciface_external(!llvm.ptr)

// A wrapper that returns a value is skipped.
llvm.func @_mlir_ciface_returns(%a: !llvm.ptr) -> i32 {
  %0 = llvm.mlir.constant(0 : i32) : i32
  llvm.return %0 : i32
}

// A function without the prefix is skipped.
llvm.func @plain(%a: !llvm.ptr) {
  llvm.return
}

// -----

// An existing symbol of the entry point's name is left alone.

// PASS-LABEL: llvm.func @_mlir_ciface_taken(
// PASS:       llvm.func @ember_entry_taken(%{{.*}}: i32) {
// PASS-NEXT:    llvm.return
// PASS-NEXT:  }
// PASS-NOT:   llvm.func @ember_entry_
// CHECK-LABEL: llvm.func @ember_entry_taken(%{{.*}}: i32)
llvm.func @_mlir_ciface_taken(%a: !llvm.ptr) {
  llvm.return
}
llvm.func @ember_entry_taken(%x: i32) {
  llvm.return
}
