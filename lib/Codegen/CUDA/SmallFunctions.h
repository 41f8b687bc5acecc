//===- SmallFunctions.h - functions small enough for one block --*- C++ -*-===//
//
// Shared by ember-reuse-loop-buffers and ember-map-to-one-block-kernel: which
// functions run as one kernel of one block (small, static work with control
// flow around it, or several nests in a row).
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

/// The loop nests, linalg ops and copies of `function` (nested ones not
/// counted again).
int64_t countWork(func::FuncOp function);

/// Whether one kernel of one block is worth it for `function` (given small
/// static buffers): control flow around work (a loop of 100 matmuls is 1
/// launch instead of 100), or two or more nests in a row (a chain traced from
/// a C++ loop: power(x, 100) unrolled), each of which would otherwise pay a
/// launch (about 4 us on an H100) for a few thousand elements.
bool worthOneKernel(func::FuncOp function);

} // namespace mlir::ember

#endif // EMBER_LIB_CODEGEN_CUDA_SMALLFUNCTIONS_H
