//===- Passes.td - CUDA code generation passes ------------*- tablegen -*-===//
#ifndef EMBER_CODEGEN_CUDA_PASSES_TD
#define EMBER_CODEGEN_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def MapToGpuKernelsPass : Pass<"ember-map-to-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "Map the loop nests of host functions onto GPU blocks and threads";
  let description = [{
    Runs on bufferized host functions whose linalg ops have become loops
    (`convert-linalg-to-parallel-loops`), before `convert-parallel-loops-to-gpu`:
    - Every outermost `scf.parallel` is collapsed to one dimension (the
      row-major linear index), tiled by `block-size` and mapped: tiles to
      `blockIdx.x`, the elements of a tile to `threadIdx.x`. Neighbouring
      threads then touch neighbouring elements of every operand with the
      result's layout, so loads and stores are coalesced whatever the rank
      (upstream's mapper gives dimension 0, the strided one, to threadIdx.x).
      Tiles past the end are guarded by an `scf.if`, so the block size is a
      constant.
    - Reductions (a parallel loop over outputs around loops that fold
      elements into each output with one associative op, or such loops
      alone) with at least 32 elements to reduce get a block per output:
      threads fold strided shares privately, `gpu.all_reduce` (warp
      shuffles, shared memory) combines them, thread 0 writes.
    - A host `scf.for` that reads or writes memory itself (a reduction to a
      scalar, a sequential loop nest), or a store on its own (the initial
      value of such a reduction), becomes a kernel of one thread.
    - Bodies of plain arithmetic whose loads and stores run along rows (or
      broadcast along them) work on `vector-bytes` per access: the innermost
      loop steps by that many elements and the body works on vectors, so
      each thread moves 16-byte vectors (more bytes in flight).
    - `memref.copy` (results that alias arguments, repeated results) becomes
      a parallel copy loop, mapped like the others: buffers are device memory
      that the host cannot touch.
    - Which buffers are device memory is found by following memrefs through
      views, casts, loops and calls from the arguments of public functions and
      from what kernels touch. Other allocations (the ownership flags of
      buffer deallocation) move to the host's stack; host code keeps its
      loads and stores of them.
    - Constant tensors (host globals) become device buffers: splats filled
      by a kernel, other values uploaded by the runtime on each call
      (`emberrt_cuda_upload`).
    Device memory read into host code (a loop's result, a scalar load) is
    an error that names the op. Launches already there (functions that
    ember-map-to-one-block-kernel made one kernel) are left as they are; what
    they touch is device memory.

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c1024) step (%c1, %c1) { ... }
    // becomes
    scf.parallel (%b) = (%c0) to (%c1024) step (%c1) {
      scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
        scf.if %in_bounds { %i, %j = delinearized (%b * 256 + %t); ... }
      } {mapping = [#gpu.loop_dim_map<processor = thread_x, ...>]}
    } {mapping = [#gpu.loop_dim_map<processor = block_x, ...>]}
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256", "Threads per block">,
    Option<"vectorBytes", "vector-bytes", "int64_t", "16",
           "Bytes each thread loads and stores at once along rows (0: scalars)">,
    Option<"tensorCores", "tensor-cores", "bool", "false",
           "Matmuls of float16 and bfloat16 operands on tensor cores (mma.sync, "
           "ldmatrix, cp.async: sm_80 and later)">,
    Option<"tf32", "tf32", "bool", "false",
           "With tensor-cores: float32 matmuls too, their operands rounded to "
           "TF32 (10-bit mantissas; float32 sums)">,
    Option<"tensorCoreShape", "tensor-core-shape", "std::string", "",
           "Blocks of tensor-core matmuls, \"WMxWN,MTxNT,STAGES,SLICEBYTES\": "
           "WM x WN warps of MT x NT tiles of 16 x 8, STAGES slices of "
           "SLICEBYTES of the reduction in shared memory (for measuring; empty: "
           "chosen by the problem's size)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
                           "::mlir::nvgpu::NVGPUDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def ReuseLoopBuffersPass : Pass<"ember-reuse-loop-buffers", "::mlir::func::FuncOp"> {
  let summary = "Loops and branches of small functions write into one buffer per value";
  let description = [{
    Runs on bufferized functions before buffer deallocation, only on small
    static ones (every buffer of at most `max-elements` elements, control
    flow around the work: what ember-map-to-one-block-kernel turns into one
    block). A traced loop yields a fresh buffer each iteration (one-shot
    bufferization with `allow-return-allocs-from-loops`); buffer
    deallocation then carries ownership flags through the loop and frees the
    previous buffer on the device's allocator at every step. Here each
    buffer-valued loop variable or branch result becomes one buffer instead:
    - `scf.for`: when the iteration has read the buffer it received before
      it starts writing the one it yields, it writes into the received one
      (in place). When the two overlap (a matmul reading its accumulator),
      a loop of constant trip count is unrolled by two first, so that the
      two halves alternate between two buffers; otherwise the yielded
      buffer is copied into the received one at the end of the iteration.
      The initial value is written to, so it is first copied into a new
      buffer unless it is an allocation that nothing reads after the loop.
    - `scf.if`: both branches write into one buffer allocated before it
      (a branch's own allocation is replaced by it, anything else copied).
    Branch results and the loop variables around them, which bufferization
    gives a fully dynamic layout, get the identity layout first when every
    buffer flowing in is a cast of a plain allocation.
    Allocations left inside loops no longer escape them, so
    `buffer-loop-hoisting` takes them out, and deallocation is a plain
    `memref.dealloc` after the last use.

    ```mlir
    %r = scf.for %k = %c0 to %c100 step %c1 iter_args(%acc = %init) -> (memref<10x10xf32>) {
      %next = memref.alloc() : memref<10x10xf32>
      linalg.matmul ins(%acc, %x : ...) outs(%next : ...)
      scf.yield %next : memref<10x10xf32>
    }
    // becomes
    %t = memref.alloc() : memref<10x10xf32>
    scf.for %k = %c0 to %c100 step %c2 {
      linalg.matmul ins(%init, %x : ...) outs(%t : ...)
      linalg.matmul ins(%t, %x : ...) outs(%init : ...)
    }
    ```
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", "4096",
           "Functions whose largest buffer has more elements are left alone "
           "(keep equal to ember-map-to-one-block-kernel's)">
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def MapToOneBlockKernelPass : Pass<"ember-map-to-one-block-kernel", "::mlir::func::FuncOp"> {
  let summary = "Run a small function with control flow as one kernel of one block";
  let description = [{
    Runs before ember-map-to-gpu-kernels, on the same loops. A function whose
    work is small and static (every buffer statically shaped, the largest of
    at most `max-elements` elements) and that has sequential control flow
    (`scf.for`, `scf.while`, `scf.if`) around its loop nests (a traced
    fori_loop, while_loop or cond) would otherwise launch kernels from host
    control flow, a few per iteration: power(x, 100) on 10x10 (two kernels an
    iteration) took about 890 us a call on an H100, almost all of it launch
    overhead, and a while loop whose condition reads a tensor could not run
    at all. Here its whole body becomes one `gpu.launch` of one block:
    - every parallel nest is distributed over the block's threads (a loop
      over the row-major linear index of its iterations, strided by the
      number of threads), and followed by a `gpu.barrier`; a barrier is left
      out between two nests over the same iterations whose accesses to what
      either writes are all at their own indices (each thread then touches
      the same elements in both);
    - control flow stays control flow: its conditions and bounds are the
      same for every thread, so the barriers inside are legal;
    - scalar code computes in every thread; what writes memory outside the
      nests (a sequential nest, a store) runs in thread 0, then a barrier;
      a barrier also comes between what every thread reads and a later
      write of it;
    - `memref.copy` becomes a copy over the threads;
    - the function's allocations become workgroup (shared) memory of the
      launch while they fit in 48 KiB, else device buffers allocated before
      it; arguments stay global memory;
    - in a sequential loop of a nest that reads, combines and writes back
      one element of a workgroup buffer (a matmul's accumulation), the
      element is kept in a register.
    `max-elements` is 4096 because one block runs on one multiprocessor:
    with 256 threads a nest over 4096 elements is 16 per thread, about a
    microsecond, less than the few microseconds a launch per nest costs;
    past that a nest's work is worth spreading over the whole GPU. And three
    such buffers (16 KiB of f32 each) still fit in the block's shared memory.
    Functions that do not qualify, or that hold anything the kernel cannot
    run (calls, buffers carried through control flow), are left to
    ember-map-to-gpu-kernels.

    ```mlir
    scf.for %k = %c0 to %c100 step %c1 {
      scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c10) step (%c1, %c1) { ... }
    }
    // becomes
    gpu.launch blocks(...) in (%c1, %c1, %c1) threads(%tx, ...) in (%c128, %c1, %c1)
        workgroup(%t : memref<10x10xf32, #gpu.address_space<workgroup>>) {
      scf.for %k = %c0 to %c100 step %c1 {
        %in = arith.cmpi ult, %tx, %c100 : index
        scf.if %in { %i = %tx / 10, %j = %tx % 10; ... }
        gpu.barrier
      }
      gpu.terminator
    }
    ```
  }];
  let options = [
    Option<"maxThreads", "max-threads", "int64_t", "256",
           "Threads of the block (fewer for smaller nests: whole warps)">,
    Option<"maxElements", "max-elements", "int64_t", "4096",
           "Functions whose largest buffer has more elements keep a kernel per nest">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

def ParallelDimsOutermostPass : Pass<"ember-parallel-dims-outermost", "::mlir::func::FuncOp"> {
  let summary = "Put the parallel dimensions of every linalg.generic before its reductions";
  let description = [{
    Permutes the loops of each `linalg.generic` (linalg's interchange) so
    that its parallel dimensions come first, keeping the order within each
    group. A reduction over a leading dimension (the column sums of a bias
    gradient) then lowers to one parallel loop around sequential reduction
    loops, a kernel, instead of a host loop launching a kernel per step.

    ```mlir
    linalg.generic {iterator_types = ["reduction", "parallel"]} ...
    // becomes
    linalg.generic {iterator_types = ["parallel", "reduction"]} ...
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def DeviceAllocationsPass : Pass<"ember-device-allocations", "::mlir::ModuleOp"> {
  let summary = "Host code allocates buffers from ember's CUDA runtime";
  let description = [{
    On the LLVM dialect after the GPU lowering: calls that host functions
    make to `malloc`, `aligned_alloc` and `free` (from memref allocations)
    are renamed to `emberrt_cuda_host_malloc`, `emberrt_cuda_aligned_alloc`
    and `emberrt_cuda_free_any`, the runtime's caching device allocator, so
    the temporaries of compiled GPU code live in device memory and are
    recycled without cuMemAlloc. Kernels (inside `gpu.module`) are untouched.
  }];
}

def AlignWorkgroupBuffersPass : Pass<"ember-align-workgroup-buffers", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Align kernels' shared-memory buffers to 16 bytes";
  let description = [{
    On outlined kernels: every workgroup attribution without an `llvm.align`
    gets 16, the widest access a thread makes. LLVM's load/store vectorizer
    merges neighbouring 4-byte loads of a shared buffer into 16-byte ones
    (`ld.shared.v4`), which fault with a misaligned address when the buffer
    is only as aligned as its elements (seen on an H100: a one-block kernel
    summing an 8x8 i32 buffer in one thread).
  }];
}

def LowerKernelFaultReportsPass
    : Pass<"ember-cuda-lower-fault-reports", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower ember.fault_if in kernels to a report to the runtime's fault word";
  let description = [{
    On outlined kernels (which cannot call the host's `emberrt_report_fault`):
    `ember.fault_if %c, %v {kind, site}` becomes `%v` and, where `%c` holds,
    a compare-and-swap of the runtime's fault word from 0 to
    `tag << 32 | kind << 24 | site` (site -1 as 0xffffff), so that the first
    fault is kept. The module gets two globals that the runtime sets when it
    loads the module (emberrt_cuda_set_fault_tag, emberrt_cuda_take_kernel_fault):
    `__ember_fault_word`, the word's address (0: not set, nothing reported),
    and `__ember_fault_tag`.

    ```mlir
    %q2 = ember.fault_if %zero, %q {kind = 1 : i32, site = 0 : i32} : i32
    ```
    becomes
    ```mlir
    scf.if %zero {
      %word = llvm.load @__ember_fault_word ...  // cmpxchg on it if not 0
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // EMBER_CODEGEN_CUDA_PASSES_TD
