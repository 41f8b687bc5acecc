//===- PipelineSteps.h - pass lists as pipeline text ------------*- C++ -*-===//
#ifndef EMBER_LIB_PIPELINES_PIPELINESTEPS_H
#define EMBER_LIB_PIPELINES_PIPELINESTEPS_H

#include <cstddef>
#include <string>

namespace ember {

/// The steps of a pipeline stage, one pass (or nested pass list) each,
/// joined by commas: the contents of a module pass manager.
template <size_t N> std::string joinSteps(const char *const (&steps)[N]) {
  std::string joined;
  for (const char *step : steps)
    joined += (joined.empty() ? "" : ",") + std::string(step);
  return joined;
}

/// Stage 2 for every target, after convert-ember-to-linalg (and a target's
/// own rewrites of matmuls): elementwise chains (with their broadcasts)
/// fused into single loop nests, and elementwise producers into the
/// reductions and matmuls that consume them. No CSE from here on: it would
/// merge the identical zero-filled accumulators of different matmuls, and
/// bufferization would then copy the shared one for each.
inline constexpr const char *kToLinalgSteps[] = {
    "canonicalize",
    // Named ops (reductions, transposes, the matmuls a target left alone)
    // become linalg.generic, which is what elementwise fusion works on.
    "func.func(linalg-generalize-named-ops)",
    // Whole elementwise chains first, each in one step (linear); upstream's
    // pairwise fusion (quadratic on long chains) then does the rest.
    "func.func(ember-fuse-elementwise-trees)",
    "func.func(linalg-fuse-elementwise-ops)",
    "canonicalize",
};

/// Tensors to buffers, for every target. Function boundaries use identity
/// layouts so the C ABI sees plain descriptors; returned buffers become
/// caller-provided out-params (statically shaped allocations are replaced by
/// them, so a kernel writes straight into the caller's buffer).
inline constexpr const char *kBufferizeSteps[] = {
    // The caller's tensors are never written: an op that updates in place
    // (a scatter) copies an argument first.
    "func.func(ember-read-only-arguments)",
    "eliminate-empty-tensors",
    // Loops (traced while_loop/fori_loop) may yield new buffers each step.
    ("one-shot-bufferize{bufferize-function-boundaries "
     "function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops}"),
    // Loops that only write into their buffer (a blocked matmul) stop carrying
    // it, so that a returned loop result is the allocation itself, which the
    // caller's buffer then replaces (no copy).
    "canonicalize",
    // A private function (an outlined matmul) that returns the buffer it
    // was given to write into returns nothing: its callers use that buffer
    // (else buffer-results-to-out-params copies the result into an
    // out-parameter: a whole convolution's output, each call). Public
    // functions keep their results (the entry points' ABI).
    "drop-equivalent-buffer-results",
    // A buffer returned twice (perhaps only now, as a callee's operand) gets
    // a copy for the repeat first.
    "func.func(ember-copy-repeated-results)",
    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions}",
    // Dynamically shaped results too (upstream copies them, and leaks).
    "func.func(ember-dynamic-results-in-out-params)",
    "canonicalize",
};

} // namespace ember

#endif // EMBER_LIB_PIPELINES_PIPELINESTEPS_H
