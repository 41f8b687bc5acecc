//===- Pipelines.h - ember's named pass pipelines ---------------*- C++ -*-===//
//
// The JIT, ember-opt and (later) the AOT compiler build the same pipelines
// from these functions, so every tool runs byte-identical pass lists.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_PIPELINES_PIPELINES_H
#define EMBER_PIPELINES_PIPELINES_H

#include "llvm/Support/LogicalResult.h"

#include <cstdint>
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

/// The steps of `stage` for a CPU as pass-pipeline text (the contents of a
/// module pass manager). `splitDynamicSizes`: ops and matmuls whose sizes
/// are known only at run time are shared among threads when they turn out
/// large enough (ember-cpu-parallelize's split-dynamic-sizes).
/// `bf16Instructions`: what bfloat16 matmuls multiply on, "none" (widened to
/// float32), "avx512bf16" (vdpbf16ps) or "amx" (AMX tiles): the best the
/// target has (compiler::bf16InstructionsOf).
std::string stagePipelineText(LoweringStage stage, unsigned vectorBits = 256,
                              bool splitDynamicSizes = false,
                              const std::string &bf16Instructions = "none");

/// The textual form of `ember-lower-to-llvm`: any module mixing ember with
/// func, arith, tensor, scf and bufferization on tensors, down to the LLVM
/// dialect. Functions carrying `llvm.emit_c_interface` also get the packed
/// entry point `ember_entry_<name>` (see ember-emit-entry-points).
const std::string &lowerToLLVMPipelineText();

/// Adds `ember-lower-to-llvm` to `pm` (a module pass manager).
llvm::LogicalResult buildLowerToLLVMPipeline(mlir::OpPassManager &pm, unsigned vectorBits = 256,
                                             const std::string &bf16Instructions = "none");

/// An NVIDIA GPU target: its architecture, the PTX version, and the binary
/// embedded in the host code ("isa": PTX, compiled by the driver when
/// loaded; "bin": a cubin, through ptxas, which must be installed).
/// Features empty: the lowest PTX version the chip supports, LLVM's choice
/// (a fixed default such as +ptx80 made LLVM abort for newer chips, e.g.
/// sm_100 needs 8.6).
struct CudaTargetOptions {
  std::string chip = "sm_90";
  std::string features;
  std::string format = "isa";
  int64_t blockSize = 256;
  /// float32 matmuls on tensor cores with operands rounded to TF32 (sm_80
  /// and later; TensorFlow's enable_tensor_float_32_execution).
  bool tf32 = false;
  /// Kernels take one pointer per memref (static shapes only); false: memref
  /// descriptors, as for `?` dims (ember-compile and the JIT choose so for a
  /// module with any).
  bool barePointers = true;
};

/// The steps of `stage` of ember-lower-to-nvvm as pipeline text: the same
/// optimization, the same linalg without fault reports or CPU codegen, then
/// (the LLVM-dialect stage) buffers, kernels, NVVM and the embedded binary.
std::string cudaStagePipelineText(LoweringStage stage, const CudaTargetOptions &options);

/// The textual form of `ember-lower-to-nvvm`: ember-optimize, ember to
/// linalg, buffers, one kernel per loop nest (ember-map-to-gpu-kernels),
/// NVVM and the binary, host code that launches through the `mgpu*`
/// functions of ember's runtime, and `ember_entry_<f>` entry points whose
/// memref arguments hold device pointers.
std::string lowerToNVVMPipelineText(const CudaTargetOptions &options);

/// Adds `ember-lower-to-nvvm` to `pm` (a module pass manager).
llvm::LogicalResult buildLowerToNVVMPipeline(mlir::OpPassManager &pm,
                                             const CudaTargetOptions &options);

/// Registers `ember-optimize`, `ember-lower-to-llvm` and `ember-lower-to-nvvm`
/// with the global pipeline registry.
void registerPipelines();
void registerCudaPipeline();

} // namespace ember

#endif // EMBER_PIPELINES_PIPELINES_H
