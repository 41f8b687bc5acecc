// 16-bit matmuls on tensor cores (ember-map-to-gpu-kernels{tensor-cores}):
// the nest that linalg.matmul of bfloat16 or float16 operands into float32
// becomes (each operand widened as it is read) is a launch of warps doing
// mma.sync m16n8k16, their fragments read by ldmatrix from slices that
// cp.async copies stages - 1 ahead into dynamic shared memory; without
// tensor cores, or for rows that 16-byte copies cannot cover, it is not.
// RUN: ember-opt %s "--ember-map-to-gpu-kernels=tensor-cores=true" --split-input-file | FileCheck %s
// RUN: ember-opt %s --ember-map-to-gpu-kernels --split-input-file | FileCheck %s --check-prefix=NOTC

// The small warp grid (2 x 2 warps, 64 x 64 of C a block, 128 threads, 3
// stages: 3 x (64 x 40 + 32 x 72) bfloat16 = 29184 bytes) over 2 x 2 tiles,
// numbered in groups of rows; partial tiles along M (100 rows) and the
// reduction (40 deep). Per slice: wait for it (one group left in flight),
// a barrier, the slice two ahead copied into the buffer just freed, then
// two steps of ldmatrix and mma.
// CHECK-LABEL: func.func @bf16(
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c4{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}}) dynamic_shared_memory_size %c29184_i32
// CHECK:           %[[SHARED:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[AS:.*]] = memref.view %[[SHARED]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x64x40xbf16, #gpu.address_space<workgroup>>
// CHECK:           %[[BS:.*]] = memref.view %[[SHARED]][%c15360{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x32x72xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_copy %{{.*}}, %[[AS]][%c0{{.*}}], 8, %{{.*}} {bypassL1} : memref<100x40xbf16> to memref<3x64x40xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_copy %{{.*}}, %[[BS]][%c0{{.*}}], 8, %{{.*}} {bypassL1} : memref<40x128xbf16> to memref<3x32x72xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_create_group
// CHECK:           nvgpu.device_async_create_group
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>,
// CHECK:             nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT:        gpu.barrier
// CHECK:             nvgpu.device_async_create_group
// CHECK:             nvgpu.ldmatrix %[[AS]]{{.*}} {numTiles = 4 : i32, transpose = false} : memref<3x64x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:             nvgpu.ldmatrix %[[BS]]{{.*}} {numTiles = 4 : i32, transpose = true} : memref<3x32x72xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:             vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK:             nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT:         gpu.barrier
// CHECK:             scf.yield
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:           scf.if
// CHECK:             memref.load %{{.*}} : memref<100x128xf32>
// CHECK:             arith.addf
// CHECK:             memref.store %{{.*}} : memref<100x128xf32>
// Without tensor cores the tiles of the CUDA cores take it, each element
// widened as it is staged.
// NOTC-LABEL: func.func @bf16(
// NOTC-NOT:     nvvm.mma.sync
// NOTC-NOT:     nvgpu.
// NOTC:         arith.extf %{{.*}} : bf16 to f32
// NOTC:         vector.fma
// NOTC:         return
func.func @bf16(%a: memref<100x40xbf16>, %b: memref<40x128xbf16>, %c: memref<100x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c100 = arith.constant 100 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c100, %c128) step (%c1, %c1) {
    scf.for %k = %c0 to %c40 step %c1 {
      %x = memref.load %a[%i, %k] : memref<100x40xbf16>
      %y = memref.load %b[%k, %j] : memref<40x128xbf16>
      %acc = memref.load %c[%i, %j] : memref<100x128xf32>
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %p = arith.mulf %xw, %yw : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<100x128xf32>
    }
    scf.reduce
  }
  return
}

// -----

// float16, both operands transposed (A read as A[k, i], B as B[j, k]): the
// tiles are staged as stored (A's rows along the reduction, B's along N)
// and ldmatrix transposes A's fragments, not B's; float16 pairs go to
// mma.sync as vector<2xf16>. The large warp grid (2 x 2 warps of 4 x 8
// tiles: 128 x 128 of C a block, 128 threads, 4 stages: 75776 bytes, more
// than static shared memory's 48 KiB).
// CHECK-LABEL: func.func @f16_transposed(
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c64{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}}) dynamic_shared_memory_size %c75776_i32
// CHECK:           %[[AS:.*]] = memref.view {{.*}} to memref<4x32x136xf16, #gpu.address_space<workgroup>>
// CHECK:           %[[BS:.*]] = memref.view {{.*}} to memref<4x128x40xf16, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.ldmatrix %[[AS]]{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK:             nvgpu.ldmatrix %[[BS]]{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:             nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT:       scf.if
// CHECK:         return
func.func @f16_transposed(%a: memref<64x1024xf16>, %b: memref<1024x64xf16>, %c: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1024, %c1024) step (%c1, %c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %a[%k, %i] : memref<64x1024xf16>
      %y = memref.load %b[%j, %k] : memref<1024x64xf16>
      %acc = memref.load %c[%i, %j] : memref<1024x1024xf32>
      %xw = arith.extf %x : f16 to f32
      %yw = arith.extf %y : f16 to f32
      %p = arith.mulf %xw, %yw : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<1024x1024xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Rows of 36 bfloat16 (72 bytes) cannot be copied 16 bytes at a time: no
// tensor cores, the CUDA cores' tiles (elements widened as they are staged).
// CHECK-LABEL: func.func @unaligned_rows(
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         arith.extf %{{.*}} : bf16 to f32
// CHECK:         vector.fma
// CHECK:         return
func.func @unaligned_rows(%a: memref<64x36xbf16>, %b: memref<36x64xbf16>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c36 = arith.constant 36 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    scf.for %k = %c0 to %c36 step %c1 {
      %x = memref.load %a[%i, %k] : memref<64x36xbf16>
      %y = memref.load %b[%k, %j] : memref<36x64xbf16>
      %acc = memref.load %c[%i, %j] : memref<64x64xf32>
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %p = arith.mulf %xw, %yw : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<64x64xf32>
    }
    scf.reduce
  }
  return
}

// -----

// float32 operands: tensor cores only with tf32 (TF32F32 below; the others
// tile them on the CUDA cores: vector.fma). Slices 16 deep; A's fragments
// through ldmatrix (4 words a row), B's ([k][n]) a word per lane from rows
// padded by 32 bytes; each word rounded to TF32 (rna); mma.sync m16n8k8.
// RUN: ember-opt %s "--ember-map-to-gpu-kernels=tensor-cores=true tf32=true" --split-input-file | FileCheck %s --check-prefix=TF32F32
// CHECK-LABEL: func.func @f32(
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         vector.fma
// TF32F32-LABEL: func.func @f32(
// TF32F32:         %[[AS:.*]] = memref.view {{.*}} to memref<3x64x20xf32, #gpu.address_space<workgroup>>
// TF32F32:         %[[BS:.*]] = memref.view {{.*}} to memref<3x16x72xf32, #gpu.address_space<workgroup>>
// TF32F32:           nvgpu.device_async_copy %{{.*}}, %[[AS]][%c0{{.*}}], 4, %{{.*}} {bypassL1}
// TF32F32:           scf.for
// TF32F32:             nvgpu.ldmatrix %[[AS]]{{.*}} {numTiles = 4 : i32, transpose = false} : memref<3x64x20xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// TF32F32:             nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// TF32F32:             memref.load %[[BS]]
// TF32F32:             nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @f32(%a: memref<128x64xf32>, %b: memref<64x128xf32>, %c: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c128) step (%c1, %c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %a[%i, %k] : memref<128x64xf32>
      %y = memref.load %b[%k, %j] : memref<64x128xf32>
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

// tensor-core-shape forces the blocks (for measuring): 2 x 4 warps of 4 x 8
// tiles (128 x 256 of C), 3 stages of 128 bytes (64 bfloat16) of the
// reduction: 3 x (128 x 72 + 64 x 264) x 2 bytes.
// RUN: ember-opt %s "--ember-map-to-gpu-kernels=tensor-cores=true tensor-core-shape=2x4,4x8,3,128" --split-input-file | FileCheck %s --check-prefix=FORCED
// RUN: not ember-opt %s "--ember-map-to-gpu-kernels=tensor-cores=true tensor-core-shape=2x2,4x7,3,64" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADSHAPE
// FORCED-LABEL: func.func @forced(
// FORCED:         gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}}) dynamic_shared_memory_size %c156672_i32
// FORCED:           memref.view {{.*}} to memref<3x128x72xbf16, #gpu.address_space<workgroup>>
// FORCED:           memref.view {{.*}} to memref<3x64x264xbf16, #gpu.address_space<workgroup>>
// BADSHAPE: error: ember-map-to-gpu-kernels: tensor-core-shape '2x2,4x7,3,64' is not WMxWN,MTxNT,STAGES,SLICEBYTES with an even NT
// CHECK-LABEL: func.func @forced(
func.func @forced(%a: memref<1024x1024xbf16>, %b: memref<1024x1024xbf16>, %c: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1024, %c1024) step (%c1, %c1) {
    scf.for %k = %c0 to %c1024 step %c1 {
      %x = memref.load %a[%i, %k] : memref<1024x1024xbf16>
      %y = memref.load %b[%k, %j] : memref<1024x1024xbf16>
      %acc = memref.load %c[%i, %j] : memref<1024x1024xf32>
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %p = arith.mulf %xw, %yw : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<1024x1024xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A `?` M (a batch): the small grid, the blocks counted at the call
// (ceil(M / 64) x 2 tiles of N), every row bounded by M.
// CHECK-LABEL: func.func @dynamic_rows(
// CHECK:         %[[M:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x64xbf16>
// CHECK:         %[[TILES:.*]] = arith.ceildivui %[[M]], %c64{{.*}} : index
// CHECK:         %[[BLOCKS:.*]] = arith.muli %[[TILES]], %c2{{.*}} : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[BLOCKS]], {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}}) dynamic_shared_memory_size
// CHECK:           arith.cmpi ult, %{{.*}}, %[[M]] : index
// CHECK:           nvvm.mma.sync
// CHECK:           scf.if
// CHECK:             memref.store %{{.*}} : memref<?x128xf32>
func.func @dynamic_rows(%a: memref<?x64xbf16>, %b: memref<64x128xbf16>, %c: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %m = memref.dim %a, %c0 : memref<?x64xbf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %c128) step (%c1, %c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %a[%i, %k] : memref<?x64xbf16>
      %y = memref.load %b[%k, %j] : memref<64x128xbf16>
      %acc = memref.load %c[%i, %j] : memref<?x128xf32>
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %p = arith.mulf %xw, %yw : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<?x128xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A `?` M beside an N of 1024: both grids, chosen at the call (M at least
// 1024: the large one, 128 x 128 a block of 4 warps in 4 stages; else the
// small one); without tensor cores, both sizes of tiles likewise.
// CHECK-LABEL: func.func @dynamic_rows_wide(
// CHECK:         %[[M:.*]] = memref.dim %{{.*}}, %c0{{.*}} : memref<?x64xbf16>
// CHECK:         %[[M_LARGE:.*]] = arith.cmpi uge, %[[M]], %c1024{{.*}} : index
// CHECK:         scf.if %{{.*}} {
// CHECK:           %[[BIG:.*]] = arith.ceildivui %[[M]], %c128{{.*}} : index
// CHECK:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}}) dynamic_shared_memory_size
// CHECK:             nvvm.mma.sync
// CHECK:         } else {
// CHECK:           %[[SMALL:.*]] = arith.ceildivui %[[M]], %c64{{.*}} : index
// CHECK:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}}) dynamic_shared_memory_size
// CHECK:             nvvm.mma.sync
// CHECK:         }
// NOTC-LABEL: func.func @dynamic_rows_wide(
// NOTC:         scf.if %{{.*}} {
// NOTC:           gpu.launch {{.*}} workgroup(%{{.*}} : memref<8x132xf32, #gpu.address_space<workgroup>>
// NOTC:         } else {
// NOTC:           gpu.launch {{.*}} workgroup(%{{.*}} : memref<16x68xf32, #gpu.address_space<workgroup>>
// NOTC:         }
func.func @dynamic_rows_wide(%a: memref<?x64xbf16>, %b: memref<64x1024xbf16>, %c: memref<?x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %m = memref.dim %a, %c0 : memref<?x64xbf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %c1024) step (%c1, %c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %a[%i, %k] : memref<?x64xbf16>
      %y = memref.load %b[%k, %j] : memref<64x1024xbf16>
      %acc = memref.load %c[%i, %j] : memref<?x1024xf32>
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %p = arith.mulf %xw, %yw : f32
      %s = arith.addf %acc, %p : f32
      memref.store %s, %c[%i, %j] : memref<?x1024xf32>
    }
    scf.reduce
  }
  return
}
