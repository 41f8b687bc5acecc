// Functions compiled ahead of time by ember-lower-to-nvvm into the GPU check
// and benchmark programs (ember-gpu-check, ember-gpu-bench): each op class,
// the 8-op chain, power(x, 100) as a loop of matmuls, control flow on tensor
// values.

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
// fori_loop): one kernel of one block with the loop inside
// (ember-map-to-one-block-kernel), its temporaries in shared memory.
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

// A while loop whose condition reads a tensor (a traced while_loop): halve x
// while its sum is above 1. One kernel of one block; the sum is read by every
// thread inside it.
func.func @halve_while(%x: tensor<16xf32>) -> tensor<16xf32> attributes {llvm.emit_c_interface} {
  %r = scf.while (%v = %x) : (tensor<16xf32>) -> tensor<16xf32> {
    %s = ember.reduce_sum %v axes = [0] : tensor<16xf32> -> tensor<f32>
    %limit = ember.constant dense<1.0> : tensor<f32>
    %c = ember.compare gt, %s, %limit : tensor<f32>
    %b = tensor.extract %c[] : tensor<i1>
    scf.condition(%b) %v : tensor<16xf32>
  } do {
  ^bb0(%v: tensor<16xf32>):
    %h = ember.constant dense<0.5> : tensor<16xf32>
    %n = ember.mul %v, %h : tensor<16xf32>
    scf.yield %n : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// A cond inside a fori_loop, on integers: 10 times, x - 1 if sum(x) > 0,
// else x * 2.
func.func @cond_loop(%x: tensor<8x8xi32>) -> tensor<8x8xi32> attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %r = scf.for %k = %c0 to %c10 step %c1 iter_args(%v = %x) -> (tensor<8x8xi32>) {
    %s = ember.reduce_sum %v axes = [0, 1] : tensor<8x8xi32> -> tensor<i32>
    %zero = ember.constant dense<0> : tensor<i32>
    %c = ember.compare gt, %s, %zero : tensor<i32>
    %b = tensor.extract %c[] : tensor<i1>
    %n = scf.if %b -> (tensor<8x8xi32>) {
      %one = ember.constant dense<1> : tensor<8x8xi32>
      %d = ember.sub %v, %one : tensor<8x8xi32>
      scf.yield %d : tensor<8x8xi32>
    } else {
      %two = ember.constant dense<2> : tensor<8x8xi32>
      %m = ember.mul %v, %two : tensor<8x8xi32>
      scf.yield %m : tensor<8x8xi32>
    }
    scf.yield %n : tensor<8x8xi32>
  }
  return %r : tensor<8x8xi32>
}

// Reductions of many elements: a sum of 16M (blocks share the output,
// combined atomically), the max of each row of 4096x4096.
func.func @sum16m(%x: tensor<16777216xf32>) -> tensor<f32> attributes {llvm.emit_c_interface} {
  %0 = ember.reduce_sum %x axes = [0] : tensor<16777216xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

func.func @row_max(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.reduce_max %x axes = [1] : tensor<4096x4096xf32> -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}

// A training step of the MLP 784-256-256-10 (batch 64): softmax
// cross-entropy, gradients by ember-autodiff, SGD updates; the whole step is
// one function, as a traced value_and_grad + assign_sub step is.
func.func @mlp_loss(%w1: tensor<784x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x256xf32>, %b2: tensor<256xf32>,
                            %w3: tensor<256x10xf32>, %b3: tensor<10xf32>, %x: tensor<64x784xf32>, %y: tensor<64x10xf32>)
    -> tensor<f32> attributes {ember.differentiate = array<i64: 0, 1, 2, 3, 4, 5>} {
  %0 = ember.matmul %x, %w1 : tensor<64x784xf32>, tensor<784x256xf32> -> tensor<64x256xf32>
  %1 = ember.broadcast_to %b1 : tensor<256xf32> -> tensor<64x256xf32>
  %2 = ember.add %0, %1 : tensor<64x256xf32>
  %h1 = ember.relu %2 : tensor<64x256xf32>
  %3 = ember.matmul %h1, %w2 : tensor<64x256xf32>, tensor<256x256xf32> -> tensor<64x256xf32>
  %4 = ember.broadcast_to %b2 : tensor<256xf32> -> tensor<64x256xf32>
  %5 = ember.add %3, %4 : tensor<64x256xf32>
  %h2 = ember.relu %5 : tensor<64x256xf32>
  %6 = ember.matmul %h2, %w3 : tensor<64x256xf32>, tensor<256x10xf32> -> tensor<64x10xf32>
  %7 = ember.broadcast_to %b3 : tensor<10xf32> -> tensor<64x10xf32>
  %logits = ember.add %6, %7 : tensor<64x10xf32>
  %m = ember.reduce_max %logits axes = [1] keepdims : tensor<64x10xf32> -> tensor<64x1xf32>
  %mb = ember.broadcast_to %m : tensor<64x1xf32> -> tensor<64x10xf32>
  %z = ember.sub %logits, %mb : tensor<64x10xf32>
  %e = ember.exp %z : tensor<64x10xf32>
  %s = ember.reduce_sum %e axes = [1] keepdims : tensor<64x10xf32> -> tensor<64x1xf32>
  %ls = ember.log %s : tensor<64x1xf32>
  %lsb = ember.broadcast_to %ls : tensor<64x1xf32> -> tensor<64x10xf32>
  %logp = ember.sub %z, %lsb : tensor<64x10xf32>
  %t = ember.mul %y, %logp : tensor<64x10xf32>
  %total = ember.reduce_sum %t axes = [0, 1] : tensor<64x10xf32> -> tensor<f32>
  %scale = ember.constant dense<-0.015625> : tensor<f32>
  %loss = ember.mul %total, %scale : tensor<f32>
  return %loss : tensor<f32>
}
func.func private @mlp_loss_vjp(tensor<784x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>,
                                tensor<256x10xf32>, tensor<10xf32>, tensor<64x784xf32>, tensor<64x10xf32>, tensor<f32>)
    -> (tensor<f32>, tensor<784x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>)

func.func @mlp_step(%w1: tensor<784x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x256xf32>, %b2: tensor<256xf32>,
                    %w3: tensor<256x10xf32>, %b3: tensor<10xf32>, %x: tensor<64x784xf32>, %y: tensor<64x10xf32>)
    -> (tensor<f32>, tensor<784x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>)
    attributes {llvm.emit_c_interface} {
  %one = ember.constant dense<1.0> : tensor<f32>
  %r:7 = call @mlp_loss_vjp(%w1, %b1, %w2, %b2, %w3, %b3, %x, %y, %one)
      : (tensor<784x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>, tensor<64x784xf32>, tensor<64x10xf32>, tensor<f32>)
      -> (tensor<f32>, tensor<784x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>)
  %lr1 = ember.constant dense<0.1> : tensor<784x256xf32>
  %lr2 = ember.constant dense<0.1> : tensor<256xf32>
  %lr3 = ember.constant dense<0.1> : tensor<256x256xf32>
  %lr4 = ember.constant dense<0.1> : tensor<256x10xf32>
  %lr5 = ember.constant dense<0.1> : tensor<10xf32>
  %u1 = ember.mul %r#1, %lr1 : tensor<784x256xf32>
  %n1 = ember.sub %w1, %u1 : tensor<784x256xf32>
  %u2 = ember.mul %r#2, %lr2 : tensor<256xf32>
  %n2 = ember.sub %b1, %u2 : tensor<256xf32>
  %u3 = ember.mul %r#3, %lr3 : tensor<256x256xf32>
  %n3 = ember.sub %w2, %u3 : tensor<256x256xf32>
  %u4 = ember.mul %r#4, %lr2 : tensor<256xf32>
  %n4 = ember.sub %b2, %u4 : tensor<256xf32>
  %u5 = ember.mul %r#5, %lr4 : tensor<256x10xf32>
  %n5 = ember.sub %w3, %u5 : tensor<256x10xf32>
  %u6 = ember.mul %r#6, %lr5 : tensor<10xf32>
  %n6 = ember.sub %b3, %u6 : tensor<10xf32>
  return %r#0, %n1, %n2, %n3, %n4, %n5, %n6 : tensor<f32>, tensor<784x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>
}

// The 128 x 128 tiles of large matmuls, with partial tiles on every edge.
func.func @matmul_large_edges(%a: tensor<1030x700xf32>, %b: tensor<700x1100xf32>) -> tensor<1030x1100xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<1030x700xf32>, tensor<700x1100xf32> -> tensor<1030x1100xf32>
  return %0 : tensor<1030x1100xf32>
}

// 16-bit matmuls on tensor cores (mma.sync m16n8k16, fragments through
// ldmatrix, slices staged by cp.async): the small warp grid with partial
// tiles on every edge (200 rows, 136 columns, 72 deep: a partial slice);
// both operands transposed (fused into the matmul: ldmatrix's other form);
// the large grid with partial tiles and B transposed.
func.func @matmul_bf16_edges(%a: tensor<200x72xbf16>, %b: tensor<72x136xbf16>) -> tensor<200x136xbf16> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<200x72xbf16>, tensor<72x136xbf16> -> tensor<200x136xbf16>
  return %0 : tensor<200x136xbf16>
}

func.func @matmul_f16_transposed(%a: tensor<72x200xf16>, %b: tensor<136x72xf16>) -> tensor<200x136xf16> attributes {llvm.emit_c_interface} {
  %at = ember.transpose %a permutation = [1, 0] : tensor<72x200xf16> -> tensor<200x72xf16>
  %bt = ember.transpose %b permutation = [1, 0] : tensor<136x72xf16> -> tensor<72x136xf16>
  %0 = ember.matmul %at, %bt : tensor<200x72xf16>, tensor<72x136xf16> -> tensor<200x136xf16>
  return %0 : tensor<200x136xf16>
}

func.func @matmul_bf16_large_edges(%a: tensor<1030x264xbf16>, %b: tensor<1096x264xbf16>) -> tensor<1030x1096xbf16> attributes {llvm.emit_c_interface} {
  %bt = ember.transpose %b permutation = [1, 0] : tensor<1096x264xbf16> -> tensor<264x1096xbf16>
  %0 = ember.matmul %a, %bt : tensor<1030x264xbf16>, tensor<264x1096xbf16> -> tensor<1030x1096xbf16>
  return %0 : tensor<1030x1096xbf16>
}

// The figures' 16-bit GEMMs (bench/gpu/gpu_bench.cpp, beside cuBLAS).
func.func @hgemm8192_bf16(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
  return %0 : tensor<8192x8192xbf16>
}

func.func @hgemm8192_f16(%a: tensor<8192x8192xf16>, %b: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> attributes {llvm.emit_c_interface} {
  %0 = ember.matmul %a, %b : tensor<8192x8192xf16>, tensor<8192x8192xf16> -> tensor<8192x8192xf16>
  return %0 : tensor<8192x8192xf16>
}
