// RUN: ember-opt %s --convert-ember-to-linalg --split-input-file --verify-diagnostics | FileCheck %s

// Elementwise ops, broadcasts and reductions lower dynamic dims: the sizes
// of new tensors come from tensor.dim of the operands (or the broadcast's
// size operands). An elementwise op keeps its nest (no reshapes of `?` dims,
// which would block fusing a broadcast into it).
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:      %[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<?x4xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK-NOT:     collapse_shape
// CHECK:         %[[E:.*]] = tensor.empty(%[[ROWS]]) : tensor<?x4xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<?x4xf32>, tensor<?x4xf32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK:           arith.addf
// CHECK:         return %[[G]]
func.func @elementwise(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = ember.add %a, %b : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:      %[[W:.*]]: tensor<?xf32>, %[[R:.*]]: index, %[[C:.*]]: index)
// CHECK:         %[[E:.*]] = tensor.empty(%[[R]], %[[C]]) : tensor<?x?xf32>
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[W]] : tensor<?xf32>) outs(%[[E]] : tensor<?x?xf32>)
func.func @broadcast(%w: tensor<?xf32>, %r: index, %c: index) -> tensor<?x?xf32> {
  %0 = ember.broadcast_to %w [%r, %c] : tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A mean divides by the reduced dims' product, computed when the code runs.
// CHECK-LABEL: func.func @mean(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill {{.*}} outs(%{{.*}} : tensor<?xf32>)
// CHECK:         %[[SUM:.*]] = linalg.reduce ins(%[[X]] : tensor<?x?xf32>) outs(%[[INIT]] : tensor<?xf32>) dimensions = [1]
// CHECK:         %[[COLS:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[I:.*]] = arith.index_cast %[[COLS]] : index to i64
// CHECK:         %[[F:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK:         %[[COUNT:.*]] = arith.mulf %{{.*}}, %[[F]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : tensor<?xf32>)
// CHECK:           arith.divf %{{.*}}, %[[COUNT]] : f32
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [%[[ROWS]], 1] : tensor<?xf32> into tensor<?x1xf32>
func.func @mean(%x: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %0 = ember.reduce_mean %x axes = [1] keepdims : tensor<?x?xf32> -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// Matmuls: the zero-filled accumulator takes its rows from A and its
// columns from B.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<4x?xf32>
// CHECK-DAG:     %[[M:.*]] = tensor.dim %[[A]], %c0
// CHECK-DAG:     %[[N:.*]] = tensor.dim %[[B]], %c1
// CHECK:         %[[E:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x?xf32>)
// CHECK:         linalg.matmul ins(%[[A]], %[[B]] : tensor<?x4xf32>, tensor<4x?xf32>) outs(%[[Z]] : tensor<?x?xf32>)
func.func @matmul(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>) -> tensor<?x?xf32> {
  %0 = ember.matmul %a, %b : tensor<?x4xf32>, tensor<4x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Batched: the batch dims collapse into one `?` and expand back with the
// run-time size.
// CHECK-LABEL: func.func @batched_matmul(
// CHECK-SAME:      %[[A:.*]]: tensor<2x?x3x4xf32>, %[[B:.*]]: tensor<2x?x4x5xf32>
// CHECK:         %[[P:.*]] = tensor.dim %[[A]], %c1
// CHECK:         %[[CA:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2], [3]] : tensor<2x?x3x4xf32> into tensor<?x3x4xf32>
// CHECK:         %[[CB:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0, 1], [2], [3]] : tensor<2x?x4x5xf32> into tensor<?x4x5xf32>
// CHECK:         %[[BATCH:.*]] = tensor.dim %[[CA]], %c0
// CHECK:         tensor.empty(%[[BATCH]]) : tensor<?x3x5xf32>
// CHECK:         %[[C:.*]] = linalg.batch_matmul ins(%[[CA]], %[[CB]] : tensor<?x3x4xf32>, tensor<?x4x5xf32>)
// CHECK:         tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2], [3]] output_shape [2, %[[P]], 3, 5] : tensor<?x3x5xf32> into tensor<2x?x3x5xf32>
func.func @batched_matmul(%a: tensor<2x?x3x4xf32>, %b: tensor<2x?x4x5xf32>) -> tensor<2x?x3x5xf32> {
  %0 = ember.matmul %a, %b : tensor<2x?x3x4xf32>, tensor<2x?x4x5xf32> -> tensor<2x?x3x5xf32>
  return %0 : tensor<2x?x3x5xf32>
}

// -----

// concat: the offsets along the axis add up the inputs' run-time sizes; a
// `?` dim elsewhere is the first input's.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:      %[[X:.*]]: tensor<?x3xf32>, %[[Y:.*]]: tensor<2x3xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// CHECK:         %[[AT:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK:         %[[TOTAL:.*]] = arith.addi %[[AT]], %{{.*}} : index
// CHECK:         %[[E:.*]] = tensor.empty(%[[TOTAL]]) : tensor<?x3xf32>
// CHECK:         %[[S0:.*]] = tensor.insert_slice %[[X]] into %[[E]][0, 0] [%{{.*}}, 3] [1, 1]
// CHECK:         %[[S1:.*]] = tensor.insert_slice %[[Y]] into %[[S0]][%[[N]], 0] [2, 3] [1, 1]
// CHECK:         tensor.insert_slice %[[X]] into %[[S1]][%[[AT]], 0] [%{{.*}}, 3] [1, 1]
func.func @concat(%x: tensor<?x3xf32>, %y: tensor<2x3xf32>) -> tensor<?x3xf32> {
  %0 = ember.concat %x, %y, %x axis = 0 : tensor<?x3xf32>, tensor<2x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat_features(
// CHECK-SAME:      %[[X:.*]]: tensor<?x3xf32>, %[[Y:.*]]: tensor<?x2xf32>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x5xf32>
// CHECK:         %[[S0:.*]] = tensor.insert_slice %[[X]] into %[[E]][0, 0]
// CHECK:         tensor.insert_slice %[[Y]] into %[[S0]][0, 3]
func.func @concat_features(%x: tensor<?x3xf32>, %y: tensor<?x2xf32>) -> tensor<?x5xf32> {
  %0 = ember.concat %x, %y axis = 1 : tensor<?x3xf32>, tensor<?x2xf32> -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// argmax: the kept `?` dims size its results; a `?` axis empty at run time
// has no maximum, a fault (kind 4) reported from the index it starts at.
// CHECK-LABEL: func.func @argmax(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?xf32>)
// CHECK:         %[[ROWS:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[COLS:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[EMPTY:.*]] = arith.cmpi eq, %[[COLS]], %{{.*}} : index
// CHECK:         %[[FIRST:.*]] = ember.fault_if %[[EMPTY]], %{{.*}} {kind = 4 : i32, site = 2 : i32} : i64
// CHECK:         %[[E:.*]] = tensor.empty(%[[ROWS]]) : tensor<?xi64>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[FIRST]] : i64) outs(%[[E]] : tensor<?xi64>)
// CHECK:         %[[G:.*]]:2 = linalg.generic {{.*}} ins(%[[X]] : tensor<?x?xf32>) outs(%{{.*}}, %[[INIT]] : tensor<?xf32>, tensor<?xi64>)
// CHECK:         tensor.expand_shape %[[G]]#1 {{\[\[}}0, 1]] output_shape [%[[ROWS]], 1]
func.func @argmax(%x: tensor<?x?xf32>) -> tensor<?x1xi64> {
  %0 = ember.argmax %x axis = 1 keepdims {ember.fault_site = 2 : i32} : tensor<?x?xf32> -> tensor<?x1xi64>
  return %0 : tensor<?x1xi64>
}

// -----

// A static axis cannot be empty (its verifier says so): no fault.
// CHECK-LABEL: func.func @argmax_static_axis(
// CHECK-NOT:     ember.fault_if
// CHECK:         return
func.func @argmax_static_axis(%x: tensor<?x4xf32>) -> tensor<?xi64> {
  %0 = ember.argmax %x axis = 1 : tensor<?x4xf32> -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// Other ops take static shapes only, and the pass refuses the first op with
// a dynamic dim, naming it, rather than failing inside a pattern.
func.func @print(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{'ember.print' op has the dynamic shape 'tensor<?x4xf32>': convert-ember-to-linalg lowers static shapes only}}
  ember.print %a message = "a" : tensor<?x4xf32>
  return
}

// -----

// A dynamic value inside a function of static signature is refused too.
func.func @inside(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %d = tensor.cast %a : tensor<8x4xf32> to tensor<?x4xf32>
  // expected-error @+1 {{'ember.print' op has the dynamic shape}}
  ember.print %d message = "d" : tensor<?x4xf32>
  return %a : tensor<8x4xf32>
}

// -----

// A reshape to one `?` dim: its size is the operand's elements over the
// known dims, at run time.
// CHECK-LABEL: func.func @flatten(
// CHECK-SAME:      %[[X:.*]]: tensor<?x3x4xf32>
// CHECK:         tensor.collapse_shape %[[X]] {{\[\[}}0], [1, 2]] : tensor<?x3x4xf32> into tensor<?x12xf32>
func.func @flatten(%x: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %0 = ember.reshape %x : tensor<?x3x4xf32> -> tensor<?x12xf32>
  return %0 : tensor<?x12xf32>
}

// -----

// A reshape with sizes: two `?` dims merged by collapse_shape, and split
// back through the flat tensor by expand_shape with the sizes given (which
// may regroup the rows: never the operand's own grouping guessed).
// CHECK-LABEL: func.func @reshape_sizes(
// CHECK-SAME:      %[[X:.*]]: tensor<?x?x6xf32>, %[[B:.*]]: index, %[[T:.*]]: index
// CHECK:         %[[M:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<?x?x6xf32> into tensor<?x6xf32>
// CHECK:         %[[E:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<?x6xf32>)
// CHECK:         %[[F:.*]] = tensor.collapse_shape %[[E]] {{\[}}[0, 1]] : tensor<?x6xf32> into tensor<?xf32>
// CHECK:         tensor.expand_shape %[[F]] {{\[}}[0, 1, 2]] output_shape [%[[B]], %[[T]], 6] : tensor<?xf32> into tensor<?x?x6xf32>
func.func @reshape_sizes(%x: tensor<?x?x6xf32>, %b: index, %t: index) -> tensor<?x?x6xf32> {
  %0 = ember.reshape %x : tensor<?x?x6xf32> -> tensor<?x6xf32>
  %1 = ember.exp %0 : tensor<?x6xf32>
  %2 = ember.reshape %1 [%b, %t] : tensor<?x6xf32> -> tensor<?x?x6xf32>
  return %2 : tensor<?x?x6xf32>
}

// -----

// A static side against a `?` one goes through a cast of the flat tensor
// (collapse_shape and expand_shape take a group dynamic on both sides or on
// neither).
// CHECK-LABEL: func.func @reshape_static_to_dynamic(
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
// CHECK:         %[[CAST:.*]] = tensor.cast %[[FLAT]] : tensor<8xf32> to tensor<?xf32>
// CHECK:         tensor.expand_shape %[[CAST]] {{\[}}[0, 1, 2]] output_shape [1, %{{.*}}, 4] : tensor<?xf32> into tensor<1x?x4xf32>
// CHECK-LABEL: func.func @reshape_dynamic_to_static(
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK:         tensor.cast %[[FLAT]] : tensor<?xf32> to tensor<8xf32>
func.func @reshape_static_to_dynamic(%x: tensor<2x4xf32>) -> tensor<1x?x4xf32> {
  %0 = ember.reshape %x : tensor<2x4xf32> -> tensor<1x?x4xf32>
  return %0 : tensor<1x?x4xf32>
}
func.func @reshape_dynamic_to_static(%x: tensor<?x4xf32>) -> tensor<8xf32> {
  %0 = ember.reshape %x : tensor<?x4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// iota: a generic with no inputs over a tensor sized by the operand; each
// element is its linalg.index along the dim, cast to the element type.
// CHECK-LABEL: func.func @iota(
// CHECK-SAME:      %[[N:.*]]: index
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[E]] : tensor<?x3xf32>)
// CHECK:           %[[I:.*]] = linalg.index 1 : index
// CHECK:           %[[W:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK:           %[[F:.*]] = arith.sitofp %[[W]] : i64 to f32
// CHECK:           linalg.yield %[[F]] : f32
// CHECK:         %[[E2:.*]] = tensor.empty(%[[N]]) : tensor<?x3xi32>
// CHECK:         linalg.generic {{.*}} outs(%[[E2]] : tensor<?x3xi32>)
// CHECK:           %[[J:.*]] = linalg.index 0 : index
// CHECK:           %[[K:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK:           linalg.yield %[[K]] : i32
func.func @iota(%n: index) -> (tensor<?x3xf32>, tensor<?x3xi32>) {
  %0 = ember.iota dim 1 [%n] : tensor<?x3xf32>
  %1 = ember.iota dim 0 [%n] : tensor<?x3xi32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xi32>
}

// -----

// shape_of: each size, read at run time for a `?` dim, as an int64 element.
// CHECK-LABEL: func.func @shape_of(
// CHECK-SAME:      %[[X:.*]]: tensor<?x3xf32>
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %c0
// CHECK:         %[[S0:.*]] = arith.index_cast %[[D0]] : index to i64
// CHECK:         %[[S1:.*]] = arith.index_cast %c3{{.*}} : index to i64
// CHECK:         tensor.from_elements %[[S0]], %[[S1]] : tensor<2xi64>
func.func @shape_of(%x: tensor<?x3xf32>) -> tensor<2xi64> {
  %0 = ember.shape_of %x : tensor<?x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// A convolution and a pooling of a `?` batch: the padded input and the
// accumulators are sized by the batch read at run time.
// CHECK-LABEL: func.func @conv_and_pool_dynamic_batch(
// CHECK-SAME:      %[[X:.*]]: tensor<?x6x6x3xf32>
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK:         %[[PADDED:.*]] = tensor.empty(%[[N]]) : tensor<?x8x8x3xf32>
// CHECK:         tensor.insert_slice %[[X]] into %{{.*}}[0, 1, 1, 0] [%{{.*}}, 6, 6, 3] [1, 1, 1, 1] : tensor<?x6x6x3xf32> into tensor<?x8x8x3xf32>
// CHECK:         tensor.empty(%{{.*}}) : tensor<?x6x6x4xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x6x6x4xf32>
// CHECK:         tensor.empty(%{{.*}}) : tensor<?x3x3x4xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]{{.*}} outs(%{{.*}} : tensor<?x3x3x4xf32>)
// CHECK:           arith.maximumf
func.func @conv_and_pool_dynamic_batch(%x: tensor<?x6x6x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<?x3x3x4xf32> {
  %0 = ember.conv2d %x, %w strides = [1, 1] dilations = [1, 1] input_dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<?x6x6x3xf32>, tensor<3x3x3x4xf32> -> tensor<?x6x6x4xf32>
  %1 = ember.max_pool2d %0 window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<?x6x6x4xf32> -> tensor<?x3x3x4xf32>
  return %1 : tensor<?x3x3x4xf32>
}

// -----

// A `?` dim sliced whole: its size read at run time.
// CHECK-LABEL: func.func @slice_dynamic_batch(
// CHECK-SAME:      %[[X:.*]]: tensor<?x4xf32>
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK:         tensor.extract_slice %[[X]][0, 1] [%[[N]], 2] [1, 1] : tensor<?x4xf32> to tensor<?x2xf32>
func.func @slice_dynamic_batch(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %0 = ember.slice %x start = [0, 1] limit = [-9223372036854775808, 3] stride = [1, 1] : tensor<?x4xf32> -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// Bounds counted from the end of a `?` dim are its size plus them: x[1:-1]
// starts at 1 and takes n - 2 rows; x[-3:] starts at n - 3 and takes 3.
// CHECK-LABEL: func.func @slice_dynamic_dim_in_part(
// CHECK-SAME:      %[[X:.*]]: tensor<?x4xf32>
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK:         %[[ROWS:.*]] = arith.addi %[[N]], %c-2
// CHECK:         tensor.extract_slice %[[X]][1, 0] [%[[ROWS]], 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
// CHECK:         %[[M:.*]] = tensor.dim %[[X]], %c0
// CHECK:         %[[START:.*]] = arith.addi %[[M]], %c-3
// CHECK:         tensor.extract_slice %[[X]][%[[START]], 0] [3, 4] [1, 1] : tensor<?x4xf32> to tensor<3x4xf32>
func.func @slice_dynamic_dim_in_part(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<3x4xf32>) {
  %0 = ember.slice %x start = [1, 0] limit = [-1, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<?x4xf32>
  %1 = ember.slice %x start = [-3, 0] limit = [-9223372036854775808, 4] stride = [1, 1] : tensor<?x4xf32> -> tensor<3x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<3x4xf32>
}

// -----

// A reshape that only trades a known size for `?` is a cast.
// CHECK-LABEL: func.func @reshape_known_to_dynamic(
// CHECK:         tensor.cast %{{.*}} : tensor<5x3xf32> to tensor<?x3xf32>
func.func @reshape_known_to_dynamic(%x: tensor<5x3xf32>) -> tensor<?x3xf32> {
  %0 = ember.reshape %x : tensor<5x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Two known sizes that differ are no cast, even with no elements.
// CHECK-LABEL: func.func @reshape_empty(
// CHECK-NOT:     tensor.cast
// CHECK:         return
func.func @reshape_empty(%x: tensor<5x0xf32>) -> tensor<4x0xf32> {
  %0 = ember.reshape %x : tensor<5x0xf32> -> tensor<4x0xf32>
  return %0 : tensor<4x0xf32>
}
