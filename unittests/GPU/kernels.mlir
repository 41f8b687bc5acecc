// Functions compiled ahead of time by ember-lower-to-nvvm into the GPU check
// and benchmark programs (ember-gpu-check, ember-gpu-bench): each op class,
// the 8-op chain, power(x, 100) as a loop of matmuls.

// The 8-op chain of the benchmarks: alternately t * 1.0001, t + 0.5 and
// maximum(t, x), fused into one kernel.
func.func @chain8_small(%x: tensor<256x1000xf32>) -> tensor<256x1000xf32> attributes {llvm.emit_c_interface} {
  %a = ember.constant dense<1.0001> : tensor<256x1000xf32>
  %b = ember.constant dense<0.5> : tensor<256x1000xf32>
  %0 = ember.mul %x, %a : tensor<256x1000xf32>
  %1 = ember.add %0, %b : tensor<256x1000xf32>
  %2 = ember.maximum %1, %x : tensor<256x1000xf32>
  %3 = ember.mul %2, %a : tensor<256x1000xf32>
  %4 = ember.add %3, %b : tensor<256x1000xf32>
  %5 = ember.maximum %4, %x : tensor<256x1000xf32>
  %6 = ember.mul %5, %a : tensor<256x1000xf32>
  %7 = ember.add %6, %b : tensor<256x1000xf32>
  return %7 : tensor<256x1000xf32>
}

func.func @chain8_big(%x: tensor<16384x4096xf32>) -> tensor<16384x4096xf32> attributes {llvm.emit_c_interface} {
  %a = ember.constant dense<1.0001> : tensor<16384x4096xf32>
  %b = ember.constant dense<0.5> : tensor<16384x4096xf32>
  %0 = ember.mul %x, %a : tensor<16384x4096xf32>
  %1 = ember.add %0, %b : tensor<16384x4096xf32>
  %2 = ember.maximum %1, %x : tensor<16384x4096xf32>
  %3 = ember.mul %2, %a : tensor<16384x4096xf32>
  %4 = ember.add %3, %b : tensor<16384x4096xf32>
  %5 = ember.maximum %4, %x : tensor<16384x4096xf32>
  %6 = ember.mul %5, %a : tensor<16384x4096xf32>
  %7 = ember.add %6, %b : tensor<16384x4096xf32>
  return %7 : tensor<16384x4096xf32>
}

// An eager op's kernel: [10x10] + [10x10].
func.func @add10(%a: tensor<10x10xf32>, %b: tensor<10x10xf32>) -> tensor<10x10xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.add %a, %b : tensor<10x10xf32>
  return %0 : tensor<10x10xf32>
}

// Broadcasting, transcendentals, a softmax over rows (reductions inside).
func.func @softmax(%x: tensor<64x100xf32>) -> tensor<64x100xf32> attributes {llvm.emit_c_interface} {
  %m = ember.reduce_max %x axes = [1] keepdims : tensor<64x100xf32> -> tensor<64x1xf32>
  %mb = ember.broadcast_to %m : tensor<64x1xf32> -> tensor<64x100xf32>
  %d = ember.sub %x, %mb : tensor<64x100xf32>
  %e = ember.exp %d : tensor<64x100xf32>
  %s = ember.reduce_sum %e axes = [1] keepdims : tensor<64x100xf32> -> tensor<64x1xf32>
  %sb = ember.broadcast_to %s : tensor<64x1xf32> -> tensor<64x100xf32>
  %r = ember.div %e, %sb : tensor<64x100xf32>
  return %r : tensor<64x100xf32>
}

// A full reduction, a transpose and an integer op in one function.
func.func @mixed(%x: tensor<300x7xf64>, %i: tensor<300xi32>) -> (tensor<f64>, tensor<7x300xf64>, tensor<300xi32>) attributes {llvm.emit_c_interface} {
  %0 = ember.reduce_sum %x axes = [0, 1] : tensor<300x7xf64> -> tensor<f64>
  %1 = ember.transpose %x permutation = [1, 0] : tensor<300x7xf64> -> tensor<7x300xf64>
  %2 = ember.mul %i, %i : tensor<300xi32>
  %c = ember.constant dense<7> : tensor<300xi32>
  %3 = ember.floordiv %2, %c : tensor<300xi32>
  return %0, %1, %3 : tensor<f64>, tensor<7x300xf64>, tensor<300xi32>
}

func.func @matmul(%a: tensor<256x96xf32>, %b: tensor<96x200xf32>) -> tensor<256x200xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<256x96xf32>, tensor<96x200xf32> -> tensor<256x200xf32>
  return %0 : tensor<256x200xf32>
}

func.func @sgemm4096(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}

// power(x, 100): the identity multiplied by x 100 times in a loop (traced
// fori_loop): host control flow around one matmul kernel per step.
func.func @power100(%x: tensor<10x10xf32>) -> tensor<10x10xf32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %ones = ember.constant dense<1.0> : tensor<10xf32>
  %zeros = ember.constant dense<0.0> : tensor<10x10xf32>
  %e = tensor.empty() : tensor<10x10xf32>
  %id = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<10x10xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %same = arith.cmpi eq, %i, %j : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %v = arith.select %same, %one, %zero : f32
    linalg.yield %v : f32
  } -> tensor<10x10xf32>
  %r = scf.for %k = %c0 to %c100 step %c1 iter_args(%acc = %id) -> (tensor<10x10xf32>) {
    %next = ember.matmul %acc, %x : tensor<10x10xf32>, tensor<10x10xf32> -> tensor<10x10xf32>
    scf.yield %next : tensor<10x10xf32>
  }
  return %r : tensor<10x10xf32>
}
