// Calls are marked no_inline so that the compiled code, not the folder, computes.
// RUN: ember-opt %s --ember-lower-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// Integer division by zero and the most negative integer divided by -1 do
// not trap (SIGFPE) in compiled code: the divisor is 1 instead (the runtime
// is told of the fault, and the front end raises it; here nothing takes it).
// A gather index out of range reads a clamped index.

func.func private @printMemrefI32(tensor<*xi32>)

func.func @divide(%a: tensor<4xi32>, %b: tensor<4xi32>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %q = ember.div %a, %b : tensor<4xi32>
  %f = ember.floordiv %a, %b : tensor<4xi32>
  %m = ember.mod %a, %b : tensor<4xi32>
  return %q, %f, %m : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

func.func @take(%x: tensor<3xi32>, %i: tensor<3xi32>) -> tensor<3xi32> {
  %0 = ember.gather %x, %i axis = 0 : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

func.func @main() {
  %a = arith.constant dense<[7, -2147483648, -7, 9]> : tensor<4xi32>
  %b = arith.constant dense<[0, -1, 2, 0]> : tensor<4xi32>
  %q, %f, %m = func.call @divide(%a, %b) {no_inline} : (tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>)
  // CHECK: [7, -2147483648, -3, 9]
  %uq = tensor.cast %q : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%uq) : (tensor<*xi32>) -> ()
  // CHECK: [7, -2147483648, -4, 9]
  %uf = tensor.cast %f : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%uf) : (tensor<*xi32>) -> ()
  // CHECK: [0, 0, 1, 0]
  %um = tensor.cast %m : tensor<4xi32> to tensor<*xi32>
  call @printMemrefI32(%um) : (tensor<*xi32>) -> ()

  %x = arith.constant dense<[10, 20, 30]> : tensor<3xi32>
  %i = arith.constant dense<[7, -1, -9]> : tensor<3xi32>
  %g = func.call @take(%x, %i) {no_inline} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  // CHECK: [30, 30, 10]
  %ug = tensor.cast %g : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%ug) : (tensor<*xi32>) -> ()
  return
}
