// RUN: ember-opt %s --convert-ember-to-linalg --split-input-file --verify-diagnostics

// The dialect's types allow dynamic dims; the lowering takes static shapes
// only (shape-generic kernels are issue 25) and refuses the first op with a
// dynamic one, naming it, rather than failing inside a pattern.
func.func @elementwise(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'ember.add' op has the dynamic shape 'tensor<?x4xf32>': convert-ember-to-linalg lowers static shapes only}}
  %0 = ember.add %a, %b : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @reduction(%a: tensor<?x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.reduce_sum' op has the dynamic shape}}
  %0 = ember.reduce_sum %a axes = [0] : tensor<?x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A dynamic value inside a function of static signature is refused too.
func.func @inside(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %d = tensor.cast %a : tensor<8x4xf32> to tensor<?x4xf32>
  // expected-error @+1 {{'ember.relu' op has the dynamic shape}}
  %r = ember.relu %d : tensor<?x4xf32>
  %s = tensor.cast %r : tensor<?x4xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}
