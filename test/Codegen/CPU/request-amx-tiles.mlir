// RUN: ember-opt %s --ember-cpu-request-amx-tiles --split-input-file | FileCheck %s

// A module that uses AMX tiles: each public function it defines asks for
// them first; private and external ones do not.
// CHECK-LABEL: module
// CHECK:         llvm.func @emberrt_require_amx()
// CHECK-LABEL:   llvm.func @tiles()
// CHECK-NEXT:      llvm.call @emberrt_require_amx() : () -> ()
// CHECK-NEXT:      llvm.mlir.constant
// CHECK-LABEL:   llvm.func @wrapper()
// CHECK-NEXT:      llvm.call @emberrt_require_amx() : () -> ()
// CHECK-NEXT:      llvm.call @tiles()
// CHECK-LABEL:   llvm.func private @helper()
// CHECK-NEXT:      llvm.return
module {
  llvm.func @tiles() {
    %rows = llvm.mlir.constant(16 : i16) : i16
    %bytes = llvm.mlir.constant(64 : i16) : i16
    %0 = llvm.call_intrinsic "llvm.x86.tilezero.internal"(%rows, %bytes) : (i16, i16) -> !llvm.x86_amx
    llvm.return
  }
  llvm.func @wrapper() {
    llvm.call @tiles() : () -> ()
    llvm.return
  }
  llvm.func private @helper() {
    llvm.return
  }
  llvm.func @external()
}

// -----

// No tiles: nothing asks.
// CHECK-LABEL: module
// CHECK-NOT:     emberrt_require_amx
module {
  llvm.func @plain() {
    llvm.return
  }
}
