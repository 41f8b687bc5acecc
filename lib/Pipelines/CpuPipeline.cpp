//===- CpuPipeline.cpp - ember-lower-to-llvm -------------------------------===//

#include "ember/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

// One step per line, each with why it sits where it does.
static const char *const kLowerToLLVMSteps[] = {
    // ember -> linalg/tensor/arith/math on tensors, then clean up and fuse
    // elementwise chains into single loop nests.
    "convert-ember-to-linalg",
    "canonicalize",
    "func.func(linalg-fuse-elementwise-ops)",
    "canonicalize",
    "cse",
    // Tensors -> buffers. Function boundaries use identity layouts so the C
    // ABI sees plain descriptors; returned buffers become caller-provided
    // out-params (statically shaped allocations are replaced by them, so a
    // kernel writes straight into the caller's buffer).
    "eliminate-empty-tensors",
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}",
    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions}",
    "canonicalize",
    "buffer-deallocation-pipeline",
    "convert-bufferization-to-memref",
    // Loops, then everything to LLVM. Math ops without an LLVM intrinsic
    // (tanh, ipowi, ...) become libm calls or outlined functions first.
    "func.func(convert-linalg-to-loops)",
    "convert-scf-to-cf",
    "expand-strided-metadata",
    "lower-affine",
    "convert-math-to-funcs",
    "convert-math-to-libm",
    "finalize-memref-to-llvm",
    "convert-to-llvm",
    "reconcile-unrealized-casts",
    "ember-emit-entry-points",
};

/// The steps joined by commas: the contents of a module pass manager.
static const std::string &pipelineSteps() {
  static const std::string text = [] {
    std::string joined;
    for (const char *step : kLowerToLLVMSteps)
      joined += (joined.empty() ? "" : ",") + std::string(step);
    return joined;
  }();
  return text;
}

const std::string &ember::lowerToLLVMPipelineText() {
  static const std::string text = "builtin.module(" + pipelineSteps() + ")";
  return text;
}

LogicalResult ember::buildLowerToLLVMPipeline(OpPassManager &pm) {
  return parsePassPipeline(pipelineSteps(), pm);
}

void ember::registerPipelines() {
  PassPipelineRegistration<>(
      "ember-lower-to-llvm",
      "Lower a module of ember, func, arith, tensor, scf and bufferization ops on "
      "tensors to the LLVM dialect",
      [](OpPassManager &pm) { (void)ember::buildLowerToLLVMPipeline(pm); });
}
