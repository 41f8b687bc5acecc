//===- Passes.h - CPU code generation passes ---------------------*- C++ -*-===//
#ifndef EMBER_CODEGEN_CPU_PASSES_H
#define EMBER_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::ember {

#define GEN_PASS_DECL
#include "ember/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ember/Codegen/CPU/Passes.h.inc"

} // namespace mlir::ember

#endif // EMBER_CODEGEN_CPU_PASSES_H
