//===- Passes.h - ember's conversion passes ---------------------*- C++ -*-===//
#ifndef EMBER_CONVERSION_PASSES_H
#define EMBER_CONVERSION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace ember {

#define GEN_PASS_DECL
#include "ember/Conversion/Passes.h.inc"

/// Adds the patterns that lower every ember op to linalg/tensor/arith/math;
/// blocked matmuls use vector registers of `vectorBits`.
void populateEmberToLinalgPatterns(RewritePatternSet &patterns, unsigned vectorBits = 256);

#define GEN_PASS_REGISTRATION
#include "ember/Conversion/Passes.h.inc"

} // namespace ember
} // namespace mlir

#endif // EMBER_CONVERSION_PASSES_H
