//===- BlockReductions.h - reductions as GPU block trees --------*- C++ -*-===//
#ifndef EMBER_LIB_CODEGEN_CUDA_BLOCKREDUCTIONS_H
#define EMBER_LIB_CODEGEN_CUDA_BLOCKREDUCTIONS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::ember {

/// Rewrites a reduction loop nest as a `gpu.launch` with one block per
/// output element: the block's threads stride over the reduced elements,
/// combine them privately, then `gpu.all_reduce` (warp shuffles and shared
/// memory) and thread 0 folds the total into the output. Where that does not
/// pay (outputs enough to fill the GPU, short reductions, loads that run
/// along the outputs rather than the reduced elements), a thread per output
/// (and share of the reduced elements) folds them in a register instead.
/// `nest` is either an outermost `scf.parallel` over the outputs whose body
/// is a nest of
/// `scf.for` reduction loops, or such an `scf.for` nest on its own (a
/// reduction to one element). The innermost body must read the output,
/// combine it with a value that does not depend on it by one associative
/// op (add, mul, min, max, and, or, xor) and store it back, as the
/// lowering of a linalg reduction does. Returns false, changing nothing,
/// for anything else (argmax's two-value reduction, a reduction to one
/// element of fewer than `minReduced` elements).
bool mapReductionToBlocks(Operation *nest, int64_t maxThreads, int64_t minReduced);

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CUDA_BLOCKREDUCTIONS_H
