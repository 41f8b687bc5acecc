// Long elementwise bodies are interleaved: four independent vectors per
// iteration, each op's four side by side (a chain of dependent ops is
// otherwise bound by their latency). The vector width is named, not the
// host's.
// RUN: ember-compile %s --mcpu=x86-64-v4 --emit=llvm-ir -o - | FileCheck %s --check-prefix=V16
// RUN: ember-compile %s --mcpu=x86-64-v3 --emit=llvm-ir -o - | FileCheck %s --check-prefix=V8

// V16: vector.body:
// V16: fmul <16 x float> %[[X0:.*]], %[[Y0:wide.load.*]]
// V16-NEXT: fmul <16 x float>
// V16-NEXT: fmul <16 x float>
// V16-NEXT: fmul <16 x float>
// V16-NEXT: fadd <16 x float> %[[Y0]],
// V16-NEXT: fadd <16 x float>
// V16-NEXT: fadd <16 x float>
// V16-NEXT: fadd <16 x float>
// V8: vector.body:
// V8: fmul <8 x float> %[[X0:.*]], %[[Y0:wide.load.*]]
// V8-NEXT: fmul <8 x float>
// V8-NEXT: fmul <8 x float>
// V8-NEXT: fmul <8 x float>
// V8-NEXT: fadd <8 x float> %[[Y0]],
// V8-NEXT: fadd <8 x float>
// V8-NEXT: fadd <8 x float>
// V8-NEXT: fadd <8 x float>

// 24 ops: t = t * y + y, twelve times.
func.func @chain(%x: tensor<4096xf32>, %y: tensor<4096xf32>) -> tensor<4096xf32> {
  %t0 = ember.mul %x, %y : tensor<4096xf32>
  %t1 = ember.add %t0, %y : tensor<4096xf32>
  %t2 = ember.mul %t1, %y : tensor<4096xf32>
  %t3 = ember.add %t2, %y : tensor<4096xf32>
  %t4 = ember.mul %t3, %y : tensor<4096xf32>
  %t5 = ember.add %t4, %y : tensor<4096xf32>
  %t6 = ember.mul %t5, %y : tensor<4096xf32>
  %t7 = ember.add %t6, %y : tensor<4096xf32>
  %t8 = ember.mul %t7, %y : tensor<4096xf32>
  %t9 = ember.add %t8, %y : tensor<4096xf32>
  %t10 = ember.mul %t9, %y : tensor<4096xf32>
  %t11 = ember.add %t10, %y : tensor<4096xf32>
  %t12 = ember.mul %t11, %y : tensor<4096xf32>
  %t13 = ember.add %t12, %y : tensor<4096xf32>
  %t14 = ember.mul %t13, %y : tensor<4096xf32>
  %t15 = ember.add %t14, %y : tensor<4096xf32>
  %t16 = ember.mul %t15, %y : tensor<4096xf32>
  %t17 = ember.add %t16, %y : tensor<4096xf32>
  %t18 = ember.mul %t17, %y : tensor<4096xf32>
  %t19 = ember.add %t18, %y : tensor<4096xf32>
  %t20 = ember.mul %t19, %y : tensor<4096xf32>
  %t21 = ember.add %t20, %y : tensor<4096xf32>
  %t22 = ember.mul %t21, %y : tensor<4096xf32>
  %t23 = ember.add %t22, %y : tensor<4096xf32>
  return %t23 : tensor<4096xf32>
}
