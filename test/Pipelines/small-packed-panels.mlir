// RUN: ember-opt %s "--ember-lower-to-llvm=vector-bits=256" | FileCheck %s
// RUN: ember-opt %s "--ember-lower-to-llvm=vector-bits=512" | FileCheck %s

// A blocked matmul whose columns do not fill whole panels packs each panel
// of B; with a short k (32 rows) the panel is small enough for the stack.
// Its panel loop runs on the threads: each thread allocates the panel once,
// at the start of the team's region. (Before ember-cpu-hoist-thread-allocas
// the alloca sat in an alloca scope around the loop body, and the pipeline
// failed: "'memref.alloca_scope' op expects region #0 to have 0 or 1 blocks".)
// CHECK-LABEL: llvm.func @short_k(
// CHECK:         omp.parallel
// CHECK-NEXT:      %{{.*}} = llvm.mlir.constant
// CHECK:           llvm.alloca
// CHECK:           omp.wsloop {
// CHECK-NOT:         llvm.intr.stacksave
// CHECK:         llvm.return
func.func @short_k(%a: tensor<200x32xf32>, %b: tensor<32x200xf32>) -> tensor<200x200xf32> {
  %0 = ember.matmul %a, %b : tensor<200x32xf32>, tensor<32x200xf32> -> tensor<200x200xf32>
  return %0 : tensor<200x200xf32>
}
