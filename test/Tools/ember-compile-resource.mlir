// Weights as dense_resource blobs (what Function::export_mlir writes for
// large weights) compile to the blob's values, and the MLIR stages keep the
// blob, so that they can be read back.
// RUN: ember-compile %S/Inputs/resource-weight.mlir --emit=llvm-ir -o - | FileCheck %s
// RUN: ember-compile %S/Inputs/resource-weight.mlir --emit=linalg -o - | FileCheck %s --check-prefix=LINALG
// RUN: ember-compile %S/Inputs/resource-weight.mlir --emit=optimized -o %t.mlir
// RUN: ember-compile %t.mlir --emit=llvm-ir -o - | FileCheck %s

// x * w with w[i] = i + 0.5: the first, second and last weights.
// CHECK-LABEL: define {{.*}}@ember_entry_scale(
// CHECK:         fmul float %{{.*}}, 5.000000e-01
// CHECK:         fmul float %{{.*}}, 1.500000e+00
// CHECK:         fmul float %{{.*}}, 6.350000e+01

// LINALG:      dense_resource<"dense/kernel"> : tensor<2x32xf32>
// LINALG:      dialect_resources: {
// LINALG:        "dense/kernel": "0x040000000000003F0000C03F
