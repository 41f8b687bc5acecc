// RUN: ember-opt %s --convert-ember-to-linalg -split-input-file | FileCheck %s
// RUN: ember-opt %s --convert-ember-to-linalg=report-faults=false -split-input-file | FileCheck %s --check-prefix=GUARD

// Integer division never traps: the divisor is 1 where it is 0 or where the
// most negative integer is divided by -1, and each fault goes through
// ember.fault_if with the op's ember.fault_site. Without report-faults (GPU
// kernels) only the guard remains.

// CHECK-LABEL: func.func @div_i32(
// CHECK:         ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:       %[[CM1:.*]] = arith.constant -1 : i32
// CHECK-DAG:       %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK:           %[[ZERO:.*]] = arith.cmpi eq, %[[Y]], %[[C0]] : i32
// CHECK-NEXT:      %[[XMIN:.*]] = arith.cmpi eq, %[[X]], %[[MIN]] : i32
// CHECK-NEXT:      %[[YM1:.*]] = arith.cmpi eq, %[[Y]], %[[CM1]] : i32
// CHECK-NEXT:      %[[OVER:.*]] = arith.andi %[[XMIN]], %[[YM1]] : i1
// CHECK-NEXT:      %[[BAD:.*]] = arith.ori %[[ZERO]], %[[OVER]] : i1
// CHECK-NEXT:      %[[D:.*]] = arith.select %[[BAD]], %[[C1]], %[[Y]] : i32
// CHECK-NEXT:      %[[Q:.*]] = arith.divsi %[[X]], %[[D]] : i32
// CHECK-NEXT:      %[[Q1:.*]] = ember.fault_if %[[ZERO]], %[[Q]] {kind = 1 : i32, site = 3 : i32} : i32
// CHECK-NEXT:      %[[Q2:.*]] = ember.fault_if %[[OVER]], %[[Q1]] {kind = 2 : i32, site = 3 : i32} : i32
// CHECK-NEXT:      linalg.yield %[[Q2]] : i32
// GUARD-LABEL: func.func @div_i32(
// GUARD:         %[[D:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// GUARD-NEXT:    %[[Q:.*]] = arith.divsi %{{.*}}, %[[D]] : i32
// GUARD-NEXT:    linalg.yield %[[Q]] : i32
// GUARD-NOT:     ember.fault_if
func.func @div_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = ember.div %a, %b {ember.fault_site = 3 : i32} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// floordiv: the same guard; without ember.fault_site the site is -1.
// CHECK-LABEL: func.func @floordiv_i64(
// CHECK:         %[[MIN:.*]] = arith.constant -9223372036854775808 : i64
// CHECK:         %[[D:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    %[[Q:.*]] = arith.floordivsi %{{.*}}, %[[D]] : i64
// CHECK-NEXT:    %[[Q1:.*]] = ember.fault_if %{{.*}}, %[[Q]] {kind = 1 : i32, site = -1 : i32} : i64
// CHECK-NEXT:    ember.fault_if %{{.*}}, %[[Q1]] {kind = 2 : i32, site = -1 : i32} : i64
func.func @floordiv_i64(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = ember.floordiv %a, %b : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// mod: the most negative integer by -1 divides by 1 (remainder 0, the right
// answer), so only division by zero is a fault.
// CHECK-LABEL: func.func @mod_i32(
// CHECK:         %[[ZERO:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK:         %[[D:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[R:.*]] = arith.remsi %{{.*}}, %[[D]] : i32
// CHECK:         %[[F:.*]] = arith.select %{{.*}}, %{{.*}}, %[[R]] : i32
// CHECK-NEXT:    %[[F1:.*]] = ember.fault_if %[[ZERO]], %[[F]] {kind = 1 : i32, site = 0 : i32} : i32
// CHECK-NEXT:    linalg.yield %[[F1]] : i32
// CHECK-NOT:     kind = 2
func.func @mod_i32(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %0 = ember.mod %a, %b {ember.fault_site = 0 : i32} : tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// Floats stay IEEE (inf, nan): no guard, no fault.
// CHECK-LABEL: func.func @div_f32(
// CHECK:         %[[Q:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    linalg.yield %[[Q]] : f32
// CHECK-NOT:     ember.fault_if
func.func @div_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ember.div %a, %b {ember.fault_site = 0 : i32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// gather: an index out of range (after negative ones wrap) is a fault; the
// read is clamped either way.
// CHECK-LABEL: func.func @gather(
// CHECK:         %[[OUT:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : index
// CHECK:         %[[V:.*]] = tensor.extract
// CHECK-NEXT:    %[[R:.*]] = ember.fault_if %[[OUT]], %[[V]] {kind = 3 : i32, site = 7 : i32} : i32
// CHECK-NEXT:    linalg.yield %[[R]] : i32
// GUARD-LABEL: func.func @gather(
// GUARD:         arith.minsi
// GUARD:         %[[V:.*]] = tensor.extract
// GUARD-NEXT:    linalg.yield %[[V]] : i32
func.func @gather(%x: tensor<3xi32>, %i: tensor<2xi32>) -> tensor<2xi32> {
  %0 = ember.gather %x, %i axis = 0 {ember.fault_site = 7 : i32} : tensor<3xi32>, tensor<2xi32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// A constant divisor that cannot fault (not 0; -1 only for mod) reports
// nothing (so its loops may run on several threads); 0 or -1 still do.
// CHECK-LABEL: func.func @constant_divisors(
// CHECK:         linalg.generic
// CHECK-NOT:       ember.fault_if
// CHECK:         linalg.generic
// CHECK-NOT:       ember.fault_if
// CHECK:         linalg.generic
// CHECK:           ember.fault_if
// CHECK:         linalg.generic
// CHECK:           ember.fault_if
func.func @constant_divisors(%a: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %seven = ember.constant dense<7> : tensor<4xi64>
  %minus = ember.constant dense<-1> : tensor<4xi64>
  %zero = ember.constant dense<[1, 0, 2, 3]> : tensor<4xi64>
  %0 = ember.mod %a, %seven : tensor<4xi64>
  %1 = ember.mod %a, %minus : tensor<4xi64>
  %2 = ember.div %a, %minus : tensor<4xi64>
  %3 = ember.floordiv %a, %zero : tensor<4xi64>
  return %0, %1, %2, %3 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}
