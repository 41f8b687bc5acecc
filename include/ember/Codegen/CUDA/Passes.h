//===- Passes.h - CUDA code generation passes --------------------*- C++ -*-===//
#ifndef EMBER_CODEGEN_CUDA_PASSES_H
#define EMBER_CODEGEN_CUDA_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::ember {

#define GEN_PASS_DECL
#include "ember/Codegen/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ember/Codegen/CUDA/Passes.h.inc"

} // namespace mlir::ember

#endif // EMBER_CODEGEN_CUDA_PASSES_H
