//===- SmallFunctions.h - functions small enough for one block --*- C++ -*-===//
//
// Shared by ember-reuse-loop-buffers and ember-map-to-one-block-kernel: which
// functions run as one kernel of one block (small, static work with control
// flow around it).
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_CODEGEN_CUDA_SMALLFUNCTIONS_H
#define EMBER_LIB_CODEGEN_CUDA_SMALLFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::ember {

/// Whether every memref of `function` (arguments, results of ops, arguments
/// of blocks) has a static shape, and none more than `maxElements` elements.
bool hasSmallStaticBuffers(func::FuncOp function, int64_t maxElements);

/// Whether `function` has sequential control flow (`scf.for`, `scf.while`,
/// `scf.if`) around work on buffers: a linalg op, a parallel loop nest or a
/// copy inside it.
bool hasControlFlowAroundWork(func::FuncOp function);

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CUDA_SMALLFUNCTIONS_H
