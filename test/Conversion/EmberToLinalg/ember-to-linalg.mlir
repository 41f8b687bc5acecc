// RUN: ember-opt %s --convert-ember-to-linalg -split-input-file | FileCheck %s

// Representative lowerings of ember ops to linalg / tensor / arith / math.

// Elementwise ops run as one loop over the operands flattened to 1-D.
// CHECK-DAG:   #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @add_f32(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK:         %[[FA:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK:         %[[FB:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<6xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME:        ins(%[[FA]], %[[FB]] : tensor<6xf32>, tensor<6xf32>) outs(%[[E]] : tensor<6xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[OUT:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK:         return %[[OUT]]
// CHECK-NOT:     ember.
func.func @add_f32(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = ember.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @elementwise_int(
// CHECK:         arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:         arith.divsi %{{.*}}, %{{.*}} : i32
// CHECK:         arith.floordivsi %{{.*}}, %{{.*}} : i32
// CHECK:         %[[REM:.*]] = arith.remsi %{{.*}}, %{{.*}} : i32
// CHECK:         arith.select %{{.*}}, %{{.*}}, %[[REM]] : i32
// CHECK:         math.ipowi %{{.*}}, %{{.*}} : i32
// CHECK:         arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK:         arith.andi %{{.*}}, %{{.*}} : i32
func.func @elementwise_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.add %a, %b : tensor<4xi32>
  %1 = ember.div %0, %b : tensor<4xi32>
  %2 = ember.floordiv %1, %b : tensor<4xi32>
  %3 = ember.mod %2, %b : tensor<4xi32>
  %4 = ember.pow %3, %b : tensor<4xi32>
  %5 = ember.maximum %4, %b : tensor<4xi32>
  %6 = ember.and %5, %b : tensor<4xi32>
  return %6 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @elementwise_float(
// CHECK:         %[[Q:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    math.floor %[[Q]] : f64
// CHECK:         arith.remf %{{.*}}, %{{.*}} : f64
// CHECK:         %[[P:.*]] = math.powf %{{.*}}, %{{.*}} : f64
// numpy's minimum: a NaN right operand replaces the left, then one "less
// than" choice (a NaN left one stays; equal operands give the left one).
// CHECK:         %[[NAN:.*]] = arith.cmpf uno, %[[B:.*]], %[[B]] : f64
// CHECK-NEXT:    %[[L:.*]] = arith.select %[[NAN]], %[[B]], %{{.*}} : f64
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpf olt, %[[B]], %[[L]] : f64
// CHECK-NEXT:    arith.select %[[LT]], %[[B]], %[[L]] : f64
// CHECK:         math.tanh %{{.*}} : f64
// CHECK:         %[[NEG:.*]] = arith.negf %{{.*}} : f64
// CHECK-NEXT:    %[[EXP:.*]] = math.exp %[[NEG]] : f64
// CHECK-NEXT:    %[[DEN:.*]] = arith.addf %[[ONE:.*]], %[[EXP]] : f64
// CHECK-NEXT:    arith.divf %[[ONE]], %[[DEN]] : f64
func.func @elementwise_float(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %0 = ember.floordiv %a, %b : tensor<4xf64>
  %1 = ember.mod %0, %b : tensor<4xf64>
  %2 = ember.pow %1, %b : tensor<4xf64>
  %3 = ember.minimum %2, %b : tensor<4xf64>
  %4 = ember.tanh %3 : tensor<4xf64>
  %5 = ember.sigmoid %4 : tensor<4xf64>
  return %5 : tensor<4xf64>
}

// -----

// Size-1 dims that broadcast read index 0; leading dims are dropped.
// CHECK-DAG:   #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG:   #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME:      %[[X:.*]]: tensor<2x1xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:        ins(%[[X]] : tensor<2x1xf32>) outs(%[[E]] : tensor<4x2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         return %[[R]]
func.func @broadcast_to(%x: tensor<2x1xf32>) -> tensor<4x2x3xf32> {
  %0 = ember.broadcast_to %x : tensor<2x1xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    %[[UNIT:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
// CHECK-NEXT:    %[[TMP:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    %[[SWAP:.*]] = tensor.expand_shape %[[TMP]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK-NEXT:    return %[[FLAT]], %[[UNIT]], %[[SWAP]]
func.func @reshape(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3x1xf32>, tensor<3x2xf32>) {
  %0 = ember.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = ember.reshape %x : tensor<2x3xf32> -> tensor<2x3x1xf32>
  %2 = ember.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<2x3x1xf32>, tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xi64>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x2x3xi64>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xi64>) outs(%[[E]] : tensor<4x2x3xi64>) permutation = [2, 0, 1]
// CHECK:         return %[[T]]
func.func @transpose(%x: tensor<2x3x4xi64>) -> tensor<4x2x3xi64> {
  %0 = ember.transpose %x permutation = [2, 0, 1] : tensor<2x3x4xi64> -> tensor<4x2x3xi64>
  return %0 : tensor<4x2x3xi64>
}

// -----

// CHECK-LABEL: func.func @slice(
// CHECK-SAME:      %[[X:.*]]: tensor<5x6xf32>)
// CHECK-NEXT:    %[[S:.*]] = tensor.extract_slice %[[X]][1, 0] [2, 2] [2, 4] : tensor<5x6xf32> to tensor<2x2xf32>
// CHECK-NEXT:    return %[[S]]
func.func @slice(%x: tensor<5x6xf32>) -> tensor<2x2xf32> {
  %0 = ember.slice %x start = [1, 0] limit = [5, 6] stride = [2, 4] : tensor<5x6xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @concat(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3xi32>, %[[B:.*]]: tensor<2x1xi32>, %[[C:.*]]: tensor<2x2xi32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x6xi32>
// CHECK-NEXT:    %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xi32> into tensor<2x6xi32>
// CHECK-NEXT:    %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][0, 3] [2, 1] [1, 1] : tensor<2x1xi32> into tensor<2x6xi32>
// CHECK-NEXT:    %[[I2:.*]] = tensor.insert_slice %[[C]] into %[[I1]][0, 4] [2, 2] [1, 1] : tensor<2x2xi32> into tensor<2x6xi32>
// CHECK-NEXT:    return %[[I2]]
func.func @concat(%a: tensor<2x3xi32>, %b: tensor<2x1xi32>, %c: tensor<2x2xi32>) -> tensor<2x6xi32> {
  %0 = ember.concat %a, %b, %c axis = 1 : tensor<2x3xi32>, tensor<2x1xi32>, tensor<2x2xi32> -> tensor<2x6xi32>
  return %0 : tensor<2x6xi32>
}

// -----

// Empty pieces: an empty slice reads nothing (extract_slice rejects even
// offset 0 in an empty dim), and concat skips empty inputs (inserting one
// at the end would be out of bounds).
// CHECK-LABEL: func.func @empty_pieces(
// CHECK-SAME:      %[[X:.*]]: tensor<0x4xf32>, %[[A:.*]]: tensor<3xi32>, %[[Z:.*]]: tensor<0xi32>)
// CHECK-NEXT:    %[[S:.*]] = tensor.empty() : tensor<0x2xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<3xi32>
// CHECK-NEXT:    %[[I:.*]] = tensor.insert_slice %[[A]] into %[[E]][0] [3] [1] : tensor<3xi32> into tensor<3xi32>
// CHECK-NEXT:    return %[[S]], %[[I]]
func.func @empty_pieces(%x: tensor<0x4xf32>, %a: tensor<3xi32>, %z: tensor<0xi32>) -> (tensor<0x2xf32>, tensor<3xi32>) {
  %0 = ember.slice %x start = [0, 0] limit = [0, 4] stride = [1, 2] : tensor<0x4xf32> -> tensor<0x2xf32>
  %1 = ember.concat %z, %a, %z axis = 0 : tensor<0xi32>, tensor<3xi32>, tensor<0xi32> -> tensor<3xi32>
  return %0, %1 : tensor<0x2xf32>, tensor<3xi32>
}

// -----

// Indices wrap when negative; one still out of range is reported
// (ember.fault_if, site -1: no ember.fault_site) and clamped into
// [0, size - 1], so that the read stays in bounds.
// CHECK-DAG:   #[[$IDX:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gather(
// CHECK-SAME:      %[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK:         linalg.generic {indexing_maps = [#[[$IDX]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[I]] : tensor<2xi64>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK-DAG:       %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C4:.*]] = arith.constant 4 : index
// CHECK:           %[[NEG:.*]] = arith.cmpi slt, %[[IDX]], %[[C0]] : index
// CHECK-NEXT:      %[[WRAP:.*]] = arith.addi %[[IDX]], %[[C5]] : index
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[IDX]] : index
// CHECK-NEXT:      %[[OUT:.*]] = arith.cmpi uge, %[[SEL]], %[[C5]] : index
// CHECK-NEXT:      %[[MIN:.*]] = arith.minsi %[[SEL]], %[[C4]] : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.maxsi %[[C0]], %[[MIN]] : index
// CHECK-NEXT:      %[[COL:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<5x3xf32>
// CHECK-NEXT:      %[[R:.*]] = ember.fault_if %[[OUT]], %[[V]] {kind = 3 : i32, site = -1 : i32} : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = ember.gather %x, %i axis = 0 : tensor<5x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A scatter is a loop nest over the updates, carrying the result: each
// step wraps its index, reports one out of range (and writes nothing),
// and combines the update with the element it lands on.
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME:      %[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2xi64>, %[[U:.*]]: tensor<2x3xf32>)
// CHECK:         %[[SIZE:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<5x3xf32>
// CHECK:         %[[R:.*]] = scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[X]]) -> (tensor<5x3xf32>) {
// CHECK-NEXT:      scf.for %[[Q:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (tensor<5x3xf32>) {
// CHECK-NEXT:        %[[RAW:.*]] = tensor.extract %[[I]][%[[N]]] : tensor<2xi64>
// CHECK-NEXT:        %[[IDX:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK:             %[[NEG:.*]] = arith.cmpi slt, %[[IDX]], %{{.*}} : index
// CHECK-NEXT:        %[[WRAP:.*]] = arith.addi %[[IDX]], %[[SIZE]] : index
// CHECK-NEXT:        %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[IDX]] : index
// CHECK-NEXT:        %[[OUT:.*]] = arith.cmpi uge, %[[SEL]], %[[SIZE]] : index
// CHECK-NEXT:        %[[ROW:.*]] = ember.fault_if %[[OUT]], %[[SEL]] {kind = 3 : i32, site = -1 : i32} : index
// CHECK-NEXT:        %[[W:.*]] = scf.if %[[OUT]] -> (tensor<5x3xf32>) {
// CHECK-NEXT:          scf.yield %[[B]] : tensor<5x3xf32>
// CHECK-NEXT:        } else {
// CHECK-NEXT:          %[[OLD:.*]] = tensor.extract %[[B]][%[[ROW]], %[[Q]]] : tensor<5x3xf32>
// CHECK-NEXT:          %[[NEW:.*]] = tensor.extract %[[U]][%[[N]], %[[Q]]] : tensor<2x3xf32>
// CHECK-NEXT:          %[[SUM:.*]] = arith.addf %[[OLD]], %[[NEW]] : f32
// CHECK-NEXT:          %[[PUT:.*]] = tensor.insert %[[SUM]] into %[[B]][%[[ROW]], %[[Q]]] : tensor<5x3xf32>
// CHECK-NEXT:          scf.yield %[[PUT]] : tensor<5x3xf32>
// CHECK:         return %[[R]] : tensor<5x3xf32>
func.func @scatter(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %0 = ember.scatter add, %x, %i, %u axis = 0 : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// Integer max, a `?` batch of updates; a scalar index along the last axis.
// CHECK-LABEL: func.func @scatter_max_dynamic(
// CHECK:         scf.for
// CHECK:           arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK-LABEL: func.func @scatter_scalar_index(
// CHECK:           %[[V:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK-NOT:       arith.addf
// CHECK:           tensor.insert
func.func @scatter_max_dynamic(%x: tensor<?x4xi32>, %i: tensor<?xi32>, %u: tensor<?x4xi32>) -> tensor<?x4xi32> {
  %0 = ember.scatter max, %x, %i, %u axis = 0 : tensor<?x4xi32>, tensor<?xi32>, tensor<?x4xi32> -> tensor<?x4xi32>
  return %0 : tensor<?x4xi32>
}
func.func @scatter_scalar_index(%x: tensor<2x3xf32>, %i: tensor<i64>, %u: tensor<2xf32>) -> tensor<2x3xf32> {
  %0 = ember.scatter update, %x, %i, %u axis = 1 : tensor<2x3xf32>, tensor<i64>, tensor<2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_keepdims(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>) dimensions = [1]
// CHECK-NEXT:      (%[[IN:.*]]: f32, %[[ACC:.*]]: f32) {
// Float sums may be reassociated (vector accumulators), as numpy's pairwise sum.
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[IN]], %[[ACC]] fastmath<reassoc> : f32
// CHECK-NEXT:        linalg.yield %[[SUM]] : f32
// CHECK:         %[[K:.*]] = tensor.expand_shape %[[RED]] {{\[}}[0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK-NEXT:    return %[[K]]
func.func @reduce_sum_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = ember.reduce_sum %x axes = [1] keepdims : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// Reductions start from their identity: -inf / INT_MIN for max, +inf for min, 1 for prod.
// CHECK-LABEL: func.func @reduce_inits(
// CHECK:         %[[LOW:.*]] = arith.constant -2147483648 : i32
// CHECK:         linalg.fill ins(%[[LOW]] : i32)
// CHECK:         linalg.reduce
// CHECK:           arith.maxsi
// CHECK:         %[[HIGH:.*]] = arith.constant 0x7F800000 : f32
// CHECK:         linalg.fill ins(%[[HIGH]] : f32)
// CHECK:         linalg.reduce
// CHECK:           arith.minimumf
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i64
// CHECK:         linalg.fill ins(%[[ONE]] : i64)
// CHECK:         linalg.reduce
// CHECK:           arith.muli
func.func @reduce_inits(%x: tensor<2x3xi32>, %y: tensor<2x3xf32>, %z: tensor<4xi64>) -> (tensor<i32>, tensor<3xf32>, tensor<i64>) {
  %0 = ember.reduce_max %x axes = [1, 0] : tensor<2x3xi32> -> tensor<i32>
  %1 = ember.reduce_min %y axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %2 = ember.reduce_prod %z axes = [0] : tensor<4xi64> -> tensor<i64>
  return %0, %1, %2 : tensor<i32>, tensor<3xf32>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @reduce_mean(
// CHECK:         %[[RED:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [0, 2]
// CHECK:           arith.addf
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[RED]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[IN]], %[[N]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
// CHECK:         return %[[MEAN]]
func.func @reduce_mean(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = ember.reduce_mean %x axes = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The running (max, index) pair is replaced only on a strictly greater element.
// CHECK-DAG:   #[[$IN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @argmax(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAXINIT:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:         %[[IDXINIT:.*]] = linalg.fill ins(%[[ZERO]] : i64) outs(%{{.*}} : tensor<2xi64>)
// CHECK:         %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]] : tensor<2x3xf32>) outs(%[[MAXINIT]], %[[IDXINIT]] : tensor<2xf32>, tensor<2xi64>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[MAX:.*]]: f32, %[[IDX:.*]]: i64):
// CHECK-NEXT:      %[[POS:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[POS64:.*]] = arith.index_cast %[[POS]] : index to i64
// CHECK-NEXT:      %[[OGT:.*]] = arith.cmpf ogt, %[[IN]], %[[MAX]] : f32
// CHECK-NEXT:      %[[NAN:.*]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK-NEXT:      %[[NUM:.*]] = arith.cmpf ord, %[[MAX]], %[[MAX]] : f32
// CHECK-NEXT:      %[[FIRSTNAN:.*]] = arith.andi %[[NAN]], %[[NUM]] : i1
// CHECK-NEXT:      %[[GT:.*]] = arith.ori %[[OGT]], %[[FIRSTNAN]] : i1
// CHECK-NEXT:      %[[NEWMAX:.*]] = arith.select %[[GT]], %[[IN]], %[[MAX]] : f32
// CHECK-NEXT:      %[[NEWIDX:.*]] = arith.select %[[GT]], %[[POS64]], %[[IDX]] : i64
// CHECK-NEXT:      linalg.yield %[[NEWMAX]], %[[NEWIDX]] : f32, i64
// CHECK:         return %[[R]]#1 : tensor<2xi64>
func.func @argmax(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = ember.argmax %x axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @argmax_keepdims(
// CHECK:         %[[R:.*]]:2 = linalg.generic
// CHECK:         tensor.expand_shape %[[R]]#1 {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xi64> into tensor<1x3xi64>
func.func @argmax_keepdims(%x: tensor<2x3xi32>) -> tensor<1x3xi64> {
  %0 = ember.argmax %x axis = 0 keepdims : tensor<2x3xi32> -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}

// -----

// matmul -> linalg.matmul into a zero-filled accumulator, the same for
// every target (CPUs rewrite it in ember-cpu-lower-matmuls).
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK:         %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK:         return %[[M]]
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = ember.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Batched: the batch dims collapsed into one for linalg.batch_matmul, and
// expanded again.
// CHECK-LABEL: func.func @batch_matmul_rank4(
// CHECK-SAME:      %[[A:.*]]: tensor<5x2x3x4xi64>, %[[B:.*]]: tensor<5x2x4x6xi64>)
// CHECK-DAG:     %[[A3:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2], [3]] : tensor<5x2x3x4xi64> into tensor<10x3x4xi64>
// CHECK-DAG:     %[[B3:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0, 1], [2], [3]] : tensor<5x2x4x6xi64> into tensor<10x4x6xi64>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<10x3x6xi64>) -> tensor<10x3x6xi64>
// CHECK:         %[[M:.*]] = linalg.batch_matmul ins(%[[A3]], %[[B3]] : tensor<10x3x4xi64>, tensor<10x4x6xi64>) outs(%[[INIT]] : tensor<10x3x6xi64>)
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2], [3]] output_shape [5, 2, 3, 6] : tensor<10x3x6xi64> into tensor<5x2x3x6xi64>
// CHECK:         return %[[R]]
func.func @batch_matmul_rank4(%a: tensor<5x2x3x4xi64>, %b: tensor<5x2x4x6xi64>) -> tensor<5x2x3x6xi64> {
  %0 = ember.matmul %a, %b : tensor<5x2x3x4xi64>, tensor<5x2x4x6xi64> -> tensor<5x2x3x6xi64>
  return %0 : tensor<5x2x3x6xi64>
}

// -----

// Floats to integers saturate and NaN gives 0 (fptosi alone is poison out
// of range).
// CHECK-LABEL: func.func @cast(
// CHECK:         ^bb0(%[[F:.*]]: f32, %{{.*}}: i32):
// CHECK-NEXT:      %[[LIMIT:.*]] = arith.constant 2.14748365E+9 : f32
// CHECK-NEXT:      %[[LOWEST:.*]] = arith.constant -2.14748365E+9 : f32
// CHECK-NEXT:      %[[I:.*]] = arith.fptosi %[[F]] : f32 to i32
// CHECK-NEXT:      %[[LARGE:.*]] = arith.cmpf oge, %[[F]], %[[LIMIT]] : f32
// CHECK-NEXT:      %[[SMALL:.*]] = arith.cmpf ole, %[[F]], %[[LOWEST]] : f32
// CHECK-NEXT:      %[[NAN:.*]] = arith.cmpf uno, %[[F]], %[[F]] : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT:      %[[S1:.*]] = arith.select %[[LARGE]], %[[MAX]], %[[I]] : i32
// CHECK-NEXT:      %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT:      %[[S2:.*]] = arith.select %[[SMALL]], %[[MIN]], %[[S1]] : i32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[S3:.*]] = arith.select %[[NAN]], %[[ZERO]], %[[S2]] : i32
// CHECK-NEXT:      linalg.yield %[[S3]] : i32
// CHECK:         ^bb0(%[[B:.*]]: i1, %{{.*}}: i64):
// CHECK-NEXT:      %[[W:.*]] = arith.extui %[[B]] : i1 to i64
// CHECK-NEXT:      linalg.yield %[[W]] : i64
// CHECK:         ^bb0(%[[G:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[NZ:.*]] = arith.cmpf une, %[[G]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[NZ]] : i1
// CHECK:         ^bb0(%[[H:.*]]: i1, %{{.*}}: f64):
// CHECK-NEXT:      %[[U:.*]] = arith.uitofp %[[H]] : i1 to f64
// CHECK-NEXT:      linalg.yield %[[U]] : f64
// CHECK:         ^bb0(%[[K:.*]]: i64, %{{.*}}: i32):
// CHECK-NEXT:      %[[T:.*]] = arith.trunci %[[K]] : i64 to i32
// CHECK-NEXT:      linalg.yield %[[T]] : i32
func.func @cast(%a: tensor<4xf32>, %b: tensor<4xi1>, %c: tensor<4xi64>)
    -> (tensor<4xi32>, tensor<4xi64>, tensor<4xi1>, tensor<4xf64>, tensor<4xi32>) {
  %0 = ember.cast %a : tensor<4xf32> -> tensor<4xi32>
  %1 = ember.cast %b : tensor<4xi1> -> tensor<4xi64>
  %2 = ember.cast %a : tensor<4xf32> -> tensor<4xi1>
  %3 = ember.cast %b : tensor<4xi1> -> tensor<4xf64>
  %4 = ember.cast %c : tensor<4xi64> -> tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xi64>, tensor<4xi1>, tensor<4xf64>, tensor<4xi32>
}

// -----

// Floats compare ordered, signed integers signed, i1 unsigned (false < true).
// CHECK-LABEL: func.func @compare(
// CHECK:         ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[R:.*]] = arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : i1
// CHECK:         ^bb0(%[[C:.*]]: i32, %[[D:.*]]: i32, %{{.*}}: i1):
// CHECK-NEXT:      %[[S:.*]] = arith.cmpi slt, %[[C]], %[[D]] : i32
// CHECK-NEXT:      linalg.yield %[[S]] : i1
// CHECK:         ^bb0(%[[E:.*]]: i1, %[[F:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT:      %[[T:.*]] = arith.cmpi ult, %[[E]], %[[F]] : i1
// CHECK-NEXT:      linalg.yield %[[T]] : i1
// CHECK:         ^bb0(%[[G:.*]]: f32, %[[H:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[U:.*]] = arith.cmpf une, %[[G]], %[[H]] : f32
// CHECK-NEXT:      linalg.yield %[[U]] : i1
// CHECK:         ^bb0(%[[I:.*]]: i64, %[[J:.*]]: i64, %{{.*}}: i1):
// CHECK-NEXT:      %[[V:.*]] = arith.cmpi sge, %[[I]], %[[J]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i1
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xi32>, %c: tensor<4xi1>, %d: tensor<4xi64>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = ember.compare lt, %a, %a : tensor<4xf32>
  %1 = ember.compare lt, %b, %b : tensor<4xi32>
  %2 = ember.compare lt, %c, %c : tensor<4xi1>
  %3 = ember.compare ne, %a, %a : tensor<4xf32>
  %4 = ember.compare ge, %d, %d : tensor<4xi64>
  return %0, %1, %2, %3, %4 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @select_constant(
// CHECK-SAME:      %[[C:.*]]: tensor<2xi1>, %[[A:.*]]: tensor<2xf32>)
// CHECK:         %[[K:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[C]], %[[A]], %[[K]] : tensor<2xi1>, tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[P:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.select %[[P]], %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
func.func @select_constant(%c: tensor<2xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  %k = ember.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = ember.select %c, %a, %k : tensor<2xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Integer neg is 0 - x; not is xor with all ones. (Integer abs is checked by
// value in test/Integration/int-abs.mlir.)
// CHECK-LABEL: func.func @unary_int(
// CHECK:         ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[N:.*]] = arith.subi %[[Z]], %[[X]] : i32
// CHECK-NEXT:      linalg.yield %[[N]] : i32
// CHECK:         ^bb0(%[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[ONES:.*]] = arith.constant -1 : i32
// CHECK-NEXT:      %[[R:.*]] = arith.xori %[[Y]], %[[ONES]] : i32
// CHECK-NEXT:      linalg.yield %[[R]] : i32
func.func @unary_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.neg %x : tensor<4xi32>
  %1 = ember.not %0 : tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// conv2d: the input inserted (dilated by its input dilations, at the padding's
// offset) into zeros, then linalg's NHWC/HWCF convolution.
// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME:      %[[X:.*]]: tensor<2x7x6x3xf32>, %[[W:.*]]: tensor<3x2x3x4xf32>)
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x15x6x3xf32>)
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %[[X]] into %[[ZEROS]][0, 1, 0, 0] [2, 7, 6, 3] [1, 2, 1, 1] : tensor<2x7x6x3xf32> into tensor<2x15x6x3xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x7x5x4xf32>)
// CHECK:         linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : vector<2xi64>, strides = dense<[2, 1]> : vector<2xi64>} ins(%[[PADDED]], %[[W]] : tensor<2x15x6x3xf32>, tensor<3x2x3x4xf32>) outs(%[[INIT]] : tensor<2x7x5x4xf32>)
func.func @conv2d(%x: tensor<2x7x6x3xf32>, %w: tensor<3x2x3x4xf32>) -> tensor<2x7x5x4xf32> {
  %0 = ember.conv2d %x, %w strides = [2, 1] dilations = [1, 1] input_dilations = [2, 1] padding = [1, 1, 0, 0] : tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32> -> tensor<2x7x5x4xf32>
  return %0 : tensor<2x7x5x4xf32>
}

// -----

// Pooling: max over the input padded with -inf; average as sums over the
// zero-padded input divided by each window's count of input elements. The
// window reductions loop over (n, h, w), then the window (kh, kw), then the
// channels, innermost (contiguous: vector loops).
// CHECK-DAG:     #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
// CHECK-DAG:     #[[$WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
// CHECK-DAG:     #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
// CHECK-LABEL: func.func @pooling(
// CHECK-SAME:      %[[X:.*]]: tensor<1x5x5x2xf32>
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[LOW:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<1x7x7x2xf32>)
// CHECK:         %[[PADDED:.*]] = tensor.insert_slice %[[X]] into %[[LOW]][0, 1, 1, 0] [1, 5, 5, 2] [1, 1, 1, 1]
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[$IN]], #[[$WIN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%[[PADDED]], %[[WINDOW]] : tensor<1x7x7x2xf32>, tensor<3x3xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %{{.*}}: f32, %[[M:.*]]: f32):
// CHECK-NEXT:      arith.maximumf %[[M]], %[[A]] : f32
// CHECK:         %[[SUMS:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$WIN]], #[[$OUT]]], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x6x6x2xf32>, tensor<2x2xf32>)
// CHECK-NEXT:    ^bb0(%[[B:.*]]: f32, %{{.*}}: f32, %[[S:.*]]: f32):
// CHECK-NEXT:      arith.addf %[[S]], %[[B]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[SUMS]] : tensor<1x3x3x2xf32>)
// CHECK:           arith.minsi
// CHECK:           arith.divf
func.func @pooling(%x: tensor<1x5x5x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) {
  %m = ember.max_pool2d %x window = [3, 3] strides = [2, 2] padding = [1, 1, 1, 1] : tensor<1x5x5x2xf32> -> tensor<1x3x3x2xf32>
  %a = ember.avg_pool2d %x window = [2, 2] strides = [2, 2] padding = [0, 1, 0, 1] : tensor<1x5x5x2xf32> -> tensor<1x3x3x2xf32>
  return %m, %a : tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>
}

// -----

// The max pooling's gradient: each window's first maximum (offset kh * KW
// + kw, strictly greater values taking over), then each input element's sum
// over the windows that hold it, read where the window is its first maximum.
// CHECK-LABEL: func.func @max_pool_grad(
// CHECK:         %[[FIRST:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
// CHECK:           arith.cmpf ogt
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
// CHECK-SAME:        outs(%{{.*}} : tensor<1x4x4x2xf32>)
// CHECK:           arith.remsi
// CHECK:           tensor.extract %{{.*}}[{{.*}}] : tensor<1x2x2x2xf32>
// CHECK:           tensor.extract %[[FIRST]]#1[{{.*}}] : tensor<1x2x2x2xi64>
func.func @max_pool_grad(%x: tensor<1x4x4x2xf32>, %dy: tensor<1x2x2x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = ember.max_pool2d_grad %x, %dy window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0] : tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32> -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}
