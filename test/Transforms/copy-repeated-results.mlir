// RUN: ember-opt %s --ember-copy-repeated-results | FileCheck %s
// RUN: ember-opt %s --ember-lower-to-llvm | FileCheck %s --check-prefix=LOWERED

// A buffer returned three times gets a copy for each repeat; the first stays.
// CHECK-LABEL: func.func @twice(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<2xf32>
// CHECK:         %[[COPY:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    memref.copy %[[A]], %[[COPY]]
// CHECK-NEXT:    %[[COPY2:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    memref.copy %[[A]], %[[COPY2]]
// CHECK-NEXT:    return %[[A]], %[[COPY]], %[[COPY2]]
func.func @twice() -> (memref<2xf32>, memref<2xf32>, memref<2xf32>) {
  %0 = memref.alloc() : memref<2xf32>
  return %0, %0, %0 : memref<2xf32>, memref<2xf32>, memref<2xf32>
}

// The whole pipeline on the IR that crashed it: each result is written
// into its own out-parameter.
// LOWERED: llvm.func @ember_entry_f(
func.func @f(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) attributes {llvm.emit_c_interface} {
  %0 = ember.add %a, %a : tensor<2xf32>
  return %0, %0 : tensor<2xf32>, tensor<2xf32>
}
