//===- CpuPipeline.cpp - ember-lower-to-llvm -------------------------------===//

#include "ember/Pipelines/Pipelines.h"

#include "PipelineSteps.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using ember::joinSteps;

// One step per line, each with why it sits where it does. The pipeline runs
// in three stages, each of which can be dumped (see Pipelines.h).

// Stage 1, `ember-optimize`: graph clean-up on ember ops (and reverse-mode
// differentiation, which the clean-up then simplifies). Canonicalization
// folds constants and identities and prunes unused ops (non-strict
// execution); CSE merges common subexpressions; calls are inlined.
static const char *const kOptimizeSteps[] = {
    "inline",
    // Functions marked ember.differentiate get their _vjp (after inlining, so
    // that called functions are differentiated too).
    "ember-autodiff",
    // ... and the derivatives that value_and_grad traced inside a function
    // calls are inlined into it.
    "inline",
    "canonicalize",
    // Transposes moved below elementwise ops, to meet (and fold with) the
    // next transpose back: an imported model's NCHW <-> NHWC pairs.
    "func.func(ember-sink-transposes)",
    "cse",
    // Collectives started as soon as their operands are ready and awaited
    // where their results are needed (a step's gradient buckets overlap the
    // rest of its backward pass).
    "func.func(ember-schedule-collectives)",
    "symbol-dce",
};

// Stage 2 (after the target-neutral kToLinalgSteps): the elementwise
// consumer of a blocked matmul (bias and activation, an SGD update) fused
// into its block writes, then repeated matmuls outlined.
static const char *const kCpuEpilogueSteps[] = {
    "func.func(ember-fuse-matmul-epilogues)",
    "canonicalize",
    // Reductions of a large tensor to one value as partials per block, which
    // run on several threads.
    "func.func(ember-cpu-split-reductions)",
    // ... and the rest of a long chain of matmuls outlined.
    "ember-outline-blocked-matmuls",
};

// Stage 3: buffers (kBufferizeSteps), parallel loops (parallelizeSteps),
// then loops and the LLVM dialect (kToLLVMSteps).
static std::string parallelizeSteps(bool splitDynamicSizes) {
  // A matmul's passes over k ask for C's blocks before their k loops. Then
  // work enough for several threads as parallel loops, before allocations
  // are hoisted (which would share one temporary between iterations); with
  // CompileOptions::splitDynamicSizes, `?` sizes too, split among threads
  // when they turn out large enough at run time.
  // Copies into or out of strided buffers (concatenations, paddings) as
  // loops first, which may then run in parallel too.
  return std::string("func.func(ember-cpu-lower-strided-copies),"
                     "func.func(ember-cpu-prefetch-matmul-blocks),"
                     "func.func(ember-cpu-parallelize") +
         (splitDynamicSizes ? "{split-dynamic-sizes})" : ")");
}

static const char *const kToLLVMSteps[] = {
    // Small temporaries live on the stack: no malloc/free per op inside a
    // function (e.g. 100 chained 10x10 matmuls).
    // Allocations are first hoisted out of loops where they can be, so that a
    // stack allocation never sits inside a loop.
    "func.func(buffer-loop-hoisting,promote-buffers-to-stack{max-alloc-size-in-bytes=4096})",
    "buffer-deallocation-pipeline",
    "convert-bufferization-to-memref",
    // Loops, then everything to LLVM. Math ops without an LLVM intrinsic
    // (tanh, ipowi, ...) become libm calls or outlined functions first.
    "func.func(convert-linalg-to-loops)",
    // Vector transfers (blocked matmuls) to loads/stores; n-D ones unrolled.
    "func.func(convert-vector-to-scf{full-unroll})",
    // Big traced graphs: one function per loop nest, identical nests shared,
    // so LLVM optimizes many small functions (and repeated layers once).
    "ember-outline-loop-nests",
    // Parallel loops as OpenMP work-sharing loops, each run by a team whose
    // size the runtime gives at run time; the canonicalization drops the
    // alloca scopes the conversion wraps bodies in (a stack save and restore
    // per iteration would stop vectorization).
    "convert-scf-to-openmp",
    // A parallel body's stack buffers (small packed panels) once per thread:
    // the scope around the body then folds away.
    "func.func(ember-cpu-hoist-thread-allocas)",
    // Faults (integer division by zero, gather indices out of range) as
    // runtime calls, one per loop nest, not one per element: loops vectorize.
    // After the OpenMP conversion: in a team, each thread has its own flag.
    "ember-lower-fault-reports",
    "ember-omp-num-threads",
    "canonicalize",
    "convert-scf-to-cf",
    "func.func(ember-lower-dynamic-expand-shapes)",
    "expand-strided-metadata",
    "lower-affine",
    // float16 and bfloat16 computed in float32, rounded after each op (as
    // LibTorch on the CPU): math ops extended, arithmetic emulated, and the
    // bf16 conversions as integer ops (no AVX512-BF16 needed, vectorized).
    "func.func(math-extend-to-supported-types)",
    "func.func(arith-emulate-unsupported-floats{source-types=bf16,f16 target-type=f32})",
    "func.func(ember-cpu-lower-half-precision-conversions)",
    // float32 exp/log/tanh as polynomials LLVM vectorizes, not libm calls;
    // their fma/floor/abs become LLVM intrinsics (instructions), not calls.
    "func.func(ember-approximate-math)",
    "convert-math-to-llvm",
    "convert-math-to-funcs",
    "convert-math-to-libm",
    // aligned_alloc rather than malloc plus pointer arithmetic: LLVM then knows
    // the buffers do not alias and vectorizes loops over them.
    "convert-vector-to-llvm",
    "finalize-memref-to-llvm{use-aligned-alloc}",
    "convert-to-llvm",
    "reconcile-unrealized-casts",
    // bf16 loads and stores as i16: LLVM would round a stored scalar bfloat
    // through a libgcc call it cannot find here (__truncsfbf2).
    "ember-cpu-store-bf16-as-integers",
    "ember-annotate-noalias",
    "ember-emit-entry-points",
};

/// The steps of `stage` for a CPU whose vector registers are `vectorBits`
/// wide, joined by commas: the contents of a module pass manager.
static std::string stageSteps(ember::LoweringStage stage, unsigned vectorBits,
                              bool splitDynamicSizes = false,
                              const std::string &bf16Instructions = "none") {
  switch (stage) {
  case ember::LoweringStage::Optimized:
    return joinSteps(kOptimizeSteps);
  case ember::LoweringStage::Linalg:
    // Convolutions as matmuls of their patches, and matmuls blocked for the
    // registers, before elementwise fusion, which would otherwise fuse
    // producers into the generic form of a matmul.
    // Long chains of them are outlined at once (what follows sees one copy
    // of each kind), but for those an elementwise consumer may fuse into.
    // bfloat16 ones on the CPU's bfloat16 dot products where it has them.
    return "convert-ember-to-linalg,func.func(ember-cpu-lower-convolutions,"
           "ember-cpu-lower-matmuls{vector-bits=" +
           std::to_string(vectorBits) + " bf16-instructions=" + bf16Instructions +
           "}),ember-outline-blocked-matmuls{keep-epilogue-candidates}," +
           joinSteps(ember::kToLinalgSteps) + "," + joinSteps(kCpuEpilogueSteps);
  case ember::LoweringStage::LLVMDialect: {
    // The steps to LLVM, with the bfloat16 instructions' own: vdpbf16ps or
    // the tile ops to their intrinsics, and code that uses tiles asks the OS
    // for them on entry.
    std::string toLLVM;
    for (llvm::StringRef step : kToLLVMSteps) {
      toLLVM += (toLLVM.empty() ? "" : ",") + step.str();
      if (step == "convert-vector-to-llvm" && bf16Instructions == "avx512bf16")
        toLLVM += "{enable-x86vector}";
      if (step == "convert-vector-to-llvm" && bf16Instructions == "amx")
        toLLVM += "{enable-amx}";
      if (step == "reconcile-unrealized-casts" && bf16Instructions == "amx")
        toLLVM += ",ember-cpu-request-amx-tiles";
    }
    return joinSteps(ember::kBufferizeSteps) + "," + parallelizeSteps(splitDynamicSizes) + "," +
           toLLVM;
  }
  }
  return "";
}

const std::string &ember::lowerToLLVMPipelineText() {
  static const std::string text = "builtin.module(" +
                                  stageSteps(LoweringStage::Optimized, 256) + "," +
                                  stageSteps(LoweringStage::Linalg, 256) + "," +
                                  stageSteps(LoweringStage::LLVMDialect, 256) + ")";
  return text;
}

std::string ember::stagePipelineText(LoweringStage stage, unsigned vectorBits,
                                     bool splitDynamicSizes, const std::string &bf16Instructions) {
  return stageSteps(stage, vectorBits, splitDynamicSizes, bf16Instructions);
}

LogicalResult ember::buildStagePipeline(OpPassManager &pm, LoweringStage stage,
                                       unsigned vectorBits) {
  return parsePassPipeline(stagePipelineText(stage, vectorBits), pm);
}

LogicalResult ember::buildLowerToLLVMPipeline(OpPassManager &pm, unsigned vectorBits,
                                              const std::string &bf16Instructions) {
  for (LoweringStage stage : kLoweringStages)
    if (failed(
            parsePassPipeline(stagePipelineText(stage, vectorBits, false, bf16Instructions), pm)))
      return failure();
  return success();
}

namespace {
struct LowerToLLVMOptions : PassPipelineOptions<LowerToLLVMOptions> {
  Option<unsigned> vectorBits{*this, "vector-bits",
                              llvm::cl::desc("Width of the target's vector registers (the JIT "
                                             "uses the host's: 512 with AVX-512)"),
                              llvm::cl::init(256)};
  Option<std::string> bf16Instructions{
      *this, "bf16-instructions",
      llvm::cl::desc("What bfloat16 matmuls multiply on: none (widened to float32), avx512bf16 "
                     "(vdpbf16ps) or amx (AMX tiles); the JIT and ember-compile choose the "
                     "best the target has"),
      llvm::cl::init("none")};
};
} // namespace

void ember::registerPipelines() {
  PassPipelineRegistration<>(
      "ember-optimize",
      "Graph optimizations on ember ops: inline, fold and prune (canonicalize), CSE",
      [](OpPassManager &pm) { (void)ember::buildStagePipeline(pm, LoweringStage::Optimized); });
  PassPipelineRegistration<LowerToLLVMOptions>(
      "ember-lower-to-llvm",
      "Lower a module of ember, func, arith, tensor, scf and bufferization ops on "
      "tensors to the LLVM dialect",
      [](OpPassManager &pm, const LowerToLLVMOptions &options) {
        (void)ember::buildLowerToLLVMPipeline(pm, options.vectorBits, options.bf16Instructions);
      });
  registerCudaPipeline();
}
