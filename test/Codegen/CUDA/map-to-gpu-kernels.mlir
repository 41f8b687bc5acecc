// RUN: ember-opt %s --ember-map-to-gpu-kernels --split-input-file --verify-diagnostics | FileCheck %s
// RUN: ember-opt %s "--ember-map-to-gpu-kernels=vector-bytes=0" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=SCALAR

// A 2-D elementwise nest: linearized, 16-byte vectors along rows, tiled into
// blocks of 256 threads (block_x) over threads (thread_x), tail guarded.
// CHECK-LABEL: func.func @elementwise(
// CHECK:         %[[THREADS:.*]] = arith.muli %{{.*}}, %c256 : index
// CHECK:         scf.parallel (%[[B:.*]]) =
// CHECK:           scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[THREADS]])
// CHECK:             scf.if
// CHECK:               %[[V:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<64x1000xf32>, vector<4xf32>
// CHECK:               %[[S:.*]] = arith.addf %[[V]], %{{.*}} : vector<4xf32>
// CHECK:               vector.store %[[S]], %{{.*}} {alignment = 16 : i64} : memref<64x1000xf32>, vector<4xf32>
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x
// SCALAR-LABEL: func.func @elementwise(
// SCALAR-NOT:     vector.load
// SCALAR:         memref.load %{{.*}} : memref<64x1000xf32>
func.func @elementwise(%a: memref<64x1000xf32>, %b: memref<64x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c1000) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<64x1000xf32>
    %y = arith.addf %x, %one : f32
    memref.store %y, %b[%i, %j] : memref<64x1000xf32>
    scf.reduce
  }
  return
}

// -----

// A transposed read stays scalar (not along rows); a small loop gets one
// block of whole warps (100 elements: 128 threads).
// CHECK-LABEL: func.func @transpose(
// CHECK-NOT:     vector.load
// CHECK:         %[[THREADS:.*]] = arith.muli %{{.*}}, %c128 : index
// CHECK:         scf.parallel
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[THREADS]])
func.func @transpose(%a: memref<10x10xf32>, %b: memref<10x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c10) step (%c1, %c1) {
    %x = memref.load %a[%j, %i] : memref<10x10xf32>
    memref.store %x, %b[%i, %j] : memref<10x10xf32>
    scf.reduce
  }
  return
}

// -----

// A reduction to a scalar: its initial store is a kernel of one thread, its
// loop one block whose 32 threads fold strided shares (16 bytes a read,
// folded by vector.reduction) and combine them with gpu.all_reduce; thread 0
// adds the total to the initial value. The
// ownership flags of buffer deallocation stay on the host's stack, and their
// loads stay in host code.
// CHECK-LABEL: func.func @reduce(
// CHECK:         scf.parallel
// CHECK:           memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}})
// CHECK:           %[[PARTIAL:.*]] = scf.for %{{.*}} = %{{.*}} to %c8{{.*}} step %c32{{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (f32)
// CHECK:             %[[V:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<32xf32>, vector<4xf32>
// CHECK:             %[[R:.*]] = vector.reduction <add>, %[[V]] : vector<4xf32> into f32
// CHECK:             %[[SUM:.*]] = arith.addf %[[P]], %[[R]] : f32
// CHECK:             scf.yield %[[SUM]]
// CHECK:           %[[TOTAL:.*]] = gpu.all_reduce add %[[PARTIAL]] uniform
// CHECK:           scf.if
// CHECK:             %[[OLD:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK:             %[[NEW:.*]] = arith.addf %[[TOTAL]], %[[OLD]] : f32
// CHECK:             memref.store %[[NEW]], %{{.*}}[] : memref<f32>
// CHECK:         %[[FLAGS:.*]] = memref.alloca() : memref<2xi1>
// CHECK:         memref.store %{{.*}}, %[[FLAGS]]
// CHECK:         memref.load %[[FLAGS]]
// CHECK-NOT:     memref.dealloc %[[FLAGS]]
// CHECK:         return
func.func @reduce(%a: memref<32xf32>, %out: memref<f32>) -> i1 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  memref.store %zero, %out[] : memref<f32>
  scf.for %i = %c0 to %c32 step %c1 {
    %x = memref.load %a[%i] : memref<32xf32>
    %s = memref.load %out[] : memref<f32>
    %y = arith.addf %x, %s : f32
    memref.store %y, %out[] : memref<f32>
  }
  %flags = memref.alloc() : memref<2xi1>
  memref.store %true, %flags[%c0] : memref<2xi1>
  %f = memref.load %flags[%c0] : memref<2xi1>
  memref.dealloc %flags : memref<2xi1>
  return %f : i1
}

// -----

// A filter gradient's shape: 64 outputs (c, f), each a sum over the batch and
// the width, whose loads run along the outputs, not the reduced dimensions.
// A thread per output and share: consecutive threads take consecutive
// outputs (coalesced loads), the 8 batch rows are cut into shares along
// block_y, each folded sequentially (the width loop whole) and added to the
// output atomically.
// CHECK-LABEL: func.func @filter_gradient(
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c8{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c64{{.*}}, {{.*}})
// CHECK-NOT:       gpu.all_reduce
// CHECK:           scf.if
// CHECK:             scf.for
// CHECK:               scf.for %{{.*}} = %c0{{.*}} to %c50
// CHECK:                 arith.mulf
// CHECK:                 arith.addf
// CHECK:             memref.atomic_rmw addf
func.func @filter_gradient(%x: memref<8x50x4xf32>, %dy: memref<8x50x16xf32>, %dw: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c50 = arith.constant 50 : index
  scf.parallel (%c, %f) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
    scf.for %n = %c0 to %c8 step %c1 {
      scf.for %w = %c0 to %c50 step %c1 {
        %a = memref.load %x[%n, %w, %c] : memref<8x50x4xf32>
        %g = memref.load %dy[%n, %w, %f] : memref<8x50x16xf32>
        %p = arith.mulf %a, %g : f32
        %acc = memref.load %dw[%c, %f] : memref<4x16xf32>
        %y = arith.addf %acc, %p : f32
        memref.store %y, %dw[%c, %f] : memref<4x16xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// Outputs enough to fill the GPU (a convolution's 2.4M, each a short sum):
// a thread per output, the sum in a register, the output stored once.
// CHECK-LABEL: func.func @many_outputs(
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1172{{.*}}, {{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}})
// CHECK-NOT:       gpu.all_reduce
// CHECK:             scf.for %{{.*}} = %c0{{.*}} to %c9{{.*}} iter_args
// CHECK-NOT:           memref.store
// CHECK:               arith.addf
// CHECK-NOT:         memref.atomic_rmw
// CHECK:             memref.store
func.func @many_outputs(%x: memref<300000x9xf32>, %y: memref<300000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %n = arith.constant 300000 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %k = %c0 to %c9 step %c1 {
      %a = memref.load %x[%i, %k] : memref<300000x9xf32>
      %acc = memref.load %y[%i] : memref<300000xf32>
      %s = arith.addf %acc, %a : f32
      memref.store %s, %y[%i] : memref<300000xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A row reduction (max over rows): a block per row. A reduction over fewer
// than 32 elements is a thread per output, which folds them in a register
// and stores the output once.
// CHECK-LABEL: func.func @row_max(
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c64{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}})
// CHECK:           gpu.all_reduce maximumf
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c64{{.*}}, {{.*}})
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %c0_i32) -> (i32)
// CHECK:               scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} iter_args
// CHECK-NOT:             memref.store
// CHECK:                 arith.addi
// CHECK:             memref.store
func.func @row_max(%a: memref<64x100xf32>, %m: memref<64xf32>, %b: memref<64x8xi32>, %s: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %k = %c0 to %c100 step %c1 {
      %x = memref.load %a[%i, %k] : memref<64x100xf32>
      %acc = memref.load %m[%i] : memref<64xf32>
      %y = arith.maximumf %acc, %x : f32
      memref.store %y, %m[%i] : memref<64xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %x = memref.load %b[%i, %k] : memref<64x8xi32>
      %acc = memref.load %s[%i] : memref<64xi32>
      %y = arith.addi %acc, %x : i32
      memref.store %y, %s[%i] : memref<64xi32>
    }
    scf.reduce
  }
  return
}

// -----

// Device memory read into host code through a strided view is refused,
// naming the op and the type (plain buffers are copied: see below).
func.func @host_read(%a: memref<4xi1, strided<[2]>>) -> i1 {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'memref.load' reads device memory of type 'memref<4xi1, strided<[2]>>' into host code: not supported on the GPU yet}}
  %x = memref.load %a[%c0] : memref<4xi1, strided<[2]>>
  return %x : i1
}

// -----

// Copies (a result that is an argument) become copy kernels: 16 bytes per
// thread, 32 threads for 64 f64.
// CHECK-LABEL: func.func @copy(
// CHECK-NOT:     memref.copy
// CHECK:         arith.muli %{{.*}}, %c32 : index
// CHECK:         %[[V:.*]] = vector.load %{{.*}} : memref<8x8xf64>, vector<2xf64>
// CHECK:         vector.store %[[V]]
// CHECK:         {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         return
func.func @copy(%a: memref<8x8xf64>, %b: memref<8x8xf64>) {
  memref.copy %a, %b : memref<8x8xf64> to memref<8x8xf64>
  return
}

// -----

// A matmul: blocks of 64 x 64 tiles of C; A's and B's tiles staged in shared
// memory (A's transposed, rows padded by 16 bytes), 4 x 4 accumulators a thread from vector reads of
// the tiles; whole tiles are read from global memory 16 bytes at a time;
// few tiles (2 x 2) with a long reduction split it across blocks (grid z)
// that add their tiles atomically.
// CHECK-LABEL: func.func @matmul(
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{.*}}, {{.*}} = %c2{{.*}}, {{.*}} = %c[[SPLITS:[0-9]+]]{{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}}) workgroup(%[[AS:.*]] : memref<16x68xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.for
// CHECK:             vector.load %{{.*}} {alignment = 16 : i64} : memref<128x1024xf32>, vector<4xf32>
// CHECK:             memref.store %{{.*}}, %[[AS]]
// CHECK:             %[[BROW:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<1024x128xf32>, vector<4xf32>
// CHECK:             vector.store %[[BROW]], %[[BS]]
// CHECK:             gpu.barrier
// CHECK:             vector.load %[[AS]]{{.*}} {alignment = 16 : i64} : memref<16x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:             vector.fma {{.*}} : vector<4xf32>
// CHECK:             gpu.barrier
// CHECK:           memref.atomic_rmw addf
func.func @matmul(%a: memref<128x1024xf32>, %b: memref<1024x128xf32>, %c: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c128) step (%c1, %c1) {
    scf.for %k = %c0 to %c1024 step %c1 {
      %x = memref.load %a[%i, %k] : memref<128x1024xf32>
      %y = memref.load %b[%k, %j] : memref<1024x128xf32>
      %acc = memref.load %c[%i, %j] : memref<128x128xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<128x128xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A weight gradient over a `?` batch, x^T @ dz with K `?` (and a `?` N):
// tiled too (it was a thread per element of C), the reduction split among
// blocks as counted at the call (few tiles of C: 264 / tiles, at most a
// quarter of K's slices), their partial tiles added atomically; reads of A,
// B and C bounded by the sizes.
// CHECK-LABEL: func.func @matmul_dynamic_depth(
// CHECK-DAG:     %[[N:.*]] = memref.dim %{{.*}}, %c1{{.*}} : memref<?x?xf32>
// CHECK-DAG:     %[[K:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x64xf32>
// CHECK-DAG:     %[[COLUMN_TILES:.*]] = arith.ceildivui %[[N]], %c64{{.*}} : index
// CHECK-DAG:     %[[SLICES:.*]] = arith.ceildivui %[[K]], %c16{{.*}} : index
// CHECK:         %[[PER:.*]] = arith.ceildivui %[[SLICES]], %{{.*}} : index
// CHECK:         %[[PER_SPLIT:.*]] = arith.maxui %[[PER]], %c1{{.*}} : index
// CHECK:         %[[COUNT:.*]] = arith.ceildivui %[[SLICES]], %[[PER_SPLIT]] : index
// CHECK:         %[[SPLITS:.*]] = arith.maxui %[[COUNT]], %c1{{.*}} : index
// CHECK:         gpu.launch blocks({{.*}}, {{.*}}, %[[Z:.*]]) in ({{.*}} = %[[COLUMN_TILES]], {{.*}} = %c1{{.*}}, {{.*}} = %[[SPLITS]]) threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}})
// CHECK:           %[[FIRST:.*]] = arith.muli %[[Z]], %[[PER_SPLIT]] : index
// CHECK:           arith.minui %{{.*}}, %[[SLICES]] : index
// CHECK:           arith.cmpi ult, %{{.*}}, %[[K]] : index
// CHECK:           vector.fma
// CHECK:           arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK:           memref.atomic_rmw addf
// CHECK:         return
func.func @matmul_dynamic_depth(%x: memref<?x64xf32>, %dz: memref<?x?xf32>, %dw: memref<64x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %k = memref.dim %x, %c0 : memref<?x64xf32>
  %n = memref.dim %dz, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %n) step (%c1, %c1) {
    scf.for %r = %c0 to %k step %c1 {
      %a = memref.load %x[%r, %i] : memref<?x64xf32>
      %b = memref.load %dz[%r, %j] : memref<?x?xf32>
      %acc = memref.load %dw[%i, %j] : memref<64x?xf32>
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %dw[%i, %j] : memref<64x?xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A `?` M beside an N of at least 1024: two kernels, the sizes at the call
// choosing between them (M at least 1024: 128 x 128 tiles of 8 x 8 a
// thread, else 64 x 64 of 4 x 4), so that a large batch runs as fast as
// a static one.
// CHECK-LABEL: func.func @matmul_dynamic_rows_wide(
// CHECK:         %[[M:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x256xf32>
// CHECK:         %[[M_LARGE:.*]] = arith.cmpi uge, %[[M]], %c1024{{.*}} : index
// CHECK:         %[[LARGE:.*]] = arith.andi %[[M_LARGE]], %{{.*}} : i1
// CHECK:         scf.if %[[LARGE]] {
// CHECK:           %[[BIG_TILES:.*]] = arith.ceildivui %[[M]], %c128{{.*}} : index
// CHECK:           gpu.launch blocks({{.*}}) in ({{.*}} = %[[BIG_TILES]], {{.*}} = %c8{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}})
// CHECK:         } else {
// CHECK:           %[[SMALL_TILES:.*]] = arith.ceildivui %[[M]], %c64{{.*}} : index
// CHECK:           gpu.launch blocks({{.*}}) in ({{.*}} = %[[SMALL_TILES]], {{.*}} = %c16{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}})
// CHECK:         }
// CHECK:         return
func.func @matmul_dynamic_rows_wide(%a: memref<?x256xf32>, %b: memref<256x1024xf32>, %c: memref<?x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c256 = arith.constant 256 : index
  %m = memref.dim %a, %c0 : memref<?x256xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %c1024) step (%c1, %c1) {
    scf.for %k = %c0 to %c256 step %c1 {
      %x = memref.load %a[%i, %k] : memref<?x256xf32>
      %y = memref.load %b[%k, %j] : memref<256x1024xf32>
      %acc = memref.load %c[%i, %j] : memref<?x1024xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<?x1024xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A matmul with a `?` M (a batch): 64 x 64 tiles, their rows counted at the
// call, every read and write of A's and C's rows bounded by M; no split of
// the reduction (the grid's size is unknown here).
// CHECK-LABEL: func.func @matmul_dynamic_rows(
// CHECK:         %[[M:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x256xf32>
// CHECK:         %[[TILES:.*]] = arith.ceildivui %[[M]], %c64{{.*}} : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[TILES]], {{.*}} = %c2{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}})
// CHECK:           arith.cmpi ult, %{{.*}}, %[[M]] : index
// CHECK:           vector.fma
// CHECK:           scf.if
// CHECK-NOT:       memref.atomic_rmw
// CHECK:         return
func.func @matmul_dynamic_rows(%a: memref<?x256xf32>, %b: memref<256x128xf32>, %c: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %m = memref.dim %a, %c0 : memref<?x256xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %c128) step (%c1, %c1) {
    scf.for %k = %c0 to %c256 step %c1 {
      %x = memref.load %a[%i, %k] : memref<?x256xf32>
      %y = memref.load %b[%k, %j] : memref<256x128xf32>
      %acc = memref.load %c[%i, %j] : memref<?x128xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<?x128xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A 1-D elementwise loop: vectorized (step 4), then normalized to unit steps
// before tiling, so that the tail guard counts vectors (16 of them), not
// elements: once it compared 4 * (element offset) with 64 and skipped 3/4.
// CHECK-LABEL: func.func @elementwise_1d(
// CHECK:         %[[N:.*]] = arith.muli %{{.*}}, %c16 : index
// CHECK:         scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[N]])
// CHECK:           scf.parallel (%[[T:.*]]) =
// CHECK:             %[[I:.*]] = arith.addi %[[T]], %[[B]] : index
// CHECK:             arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK:             scf.if
// CHECK:               %[[E:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK:               vector.load %{{.*}}[%[[E]]] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
func.func @elementwise_1d(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %x = memref.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %b[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// Host code that needs a value in device memory (a branch's condition):
// the element is copied to a host buffer on the stack, then loaded there.
// CHECK-LABEL: func.func @branch_on_device_value(
// CHECK:         %[[SRC:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<4xi8> -> index
// CHECK:         %[[AT:.*]] = arith.addi %[[SRC]], %{{.*}} : index
// CHECK:         %[[HOST:.*]] = memref.alloca() : memref<i8>
// CHECK:         %[[DST:.*]] = memref.extract_aligned_pointer_as_index %[[HOST]]
// CHECK:         call @emberrt_cuda_download(%[[DST]], %[[AT]], %c1{{.*}})
// CHECK:         %[[V:.*]] = memref.load %[[HOST]][] : memref<i8>
// CHECK:         arith.cmpi ne, %[[V]]
func.func @branch_on_device_value(%flags: memref<4xi8>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i8
  %v = memref.load %flags[%c2] : memref<4xi8>
  %set = arith.cmpi ne, %v, %zero : i8
  scf.if %set {
    %one = arith.constant 1.0 : f32
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      memref.store %one, %out[%i] : memref<4xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A constant tensor that is not a splat: uploaded from its host global after
// the global's address is taken (the upload reads it).
memref.global "private" constant @weights : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
// CHECK-LABEL: func.func @constant_upload(
// CHECK:         %[[G:.*]] = memref.get_global @weights
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[TO:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK:         %[[FROM:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
// CHECK:         call @emberrt_cuda_upload(%[[TO]], %[[FROM]], %c16{{.*}})
func.func @constant_upload(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %w = memref.get_global @weights : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %x = memref.load %w[%i] : memref<4xf32>
    memref.store %x, %out[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// A launch already there (ember-map-to-one-block-kernel) is left as it is:
// its stores stay in it, and the buffer it uses is device memory (not moved
// to the host's stack).
// CHECK-LABEL: func.func @existing_launch(
// CHECK:         %[[BUFFER:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         gpu.launch
// CHECK-NEXT:      memref.store %{{.*}}, %[[BUFFER]]
// CHECK-NEXT:      memref.load %[[BUFFER]]
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      gpu.terminator
// CHECK:         memref.dealloc %[[BUFFER]]
func.func @existing_launch(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %buffer = memref.alloc() : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %buffer[%c0] : memref<4xf32>
    %v = memref.load %buffer[%c0] : memref<4xf32>
    memref.store %v, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  memref.dealloc %buffer : memref<4xf32>
  return
}
