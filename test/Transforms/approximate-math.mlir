// RUN: ember-opt %s --ember-approximate-math | FileCheck %s

// float32 exp, log, log1p and tanh (scalars and vectors) become arithmetic
// that LLVM vectorizes.
// CHECK-LABEL: func.func @approximated(
// CHECK-NOT:     math.{{(tanh|exp|log)}}
// CHECK:         return
func.func @approximated(%x: f32, %v: vector<8xf32>) -> (f32, vector<8xf32>, f32, f32) {
  %0 = math.tanh %x : f32
  %1 = math.exp %v : vector<8xf32>
  %2 = math.log %x : f32
  %3 = math.log1p %x : f32
  return %0, %1, %2, %3 : f32, vector<8xf32>, f32, f32
}

// float64, and sin (whose approximation loses accuracy for large
// arguments), keep their libm-bound ops.
// CHECK-LABEL: func.func @kept(
// CHECK:         math.exp %{{.*}} : f64
// CHECK:         math.sin %{{.*}} : f32
func.func @kept(%x: f32, %y: f64) -> (f64, f32) {
  %0 = math.exp %y : f64
  %1 = math.sin %x : f32
  return %0, %1 : f64, f32
}
