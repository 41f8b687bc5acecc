//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//
//
// What only CPU targets do after the target-neutral ember -> linalg lowering:
// matmuls blocked for the vector registers, epilogues fused into their
// blocks, big functions outlined nest by nest, faults reported to the
// runtime.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_CODEGEN_CPU_PASSES_TD
#define EMBER_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerMatmulsPass : Pass<"ember-cpu-lower-matmuls", "::mlir::func::FuncOp"> {
  let summary = "Lower linalg matmuls on tensors to code shaped for a CPU's vector registers";
  let description = [{
    Rewrites the `linalg.matmul` and `linalg.batch_matmul` ops that
    `convert-ember-to-linalg` produces (on tensors, accumulating into a
    zero-filled tensor; others are left alone):
    - Large matmuls (m * n * k >= 32768; f32, f64, i32, i64) become
      register-blocked loops: panels of two vectors of columns (one when C is
      no wider than a vector); for each panel, blocks of 6 rows keep 6x2
      vector accumulators over k (`vector.fma`; 12 rows with one-vector
      panels, and on 512-bit targets for 128 rows or more; there, panels of
      three vectors in blocks of 8 rows where C's columns leave the last
      panel nearly full, each vector of a panel row its own value) and write
      them once (`vector.transfer_write` marked `ember.matmul_block_write`, where
      `ember-fuse-matmul-epilogues` applies a consumer). B's panel is packed
      when B is transposed, when its columns do not fill whole panels, or
      when a panel would not stay in L1 (unless it is as wide as B: contiguous
      already). Tall matmuls of several panels run in groups of rows (A's
      group of about 1 MB stays in L2 while every panel passes; B packed once
      for all groups) while a panel of B is at most 256 KB and all of B at
      most 8 MB. A 2-D `linalg.transpose` feeding either operand is read in
      place, and so is an A that is a gather (the collapse of a copy through
      an affine map: a convolution's patches), its k run as the copy's loops.
    - A batch of large matmuls (static sizes, each m * n * k >= 32768: a
      transformer's attention) becomes a loop over the batch, each matmul's
      2-D slices blocked as above and inserted into C.
    - With `bf16-instructions=amx` or `avx512bf16`, a bfloat16 matmul
      (operands widened to float32 by a copy, A not transposed; static sizes,
      m >= 16, n >= 32 and k >= 32 for tiles, m >= 4, n >= 48 and k >= 32 for
      vectors; a convolution's patches too) reads its
      bfloat16 operands itself: B packed in pairs of rows, A padded to whole
      blocks, float32 sums in passes of 512 over k, each over blocks of C:
      2x2 AMX tiles (tdpbf16ps) or 8 rows of 3 AVX-512 vectors (vdpbf16ps).
      The float32 sums are the result (a bfloat16 matmul rounds them after).
      On tiles, a convolution's patches with channels in 32s and unit steps
      along W are not copied: an implicit GEMM reads each tap's tile of A
      with one strided load from the padded input (blocks of 32 pixels of a
      row, or of two rows of 16 where rows are that short; the pixels past
      the row's end computed and dropped).
    - Short rows and a short reduction (n, k <= 16, power(x, n) on 10x10):
      one vector of C's row per row of A, the k products summed in registers.
    - Others (small, integer, small batched) become a `linalg.generic` whose loops
      run (b..., i, k, j): the innermost loop walks rows of B and C, so it
      vectorizes; with k <= 16 the reduction is innermost instead, as a
      hand-written loop has it (LLVM unrolls it and vectorizes j around it).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", "256",
           "Width of the target's vector registers: a blocked matmul's rows of "
           "accumulators are two registers wide, or three (256: AVX2, 512: AVX-512)">,
    Option<"bf16Instructions", "bf16-instructions", "std::string", "\"none\"",
           "How bfloat16 matmuls multiply: none (widened to float32, the blocked "
           "float32 loops), avx512bf16 (vdpbf16ps on AVX-512 vectors) or amx (AMX "
           "tiles: the CPU has amx-tile and amx-bf16)">
  ];
  let dependentDialects = [
    "::mlir::amx::AMXDialect", "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::vector::VectorDialect",
    "::mlir::x86vector::X86VectorDialect"
  ];
}

def OutlineLoopNestsPass : Pass<"ember-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Outline the loop nests of large functions, sharing identical ones";
  let description = [{
    In every function with at least `min-loop-nests` top-level loop nests
    (`scf.for`/`scf.parallel` without results, i.e. after bufferization), each
    nest moves into a private function marked `noinline` (LLVM passthrough), called from where
    it was. Nests that are identical up to their captured values share one
    function.

    Rationale: LLVM's optimizer is superlinear in function size (a traced
    graph of 100 matmuls spent most of its compile time in loop rotation and
    MemorySSA updates of one huge function), and repeated layers compile once.

    ```mlir
    func.func @f(%a: memref<10xf32>, %b: memref<10xf32>) {
      scf.for %i = %c0 to %c10 step %c1 { ... %a ... }
      scf.for %i = %c0 to %c10 step %c1 { ... %b ... }
    }
    // becomes
    func.func @f(%a: memref<10xf32>, %b: memref<10xf32>) {
      call @f_nest(%a) : (memref<10xf32>) -> ()
      call @f_nest(%b) : (memref<10xf32>) -> ()
    }
    func.func private @f_nest(%arg0: memref<10xf32>) attributes {passthrough = ["noinline"]} {...}
    ```
  }];
  let options = [
    Option<"minLoopNests", "min-loop-nests", "unsigned", "8",
           "Outline only in functions with at least this many loop nests">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def LowerConvolutionsPass : Pass<"ember-cpu-lower-convolutions", "::mlir::func::FuncOp"> {
  let summary = "Convolutions as matmuls of their patches (im2col), for CPUs";
  let description = [{
    Every `linalg.conv_2d_nhwc_hwcf` on tensors of static shape becomes a
    copy of its patches, `[N, OH, OW, KH, KW, C]` read through an affine map
    (strides and dilations in it; the innermost C contiguous, so the copy
    vectorizes), collapsed to `[N * OH * OW, KH * KW * C]`, times the filter
    collapsed to `[KH * KW * C, F]`: a `linalg.matmul` into the
    convolution's own accumulator, which `ember-cpu-lower-matmuls` then
    blocks for the vector registers, reading the patches from the input in
    place (the copy is never made).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def OutlineBlockedMatmulsPass : Pass<"ember-outline-blocked-matmuls", "::mlir::ModuleOp"> {
  let summary = "Move blocked matmuls (on tensors) into functions, sharing identical ones";
  let description = [{
    In every function with at least `min-matmuls` register-blocked matmuls
    (the `scf.for` nests marked `ember.blocked_matmul` by
    `ember-cpu-lower-matmuls`, with any epilogue fused into them), each one
    moves into a private function taking the tensors it reads and returning
    its result, marked `noinline` for LLVM; matmuls identical up to the
    tensors they read share one function. Runs on tensors, right after
    `ember-cpu-lower-matmuls` (with `keep-epilogue-candidates`) and again at
    the end of the linalg stage, so that canonicalization, bufferization,
    loop lowering and LLVM see one copy of each kind of matmul instead of
    every one (a traced chain of 300 32x32 matmuls: one function called 300
    times).

    ```mlir
    %1 = scf.for ... { ... } {ember.blocked_matmul}   // A @ B, 120 ops
    %2 = scf.for ... { ... } {ember.blocked_matmul}   // %1 @ B, the same ops
    // becomes
    %1 = call @f_matmul(%a, %b) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %2 = call @f_matmul(%1, %b) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    ```
  }];
  let options = [
    Option<"minMatmuls", "min-matmuls", "unsigned", "16",
           "Outline only in functions with at least this many blocked matmuls (a "
           "training step's few stay inline: their calls cost an MLP step 15%)">,
    Option<"keepEpilogueCandidates", "keep-epilogue-candidates", "bool", "false",
           "Leave in place the matmuls whose only user is a linalg.generic (run "
           "before ember-fuse-matmul-epilogues, which may fuse it into them)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def FuseMatmulEpiloguesPass : Pass<"ember-fuse-matmul-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Fuse the elementwise consumer of a blocked matmul into its block writes";
  let description = [{
    A register-blocked matmul (convert-ember-to-linalg marks its loop nest
    `ember.blocked_matmul` and its block write `ember.matmul_block_write`;
    the pass starts from the write, since loops of one iteration may have
    been folded away, e.g. the panel loop when C is one panel wide)
    whose only user is an elementwise `linalg.generic` of the same shape and
    type (a bias and activation, an SGD update, a ReLU's backward mask)
    applies that generic to each block of accumulators while they are still
    in registers: the generic's other inputs are read block by block (with
    its broadcasts), its body runs on vectors, and the result is written
    once instead of writing the product and reading it back.

    ```mlir
    %c = scf.for ... {ember.blocked_matmul} // ... vector.transfer_write %acc, ...
    %r = linalg.generic ... ins(%c, %bias) { addf, maximumf }
    // becomes
    %r = scf.for ... // ... %b = vector.transfer_read %bias ...; %v = addf %acc, %b;
                     //     %w = maximumf %v, ...; vector.transfer_write %w, ...
    ```
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def LowerFaultReportsPass : Pass<"ember-lower-fault-reports", "::mlir::ModuleOp"> {
  let summary = "Lower ember.fault_if to runtime calls, one per loop nest";
  let description = [{
    `ember.fault_if %c, %v {kind, site}` (made by convert-ember-to-linalg in
    the bodies of integer divisions and gathers) becomes `%v` and a call to
    the runtime's `emberrt_report_fault(kind, site)` when `%c` holds. Run
    after convert-linalg-to-loops and convert-scf-to-openmp: inside `scf.for`
    loops, a call would keep LLVM from vectorizing them, so the condition is
    or-ed into a flag on the stack instead, and the outermost loop is
    followed by one call if the flag is set. LLVM promotes the flag to a
    register, and the loop then carries an or-reduction, which vectorizes.
    In an OpenMP team's work-sharing loop (a parallel loop of
    `ember-cpu-parallelize`), the flag is each thread's own, made when the
    team starts, or-ed once into a shared one after the loop (an atomic or),
    and the call follows the team, on the calling thread (where faults are
    reported). Outside loops (or inside a while loop) the call is made in
    place, under an `scf.if`.

    ```mlir
    scf.for %i = %c0 to %c8 step %c1 {
      ...
      %r = ember.fault_if %zero, %q {kind = 1 : i32, site = 0 : i32} : i32
      memref.store %r, %out[%i] : memref<8xi32>
    }
    // becomes
    %flag = memref.alloca() : memref<i1>    // at the top of the function
    memref.store %false, %flag[] : memref<i1>
    scf.for %i = %c0 to %c8 step %c1 {
      ...
      %seen = memref.load %flag[] : memref<i1>
      %any = arith.ori %seen, %zero : i1
      memref.store %any, %flag[] : memref<i1>
      memref.store %q, %out[%i] : memref<8xi32>
    }
    %fault = memref.load %flag[] : memref<i1>
    scf.if %fault {
      func.call @emberrt_report_fault(%c1_i32, %c0_i32) : (i32, i32) -> ()
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"];
}

def ParallelizePass : Pass<"ember-cpu-parallelize", "::mlir::func::FuncOp"> {
  let summary = "Loops with enough work as parallel loops (scf.parallel), on buffers";
  let description = [{
    Runs after bufferization, before loops are lowered and allocations
    hoisted (nothing inside a parallel loop may then be shared by its
    iterations):
    - A linalg op on buffers with static sizes, a parallel outermost
      dimension and at least `min-elements` iterations is tiled along that
      dimension into an `scf.parallel` of at most `max-blocks` blocks of rows
      (linalg tiling); each block keeps the op, whose loops vectorize as
      before. Ops that report faults (integer division, gather) split too:
      `ember-lower-fault-reports` gives each thread its own fault flag.
    - A register-blocked matmul (`ember.blocked_matmul_rows`, which carries
      its multiply-adds) with at least `min-matmul-work` of them: its loop
      over panels of columns becomes an `scf.parallel` when it has two or
      more panels (each writes its own columns of C and packs its own panel
      of B), else its loop over blocks of rows. With `split-dynamic-sizes`, a
      blocked matmul with `?` sizes (work 0: unknown) too, its panels when
      there are two or more, else its row blocks however many there turn out
      to be (one runs on the calling thread).
    Loops already inside an `scf.parallel` are left alone: one level of
    parallelism. `convert-scf-to-openmp` turns the result into OpenMP.
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", "65536",
           "Split linalg ops with at least this many iterations (below, a "
           "fork and join, about 1.5 us for 2 threads, would cost more than it gains)">,
    Option<"maxBlocks", "max-blocks", "int64_t", "64",
           "Split a linalg op into at most this many blocks of rows">,
    Option<"minMatmulWork", "min-matmul-work", "int64_t", "262144",
           "Split blocked matmuls of at least this many multiply-adds (64x64x64)">,
    Option<"splitDynamicSizes", "split-dynamic-sizes", "bool", "false",
           "Also split ops whose sizes are known only at run time, when they turn "
           "out large enough (off in the JIT's pipeline: the OpenMP region doubles "
           "a shape-generic eager kernel's compile time; its hot shapes are "
           "specialized, and split, in the background instead)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect"];
}

def SplitReductionsPass : Pass<"ember-cpu-split-reductions", "::mlir::func::FuncOp"> {
  let summary = "Split large reductions to one value into per-block partials";
  let description = [{
    On tensors, after elementwise fusion: a `linalg.generic` whose loops are
    all reductions (a tensor reduced to one value, with any fused producer)
    and that has at least `min-elements` iterations gets one reduction
    dimension (its dimensions collapsed where the operands allow) split into
    `blocks` blocks (fewer when the size is not a multiple: the greatest
    common divisor), by linalg's split reduction: a generic computing one
    partial result per block along a new parallel dimension, which
    `ember-cpu-parallelize` then runs on several threads, and a short
    reduction of the partials. The blocks are a constant, not one per
    thread, so results do not depend on the thread count.
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", "65536",
           "Split reductions of at least this many elements">,
    Option<"blocks", "blocks", "int64_t", "64", "Partial results (at most)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def OpenMPNumThreadsPass : Pass<"ember-omp-num-threads", "::mlir::ModuleOp"> {
  let summary = "Give every OpenMP parallel region the runtime's thread count";
  let description = [{
    Every `omp.parallel` without a `num_threads` clause gets one: the result
    of a call to `emberrt_num_threads()` just before it, so that
    `ember::set_num_threads` (or EMBER_NUM_THREADS) applies to code already
    compiled, and the thread count never enters the code or its cache key.
    A region whose one work-sharing loop has run-time bounds also gets an
    `if` clause: it starts a team only when the loop has more than one
    iteration (a shape-generic loop too small to share has one).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::omp::OpenMPDialect"];
}

def LowerStridedCopiesPass : Pass<"ember-cpu-lower-strided-copies", "::mlir::func::FuncOp"> {
  let summary = "Copies between strided buffers as linalg.copy (loops), not memrefCopy";
  let description = [{
    On buffers, before ember-cpu-parallelize. A `memref.copy` whose source
    or target is not one contiguous block (a concatenation's or a padding's
    subview of its result, a transposed view) becomes a `linalg.copy` of
    the same operands: loops that LLVM vectorizes along the contiguous
    innermost dim, split among threads when large (ember-cpu-parallelize).
    finalize-memref-to-llvm would otherwise call the runtime's `memrefCopy`
    (`emberrt_memref_copy`), one `memcpy` per contiguous run (a padded
    row; a single element of a transposed view), on one thread. Copies
    between contiguous buffers stay `memref.copy` (one `llvm.memcpy`).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def RequestAmxTilesPass : Pass<"ember-cpu-request-amx-tiles", "::mlir::ModuleOp"> {
  let summary = "Ask the OS for AMX tiles on entry to code that uses them";
  let description = [{
    On the LLVM dialect. Linux lets a process use AMX tile registers only
    after it asks (Linux 5.16 and later), else the first tile instruction
    raises SIGILL. When the module calls AMX intrinsics (`llvm.x86.tile*`,
    `llvm.x86.tdp*`: ember-cpu-lower-matmuls with `bf16-instructions=amx`),
    every public function it defines first calls the runtime's
    `emberrt_require_amx` (one load once granted), which exits with a reason
    where the OS refuses. The JIT asks before it chooses tiles; this is for
    code compiled ahead of time.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def HoistThreadAllocasPass : Pass<"ember-cpu-hoist-thread-allocas", "::mlir::func::FuncOp"> {
  let summary = "Allocate an OpenMP loop body's stack buffers once per thread";
  let description = [{
    A static `memref.alloca` in the body of an `omp.loop_nest` (or in the
    `memref.alloca_scope` that convert-scf-to-openmp wraps the body in) moves
    to the start of the enclosing `omp.parallel` region: each thread of the
    team allocates it once and reuses it for all its iterations. The scope
    left without allocas folds away; one that kept its alloca could not
    hold the blocks convert-scf-to-cf makes of the loops inside it.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::omp::OpenMPDialect"];
}

def PrefetchMatmulBlocksPass
    : Pass<"ember-cpu-prefetch-matmul-blocks", "::mlir::func::FuncOp"> {
  let summary = "Prefetch the blocks of C a matmul pass over k adds to";
  let description = [{
    On buffers. A matmul run in passes over k (ember-cpu-lower-matmuls on
    AVX-512) reads each block of C after the block's k loop and adds the new
    products to it; C was last touched a whole pass earlier, so the read
    misses every cache, and its latency stalls the kernel between blocks.
    In each panel loop marked `ember.matmul_adds_to_blocks`, the block's
    cache lines are prefetched into L2 (`memref.prefetch`, locality 2) before
    the k loop starts, so that the misses overlap the block's multiply-adds.
    Rows and columns past C's end are clamped to its last ones.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LowerHalfPrecisionConversionsPass
    : Pass<"ember-cpu-lower-half-precision-conversions", "::mlir::func::FuncOp"> {
  let summary = "Ready f16/bf16 <-> f32 conversions for LLVM on the CPU";
  let description = [{
    `arith.extf` from bf16 and `arith.truncf` to bf16 become bit casts,
    shifts and a rounding add (to nearest even; NaN kept), so that they
    vectorize and need no runtime helper: x86 without AVX512-BF16 has no
    instruction for them, and LLVM would call `__truncsfbf2` per element.
    The fastmath flags `arith-emulate-unsupported-floats` puts on the
    conversions it inserts are dropped (LLVM's fpext and fptrunc have none).
    Runs after that emulation, which leaves only these conversions on 16-bit
    floats.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def StoreBFloat16AsIntegersPass
    : Pass<"ember-cpu-store-bf16-as-integers", "::mlir::ModuleOp"> {
  let summary = "Load and store bf16 values as i16";
  let description = [{
    Every `llvm.load` of bf16 (or a vector of bf16) loads i16 and bitcasts,
    every `llvm.store` of one stores the bitcast i16, and every `llvm.select`
    of them selects between the bitcast i16 values. x86 without AVX512-BF16
    holds a scalar bfloat in a float register, so LLVM would widen each load
    and round each store (or select) through a call to `__truncsfbf2` (absent
    from Debian 12's libgcc), even where the value is only copied.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // EMBER_CODEGEN_CPU_PASSES_TD
