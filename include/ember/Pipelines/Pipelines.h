//===- Pipelines.h - ember's named pass pipelines ---------------*- C++ -*-===//
//
// The JIT, ember-opt and (later) the AOT compiler build the same pipelines
// from these functions, so every tool runs byte-identical pass lists.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_PIPELINES_PIPELINES_H
#define EMBER_PIPELINES_PIPELINES_H

#include "llvm/Support/LogicalResult.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace ember {

/// The stages of ember-lower-to-llvm, each the result of its own pass list:
/// ember optimized (`ember-optimize`), linalg on tensors with elementwise
/// chains fused, and the LLVM dialect.
enum class LoweringStage { Optimized, Linalg, LLVMDialect };
inline constexpr LoweringStage kLoweringStages[] = {
    LoweringStage::Optimized, LoweringStage::Linalg, LoweringStage::LLVMDialect};

/// Adds the passes that produce `stage` from the previous stage, for a
/// target whose vector registers are `vectorBits` wide (blocked matmuls are
/// sized to them; the JIT passes the host's).
llvm::LogicalResult buildStagePipeline(mlir::OpPassManager &pm, LoweringStage stage,
                                       unsigned vectorBits = 256);

/// The textual form of `ember-lower-to-llvm`: any module mixing ember with
/// func, arith, tensor, scf and bufferization on tensors, down to the LLVM
/// dialect. Functions carrying `llvm.emit_c_interface` also get the packed
/// entry point `ember_entry_<name>` (see ember-emit-entry-points).
const std::string &lowerToLLVMPipelineText();

/// Adds `ember-lower-to-llvm` to `pm` (a module pass manager).
llvm::LogicalResult buildLowerToLLVMPipeline(mlir::OpPassManager &pm, unsigned vectorBits = 256);

/// Registers `ember-optimize` and `ember-lower-to-llvm` with the global
/// pipeline registry.
void registerPipelines();

} // namespace ember

#endif // EMBER_PIPELINES_PIPELINES_H
