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

/// Adds the patterns that lower every ember op to linalg/tensor/arith/math
/// (the same for every target). With `reportFaults`,
/// faulting elements (integer division by zero, gather indices out of range)
/// call the runtime's emberrt_report_fault; they are guarded either way.
void populateEmberToLinalgPatterns(RewritePatternSet &patterns, bool reportFaults = true,
                                   bool narrowMatmulOperands = false);

/// Whether convert-ember-to-linalg lowers `op` with dynamic dims: elementwise
/// ops, broadcasts and reductions (sum, max, min, prod, mean). Other ops
/// with a dynamic dim are refused by the pass, naming them.
bool lowersDynamicShapes(Operation *op);

/// The attribute numbering an op that can fault at run time (an i32), which
/// its fault reports carry as their site.
inline constexpr llvm::StringLiteral kFaultSiteAttrName = "ember.fault_site";
/// What a fault report says went wrong: the values of the runtime's
/// emberrt_fault_kind_t (emberrt/runtime.h).
enum class FaultKind : int32_t {
  IntegerDivisionByZero = 1,
  IntegerDivisionOverflow = 2, ///< the most negative integer divided by -1
  IndexOutOfRange = 3,         ///< a gather index
  EmptyAxis = 4,               ///< an argmax over a `?` axis of size 0
};
/// The runtime function compiled code calls with (i32 kind, i32 site).
inline constexpr llvm::StringLiteral kReportFaultFunctionName = "emberrt_report_fault";

#define GEN_PASS_REGISTRATION
#include "ember/Conversion/Passes.h.inc"

} // namespace ember
} // namespace mlir

#endif // EMBER_CONVERSION_PASSES_H
