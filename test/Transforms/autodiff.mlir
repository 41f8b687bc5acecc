// RUN: ember-opt %s --ember-autodiff --split-input-file --verify-diagnostics | FileCheck %s

// x*x: the cotangents of both uses of x are summed.
// CHECK-LABEL: func.func @square_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<2xf32>, %[[G:.*]]: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK:         %[[Y:.*]] = ember.mul %[[X]], %[[X]]
// CHECK:         %[[A:.*]] = ember.mul %[[G]], %[[X]]
// CHECK:         %[[B:.*]] = ember.mul %[[G]], %[[X]]
// CHECK:         %[[S:.*]] = ember.add %[[A]], %[[B]]
// CHECK:         return %[[Y]], %[[S]]
func.func @square(%x: tensor<2xf32>) -> tensor<2xf32> attributes {ember.differentiate} {
  %0 = ember.mul %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Forward values are reused: tanh's gradient uses its result, not a second tanh.
// broadcast_to's gradient sums over the broadcast dim; matmul's uses transposes.
// CHECK-LABEL: func.func @layer_vjp(
// CHECK-COUNT-1: ember.tanh
// CHECK-NOT:     ember.tanh
// CHECK:         ember.reduce_sum %{{.*}} axes = [0]
// CHECK:         ember.transpose %{{.*}} permutation = [1, 0]
// CHECK:         return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<3x2xf32>, tensor<4x3xf32>, tensor<2xf32>
func.func @layer(%w: tensor<3x2xf32>, %x: tensor<4x3xf32>, %b: tensor<2xf32>) -> tensor<f32> attributes {ember.differentiate} {
  %0 = ember.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %1 = ember.broadcast_to %b : tensor<2xf32> -> tensor<4x2xf32>
  %2 = ember.add %0, %1 : tensor<4x2xf32>
  %3 = ember.tanh %2 : tensor<4x2xf32>
  %4 = ember.reduce_mean %3 axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  return %4 : tensor<f32>
}

// -----

// Integer arguments get no gradient; a float argument that does not reach the
// result gets zeros; comparisons pass no gradient.
// CHECK-LABEL: func.func @mixed_vjp(
// CHECK-SAME:      -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK:         ember.select
// CHECK:         ember.select
// CHECK:         ember.select
// CHECK:         %[[Z:.*]] = ember.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    return %{{.*}}, %{{.*}}, %[[Z]]
func.func @mixed(%x: tensor<3xf32>, %n: tensor<3xi32>, %unused: tensor<3xf32>) -> tensor<3xf32> attributes {ember.differentiate} {
  %0 = ember.cast %n : tensor<3xi32> -> tensor<3xf32>
  %1 = ember.compare gt, %x, %0 : tensor<3xf32>
  %2 = ember.select %1, %x, %0 : tensor<3xi1>, tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// Branches: a backward scf.if on the same condition; each branch recomputes
// its forward ops and yields the cotangents of the outer values it uses.
// CHECK-LABEL: func.func @branchy_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<f32>, %[[C:.*]]: tensor<i1>, %[[G:.*]]: tensor<f32>)
// CHECK:         %[[P:.*]] = tensor.extract %[[C]][]
// CHECK:         scf.if %[[P]] -> (tensor<f32>)
// CHECK:         %[[DX:.*]] = scf.if %[[P]] -> (tensor<f32>) {
// CHECK:           %[[SQ:.*]] = ember.mul %[[X]], %[[X]]
// CHECK:           scf.yield %{{.*}} : tensor<f32>
// CHECK:         } else {
// CHECK:           %[[N:.*]] = ember.neg %[[G]]
// CHECK:           scf.yield %[[N]] : tensor<f32>
// CHECK:         }
// CHECK:         return %{{.*}}, %[[DX]] : tensor<f32>, tensor<f32>
func.func @branchy(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> attributes {ember.differentiate} {
  %p = tensor.extract %c[] : tensor<i1>
  %0 = scf.if %p -> tensor<f32> {
    %sq = ember.mul %x, %x : tensor<f32>
    scf.yield %sq : tensor<f32>
  } else {
    %n = ember.neg %x : tensor<f32>
    scf.yield %n : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// Loops: the states each iteration starts from are saved by a forward loop,
// then a reverse loop recomputes each body from its state and carries the
// cotangents.
// CHECK-LABEL: func.func @loopy_vjp(
// CHECK:         %[[SAVED:.*]]:2 = scf.for {{.*}} iter_args
// CHECK:           tensor.insert_slice
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           tensor.extract_slice %[[SAVED]]#1
// CHECK:           ember.mul
func.func @loopy(%x: tensor<f32>) -> tensor<f32> attributes {ember.differentiate} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %0 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> tensor<f32> {
    %d = ember.mul %acc, %x : tensor<f32>
    scf.yield %d : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// The slices a loop's derivative stacks its states with have rules of their
// own (gradients of gradients through loops): an extract's cotangent placed
// into zeros of the source, an insert's split into the inserted part and
// the rest of the destination.
// CHECK-LABEL: func.func @slices_vjp(
// CHECK-SAME:      %[[S:.*]]: tensor<3x2xf32>, %[[V:.*]]: tensor<2xf32>, %[[I:.*]]: index, %[[G:.*]]: tensor<2xf32>
// CHECK:         %[[IN:.*]] = tensor.insert_slice %[[V]] into %[[S]][%[[I]], 0] [1, 2] [1, 1]
// CHECK:         %[[OUT:.*]] = tensor.extract_slice %[[IN]][1, 0] [1, 2] [1, 1]
// CHECK:         %[[Z:.*]] = ember.constant dense<0.000000e+00> : tensor<3x2xf32>
// CHECK:         %[[GIN:.*]] = tensor.insert_slice %[[G]] into %[[Z]][1, 0] [1, 2] [1, 1]
// CHECK:         %[[GV:.*]] = tensor.extract_slice %[[GIN]][%[[I]], 0] [1, 2] [1, 1] : tensor<3x2xf32> to tensor<2xf32>
// CHECK:         %[[Z2:.*]] = ember.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK:         %[[GS:.*]] = tensor.insert_slice %[[Z2]] into %[[GIN]][%[[I]], 0] [1, 2] [1, 1]
// CHECK:         return %[[OUT]], %[[GS]], %[[GV]]
func.func @slices(%s: tensor<3x2xf32>, %v: tensor<2xf32>, %i: index) -> tensor<2xf32> attributes {ember.differentiate} {
  %0 = tensor.insert_slice %v into %s[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<3x2xf32>
  %1 = tensor.extract_slice %0[1, 0] [1, 2] [1, 1] : tensor<3x2xf32> to tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// avg_pool2d_grad is linear in its cotangent: its own gradient (second
// derivatives through average pooling) pools the incoming one; the input,
// read for its shape, gets none.
// CHECK-LABEL: func.func @pool_grad_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<1x4x4x1xf32>, %[[DY:.*]]: tensor<1x2x2x1xf32>, %[[G:.*]]: tensor<1x4x4x1xf32>
// CHECK:         %[[P:.*]] = ember.avg_pool2d %[[G]] window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x1xf32> -> tensor<1x2x2x1xf32>
// CHECK:         return %{{.*}}, %[[P]]
func.func @pool_grad(%x: tensor<1x4x4x1xf32>, %dy: tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32> attributes {ember.differentiate = array<i64: 1>} {
  %0 = ember.avg_pool2d_grad %x, %dy window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32> -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}

// -----

// max_pool2d_grad is linear in its cotangent: its own gradient gathers the
// incoming one at each window's first maximum (max_pool2d_gather).
// CHECK-LABEL: func.func @max_pool_grad_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<1x4x4x1xf32>, %[[DY:.*]]: tensor<1x2x2x1xf32>, %[[G:.*]]: tensor<1x4x4x1xf32>
// CHECK:         %[[P:.*]] = ember.max_pool2d_gather %[[X]], %[[G]] window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0]
// CHECK:         return %{{.*}}, %[[P]]
func.func @max_pool_grad(%x: tensor<1x4x4x1xf32>, %dy: tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32> attributes {ember.differentiate = array<i64: 1>} {
  %0 = ember.max_pool2d_grad %x, %dy window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32> -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}

// -----

func.func @whiley(%x: tensor<f32>) -> tensor<f32> attributes {ember.differentiate} {
  // expected-error @+1 {{'scf.while' op is not differentiable by ember-autodiff yet (loops)}}
  %0 = scf.while (%a = %x) : (tensor<f32>) -> tensor<f32> {
    %big = ember.constant dense<100.0> : tensor<f32>
    %lt = ember.compare lt, %a, %big : tensor<f32>
    %p = tensor.extract %lt[] : tensor<i1>
    scf.condition(%p) %a : tensor<f32>
  } do {
  ^bb0(%a: tensor<f32>):
    %d = ember.mul %a, %a : tensor<f32>
    scf.yield %d : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// argnums: gradients of the listed arguments only, in the order listed.
// CHECK-LABEL: func.func @scaled_vjp(
// CHECK-SAME:      %[[W:[^:]*]]: tensor<3xf32>, %[[X:[^:]*]]: tensor<3xf32>, %[[G:[^:]*]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK:         %[[Y:.*]] = ember.mul %[[W]], %[[X]]
// CHECK:         %[[DW:.*]] = ember.mul %[[G]], %[[X]]
// CHECK:         return %[[Y]], %[[DW]] : tensor<3xf32>, tensor<3xf32>
func.func @scaled(%w: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<3xf32>
    attributes {ember.differentiate = array<i64: 0>} {
  %0 = ember.mul %w, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @+1 {{ember.differentiate lists argument #1 of type 'tensor<3xi32>': gradients need a float tensor}}
func.func @integer_argnum(%w: tensor<3xf32>, %n: tensor<3xi32>) -> tensor<3xf32>
    attributes {ember.differentiate = array<i64: 1>} {
  return %w : tensor<3xf32>
}

// -----

// expected-error @+1 {{ember.differentiate lists argument #2 but @missing_argnum has 1 arguments}}
func.func @missing_argnum(%w: tensor<3xf32>) -> tensor<3xf32>
    attributes {ember.differentiate = array<i64: 2>} {
  return %w : tensor<3xf32>
}

// -----

// Forward values the caller already has (a GradientTape's recorded results)
// are extra arguments after the cotangents; their ops are not recomputed.
// CHECK-LABEL: func.func @recorded_vjp(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<3xf32>, %[[G:[^:]*]]: tensor<3xf32>, %[[T:[^:]*]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NOT:     ember.tanh
// CHECK:         %[[T2:.*]] = ember.mul %[[T]], %[[T]]
// CHECK:         return %[[T]], %{{.*}} : tensor<3xf32>, tensor<3xf32>
func.func @recorded(%x: tensor<3xf32>) -> tensor<3xf32> attributes {ember.differentiate} {
  %0 = ember.tanh %x {ember.forward_value = 0 : i64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @recorded_twice(%x: tensor<3xf32>) -> tensor<3xf32> attributes {ember.differentiate} {
  %0 = ember.tanh %x {ember.forward_value = 0 : i64} : tensor<3xf32>
  // expected-error @+1 {{'ember.exp' op repeats ember.forward_value 0}}
  %1 = ember.exp %0 {ember.forward_value = 0 : i64} : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// value_and_grad traced inside another function declares the derivative it
// calls; the pass generates it with that type. A differentiated caller has
// the call inlined first, so its derivative differentiates the inner
// derivative's ops (gradients of gradients).
// CHECK-LABEL: func.func private @cube(
// CHECK-LABEL: func.func private @cube_vjp(
// CHECK-SAME:      -> (tensor<f32>, tensor<2xf32>)
// CHECK-LABEL: func.func @outer(
// CHECK-NOT:     call
// CHECK:         ember.reduce_sum
// CHECK-LABEL: func.func @outer_vjp(
// CHECK-NOT:     call
// CHECK:         return
func.func @cube(%x: tensor<2xf32>) -> tensor<f32> attributes {ember.differentiate = array<i64: 0>} {
  %0 = ember.mul %x, %x : tensor<2xf32>
  %1 = ember.mul %0, %x : tensor<2xf32>
  %2 = ember.reduce_sum %1 axes = [0] : tensor<2xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func private @cube_vjp(tensor<2xf32>, tensor<f32>) -> (tensor<f32>, tensor<2xf32>)
func.func @outer(%x: tensor<2xf32>) -> tensor<f32> attributes {ember.differentiate} {
  %one = ember.constant dense<1.0> : tensor<f32>
  %r:2 = call @cube_vjp(%x, %one) : (tensor<2xf32>, tensor<f32>) -> (tensor<f32>, tensor<2xf32>)
  %s = ember.reduce_sum %r#1 axes = [0] : tensor<2xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @mismatched(%x: tensor<2xf32>) -> tensor<2xf32> attributes {ember.differentiate} {
  return %x : tensor<2xf32>
}
// expected-error @+1 {{is declared as '(tensor<2xf32>) -> tensor<2xf32>' but the derivative of @mismatched is '(tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)'}}
func.func private @mismatched_vjp(tensor<2xf32>) -> tensor<2xf32>

// -----

// The function lists the types of all the values its caller gives; one whose
// op was folded away before this pass is still an argument, unused.
// CHECK-LABEL: func.func @listed_vjp(
// CHECK-SAME:      %{{[^:]*}}: tensor<3xf32>, %{{[^:]*}}: tensor<3xf32>, %{{[^:]*}}: tensor<3xf32>, %[[T:[^:]*]]: tensor<3xf32>)
// CHECK-NOT:     ember.tanh
// CHECK:         return %[[T]]
func.func @listed(%x: tensor<3xf32>) -> tensor<3xf32>
    attributes {ember.differentiate, ember.forward_value_types = [tensor<3xf32>, tensor<3xf32>]} {
  %0 = ember.tanh %x {ember.forward_value = 1 : i64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @listed_mismatch(%x: tensor<3xf32>) -> tensor<3xf32>
    attributes {ember.differentiate, ember.forward_value_types = [tensor<3xf64>]} {
  // expected-error @+1 {{'ember.tanh' op has ember.forward_value 0 of type 'tensor<3xf32>' but the function lists 'tensor<3xf64>'}}
  %0 = ember.tanh %x {ember.forward_value = 0 : i64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An op with the NoGradient trait (argmax) passes no cotangent to its float
// operand: x's gradient comes from the product alone (its cast index is a
// constant as far as gradients go).
// CHECK-LABEL: func.func @through_argmax_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf32>, %[[G:.*]]: tensor<3xf32>)
// CHECK:         ember.argmax
// CHECK-NOT:     ember.argmax
// CHECK:         %[[GX:.*]] = ember.mul %[[G]], %{{.*}} : tensor<3xf32>
// CHECK:         return %{{.*}}, %[[GX]]
func.func @through_argmax(%x: tensor<3xf32>) -> tensor<3xf32> attributes {ember.differentiate} {
  %i = ember.argmax %x axis = 0 keepdims : tensor<3xf32> -> tensor<1xi64>
  %f = ember.cast %i : tensor<1xi64> -> tensor<1xf32>
  %b = ember.broadcast_to %f : tensor<1xf32> -> tensor<3xf32>
  %y = ember.mul %x, %b : tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// Pooling gradients are ops of their own, reading the forward input.
// CHECK-LABEL: func.func @pools_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<1x4x4x2xf32>, %[[G:.*]]: tensor<1x2x2x2xf32>)
// CHECK-DAG:     ember.max_pool2d_grad %[[X]], %[[G]] window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0]
// CHECK-DAG:     ember.avg_pool2d_grad %[[X]], %[[G]] window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0]
func.func @pools(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> attributes {ember.differentiate} {
  %m = ember.max_pool2d %x window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
  %a = ember.avg_pool2d %x window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
  %s = ember.add %m, %a : tensor<1x2x2x2xf32>
  return %s : tensor<1x2x2x2xf32>
}


// -----

// Slices beside and of a `?` dim. Along the known dim the cotangent is
// spread as for static shapes (its zero slab broadcast to the `?` rows);
// along the `?` dim it goes between zeros: x[1:-1] between one zero row
// before and one after; x[:2] before zeros as many as x[2:] has rows; x[-3:]
// after zeros as many as x[:-3] has.
// CHECK-LABEL: func.func @dynamic_slices_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<?x4xf32>, %[[G0:.*]]: tensor<?x2xf32>, %[[G1:.*]]: tensor<?x4xf32>, %[[G2:.*]]: tensor<2x4xf32>, %[[G3:.*]]: tensor<3x4xf32>)
// CHECK:         %[[FRONT:.*]] = ember.slice %[[X]] start = [0, 0] limit = [-3, 4] stride = [1, 1]
// CHECK:         %[[N3:.*]] = tensor.dim %[[FRONT]], %c0
// CHECK:         %[[BEFORE:.*]] = ember.broadcast_to %{{.*}} [%[[N3]]] : tensor<f32> -> tensor<?x4xf32>
// CHECK:         ember.concat %[[BEFORE]], %[[G3]] axis = 0 : tensor<?x4xf32>, tensor<3x4xf32> -> tensor<?x4xf32>
// CHECK:         %[[REST:.*]] = ember.slice %[[X]] start = [2, 0] limit = [-9223372036854775808, 4] stride = [1, 1]
// CHECK:         %[[N2:.*]] = tensor.dim %[[REST]], %{{.*}}
// CHECK:         %[[AFTER:.*]] = ember.broadcast_to %{{.*}} [%[[N2]]] : tensor<f32> -> tensor<?x4xf32>
// CHECK:         ember.concat %[[G2]], %[[AFTER]] axis = 0 : tensor<2x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
// CHECK:         %[[ROW0:.*]] = ember.constant dense<0.000000e+00> : tensor<1x4xf32>
// CHECK:         %[[ROW1:.*]] = ember.constant dense<0.000000e+00> : tensor<1x4xf32>
// CHECK:         ember.concat %[[ROW0]], %[[G1]], %[[ROW1]] axis = 0 : tensor<1x4xf32>, tensor<?x4xf32>, tensor<1x4xf32> -> tensor<?x4xf32>
// CHECK:         %[[ROWS:.*]] = tensor.dim %[[G0]], %{{.*}}
// CHECK:         %[[SLAB:.*]] = ember.broadcast_to %{{.*}} [%[[ROWS]]] : tensor<f32> -> tensor<?x1xf32>
// CHECK:         %[[PAD:.*]] = ember.concat %[[G0]], %[[SLAB]] axis = 1
// CHECK:         ember.gather %[[PAD]], %{{.*}} axis = 1 : tensor<?x3xf32>, tensor<4xi64> -> tensor<?x4xf32>
func.func @dynamic_slices(%x: tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>) attributes {ember.differentiate} {
  %0 = ember.slice %x start = [0, 1] limit = [-9223372036854775808, 3] stride = [1, 1] : tensor<?x4xf32> -> tensor<?x2xf32>
  %1 = ember.slice %x start = [1, 0] limit = [-1, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<?x4xf32>
  %2 = ember.slice %x start = [0, 0] limit = [2, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<2x4xf32>
  %3 = ember.slice %x start = [-3, 0] limit = [-9223372036854775808, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<3x4xf32>
  return %0, %1, %2, %3 : tensor<?x2xf32>, tensor<?x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>
}

// -----

// A concatenation along a known dim beside a `?` batch: each input's piece
// of the cotangent is a slice at its offset, the `?` dim sliced whole.
// CHECK-LABEL: func.func @concat_features_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<?x3xf32>, %[[Y:.*]]: tensor<?x2xf32>, %[[G:.*]]: tensor<?x5xf32>)
// CHECK-DAG:     ember.slice %[[G]] start = [0, 0] limit = [-9223372036854775808, 3] stride = [1, 1] : tensor<?x5xf32> -> tensor<?x3xf32>
// CHECK-DAG:     ember.slice %[[G]] start = [0, 3] limit = [-9223372036854775808, 5] stride = [1, 1] : tensor<?x5xf32> -> tensor<?x2xf32>
func.func @concat_features(%x: tensor<?x3xf32>, %y: tensor<?x2xf32>) -> tensor<?x5xf32> attributes {ember.differentiate} {
  %0 = ember.concat %x, %y axis = 1 : tensor<?x3xf32>, tensor<?x2xf32> -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Along a `?` dim one input may be `?`: the pieces before it are at known
// offsets, those after it counted from the end, and it between them. Two `?`
// inputs there (their offsets sums of run-time sizes): no gradient rule yet.
// CHECK-LABEL: func.func @concat_along_dynamic_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<?x3xf32>, %[[Z:.*]]: tensor<1x3xf32>, %[[W:.*]]: tensor<4x3xf32>, %[[E:.*]]: tensor<0x3xf32>, %[[G:.*]]: tensor<?x3xf32>)
// CHECK-DAG:     ember.slice %[[G]] start = [0, 0] limit = [2, 3] stride = [1, 1] : tensor<?x3xf32> -> tensor<2x3xf32>
// CHECK-DAG:     ember.slice %[[G]] start = [2, 0] limit = [-5, 3] stride = [1, 1] : tensor<?x3xf32> -> tensor<?x3xf32>
// CHECK-DAG:     ember.slice %[[G]] start = [-5, 0] limit = [-4, 3] stride = [1, 1] : tensor<?x3xf32> -> tensor<1x3xf32>
// CHECK-DAG:     ember.slice %[[G]] start = [-4, 0] limit = [-9223372036854775808, 3] stride = [1, 1] : tensor<?x3xf32> -> tensor<4x3xf32>
// CHECK-DAG:     ember.slice %[[G]] start = [0, 0] limit = [0, 3] stride = [1, 1] : tensor<?x3xf32> -> tensor<0x3xf32>
func.func @concat_along_dynamic(%x: tensor<2x3xf32>, %y: tensor<?x3xf32>, %z: tensor<1x3xf32>, %w: tensor<4x3xf32>, %e: tensor<0x3xf32>) -> tensor<?x3xf32> attributes {ember.differentiate} {
  %0 = ember.concat %x, %y, %z, %w, %e axis = 0 : tensor<2x3xf32>, tensor<?x3xf32>, tensor<1x3xf32>, tensor<4x3xf32>, tensor<0x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Two `?` inputs along the axis: each piece is a gather of its rows, at an
// offset that sums the run-time sizes before it.
// CHECK-LABEL: func.func @concat_along_two_dynamic_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<?x3xf32>, %[[Y:.*]]: tensor<2x3xf32>, %[[Z:.*]]: tensor<?x3xf32>, %[[G:.*]]: tensor<?x3xf32>)
// CHECK:         %[[NX:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// CHECK:         %[[RX:.*]] = ember.iota dim 0 [%[[NX]]] : tensor<?xi64>
// CHECK:         %[[AX:.*]] = ember.add %[[RX]], %{{.*}} : tensor<?xi64>
// CHECK:         ember.gather %[[G]], %[[AX]] axis = 0 : tensor<?x3xf32>, tensor<?xi64> -> tensor<?x3xf32>
// CHECK:         %[[RY:.*]] = ember.iota dim 0 : tensor<2xi64>
// CHECK:         %[[AY:.*]] = ember.add %[[RY]], %{{.*}} : tensor<2xi64>
// CHECK:         ember.gather %[[G]], %[[AY]] axis = 0 : tensor<?x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
// CHECK:         %[[NZ:.*]] = tensor.dim %[[Z]], %{{.*}} : tensor<?x3xf32>
// CHECK:         ember.iota dim 0 [%[[NZ]]] : tensor<?xi64>
func.func @concat_along_two_dynamic(%x: tensor<?x3xf32>, %y: tensor<2x3xf32>, %z: tensor<?x3xf32>) -> tensor<?x3xf32> attributes {ember.differentiate} {
  %0 = ember.concat %x, %y, %z axis = 0 : tensor<?x3xf32>, tensor<2x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// A reshape that merged two `?` dims: its cotangent is split back with the
// operand's sizes, read at run time.
// CHECK-LABEL: func.func @merge_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?x3xf32>, %[[G:.*]]: tensor<?x3xf32>)
// CHECK:         %[[B:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x3xf32>
// CHECK:         %[[T:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x3xf32>
// CHECK:         ember.reshape %[[G]] [%[[B]], %[[T]]] : tensor<?x3xf32> -> tensor<?x?x3xf32>
func.func @merge(%x: tensor<?x?x3xf32>) -> tensor<?x3xf32> attributes {ember.differentiate} {
  %0 = ember.reshape %x : tensor<?x?x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// An embedding's lookups on a `?` batch: the one-hot matrix has a `?` row
// per index, sized at run time from the indices.
// CHECK-LABEL: func.func @embedding_vjp(
// CHECK-SAME:      %[[T:.*]]: tensor<5x2xf32>, %[[I:.*]]: tensor<?x3xi32>, %[[G:.*]]: tensor<?x3x2xf32>)
// CHECK:         %[[COL:.*]] = ember.reshape %{{.*}} : tensor<?x3xi64> -> tensor<?x1xi64>
// CHECK:         %[[N:.*]] = tensor.dim %[[COL]], %{{.*}} : tensor<?x1xi64>
// CHECK:         ember.broadcast_to %{{.*}} [%[[N]]] : tensor<?x1xi64> -> tensor<?x5xi64>
// CHECK:         %[[HOT:.*]] = ember.transpose %{{.*}} permutation = [1, 0] : tensor<?x5xf32> -> tensor<5x?xf32>
// CHECK:         %[[B:.*]] = ember.broadcast_to %[[HOT]] [%[[N]]] : tensor<5x?xf32> -> tensor<1x5x?xf32>
// CHECK:         %[[ROWS:.*]] = ember.reshape %[[G]] : tensor<?x3x2xf32> -> tensor<1x?x2xf32>
// CHECK:         ember.matmul %[[B]], %[[ROWS]] : tensor<1x5x?xf32>, tensor<1x?x2xf32> -> tensor<1x5x2xf32>
func.func @embedding(%t: tensor<5x2xf32>, %i: tensor<?x3xi32>) -> tensor<?x3x2xf32> attributes {ember.differentiate} {
  %0 = ember.gather %t, %i axis = 0 : tensor<5x2xf32>, tensor<?x3xi32> -> tensor<?x3x2xf32>
  return %0 : tensor<?x3x2xf32>
}

// -----

// Columns gathered from a `?` batch: the batch is P, the one-hot matmul
// batched over it (sized by the operand's rows, read at run time).
// CHECK-LABEL: func.func @gather_columns_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<?x4xf32>, %[[I:.*]]: tensor<2xi32>, %[[G:.*]]: tensor<?x2xf32>)
// CHECK:         %[[P:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[B:.*]] = ember.broadcast_to %{{.*}} [%[[P]]] : tensor<4x2xf32> -> tensor<?x4x2xf32>
// CHECK:         %[[ROWS:.*]] = ember.reshape %[[G]] : tensor<?x2xf32> -> tensor<?x2x1xf32>
// CHECK:         %[[SUM:.*]] = ember.matmul %[[B]], %[[ROWS]] : tensor<?x4x2xf32>, tensor<?x2x1xf32> -> tensor<?x4x1xf32>
// CHECK:         ember.reshape %[[SUM]] : tensor<?x4x1xf32> -> tensor<?x4xf32>
func.func @gather_columns(%x: tensor<?x4xf32>, %i: tensor<2xi32>) -> tensor<?x2xf32> attributes {ember.differentiate} {
  %0 = ember.gather %x, %i axis = 1 : tensor<?x4xf32>, tensor<2xi32> -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// Rows gathered from a `?` batch by `?` indices: the one-hot's positions
// are an iota of the operand's rows, negative indices wrapped by them.
// CHECK-LABEL: func.func @gather_rows_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<?x3xf32>, %[[I:.*]]: tensor<?xi64>, %[[G:.*]]: tensor<?x3xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// CHECK:         %[[COL:.*]] = ember.reshape %[[I]] : tensor<?xi64> -> tensor<?x1xi64>
// CHECK:         %[[N:.*]] = tensor.dim %[[COL]], %{{.*}} : tensor<?x1xi64>
// CHECK:         %[[SHAPE:.*]] = ember.shape_of %[[X]] : tensor<?x3xf32> -> tensor<2xi64>
// CHECK:         ember.slice %[[SHAPE]] start = [0] limit = [1] stride = [1]
// CHECK:         ember.iota dim 1 [%[[D]]] : tensor<1x?xi64>
// CHECK:         ember.broadcast_to %{{.*}} [%[[N]], %[[D]]] : tensor<?x1xi64> -> tensor<?x?xi64>
// CHECK:         ember.matmul %{{.*}}, %{{.*}} : tensor<1x?x?xf32>, tensor<1x?x3xf32> -> tensor<1x?x3xf32>
func.func @gather_rows(%x: tensor<?x3xf32>, %i: tensor<?xi64>) -> tensor<?x3xf32> attributes {ember.differentiate} {
  %0 = ember.gather %x, %i axis = 0 : tensor<?x3xf32>, tensor<?xi64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// scatter add: the cotangent passes to the operand and is gathered for the
// updates.
// CHECK-LABEL: func.func @scatter_add_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32>, %[[U:.*]]: tensor<2xf32>, %[[G:.*]]: tensor<4xf32>)
// CHECK:         %[[I:.*]] = ember.constant dense<1> : tensor<2xi64>
// CHECK:         %[[Y:.*]] = ember.scatter add, %[[X]], %[[I]], %[[U]] axis = 0
// CHECK-NEXT:    %[[DU:.*]] = ember.gather %[[G]], %[[I]] axis = 0
// CHECK-NEXT:    return %[[Y]], %[[G]], %[[DU]]
func.func @scatter_add(%x: tensor<4xf32>, %u: tensor<2xf32>) -> tensor<4xf32> attributes {ember.differentiate} {
  %i = ember.constant dense<[1, 1]> : tensor<2xi64>
  %0 = ember.scatter add, %x, %i, %u axis = 0 : tensor<4xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// scatter update: the written elements' cotangent is zeroed for the operand
// and goes to the update that won (the last to each element: a max-scatter of
// the updates' positions, read back).
// CHECK-LABEL: func.func @scatter_update_vjp(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32>, %[[U:.*]]: tensor<2xf32>, %[[G:.*]]: tensor<4xf32>)
// CHECK:         %[[I:.*]] = ember.constant dense<1> : tensor<2xi64>
// CHECK:         %[[LANDED:.*]] = ember.gather %[[G]], %[[I]] axis = 0
// CHECK:         %[[DX:.*]] = ember.scatter update, %[[G]], %[[I]], %{{.*}} axis = 0
// CHECK-NEXT:    %[[POS:.*]] = ember.iota dim 0 : tensor<2xi64>
// CHECK:         %[[LAST:.*]] = ember.scatter max, %{{.*}}, %[[I]], %[[POS]] axis = 0 : tensor<4xi64>, tensor<2xi64>, tensor<2xi64> -> tensor<4xi64>
// CHECK-NEXT:    %[[BACK:.*]] = ember.gather %[[LAST]], %[[I]] axis = 0
// CHECK-NEXT:    %[[WON:.*]] = ember.compare eq, %[[BACK]], %[[POS]]
// CHECK:         %[[DU:.*]] = ember.select %[[WON]], %[[LANDED]], %{{.*}}
// CHECK-NEXT:    return %{{.*}}, %[[DX]], %[[DU]]
func.func @scatter_update(%x: tensor<4xf32>, %u: tensor<2xf32>) -> tensor<4xf32> attributes {ember.differentiate} {
  %i = ember.constant dense<[1, 1]> : tensor<2xi64>
  %0 = ember.scatter update, %x, %i, %u axis = 0 : tensor<4xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @scatter_mul(%x: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<2xi64>) -> tensor<4xf32> attributes {ember.differentiate} {
  // expected-error @+2 {{'ember.scatter' op has no gradient for mode mul}}
  // expected-error @+1 {{'ember.scatter' op failed to build its vector-Jacobian product}}
  %0 = ember.scatter mul, %x, %i, %u axis = 0 : tensor<4xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
