// RUN: ember-opt %s --ember-autodiff | FileCheck %s
// RUN: ember-opt %s --convert-ember-to-linalg | FileCheck %s --check-prefix=LOWER

// The backward region replaces the gradient of the ops that computed the
// value, and may use their results (here exp(x)).
// CHECK-LABEL: func.func @log1pexp_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<f32>, %[[G:.*]]: tensor<f32>)
// CHECK:         %[[E:.*]] = ember.exp %[[X]]
// CHECK:         ember.custom_gradient
// CHECK:         ember.yield
// CHECK:         %[[ONE:.*]] = ember.constant dense<1.000000e+00>
// CHECK:         %[[D:.*]] = ember.add %[[ONE]], %[[E]]
// CHECK:         %[[DX:.*]] = ember.mul %[[G]], %{{.*}}
// CHECK-NOT:     ember.log1p %{{.*}}
// CHECK:         return %{{.*}}, %[[DX]]
// LOWER-LABEL: func.func @log1pexp(
// LOWER-NOT:     custom_gradient
func.func @log1pexp(%x: tensor<f32>) -> tensor<f32> attributes {ember.differentiate} {
  %e = ember.exp %x : tensor<f32>
  %y = ember.log1p %e : tensor<f32>
  %r = ember.custom_gradient %y inputs(%x : tensor<f32>) : tensor<f32> {
  ^bb0(%g: tensor<f32>):
    %one = ember.constant dense<1.0> : tensor<f32>
    %d = ember.add %one, %e : tensor<f32>
    %q = ember.div %one, %d : tensor<f32>
    %s = ember.sub %one, %q : tensor<f32>
    %m = ember.mul %g, %s : tensor<f32>
    ember.yield %m : tensor<f32>
  }
  return %r : tensor<f32>
}
