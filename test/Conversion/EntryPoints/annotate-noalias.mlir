// RUN: ember-opt %s --ember-annotate-noalias | FileCheck %s

// CHECK-LABEL: llvm.func @f(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64)
// CHECK-NOT:     ember.noalias_memrefs
llvm.func @f(%a: !llvm.ptr, %b: !llvm.ptr, %c: i64, %d: !llvm.ptr, %e: !llvm.ptr, %g: i64)
    attributes {ember.noalias_memrefs = array<i64: 3, 4>} {
  llvm.return
}
