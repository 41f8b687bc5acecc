//===- DynamicDims.h - how a function with ? dims is called -------*- C++ -*-===//
#ifndef EMBER_LIB_JIT_DYNAMICDIMS_H
#define EMBER_LIB_JIT_DYNAMICDIMS_H

#include "ember/JIT/FunctionCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace ember::jit {

/// The DimPlan of `function` (ember ops, as traced): which sizes must agree
/// and where each result dim's size comes from, found by following every
/// `?` dim back to an argument's dim or a constant through the ops that
/// lower `?` dims (elementwise ops, broadcast_to, reductions, matmul). False
/// with `error` naming the op and its location where a `?` dim meets any
/// other op (its sizes cannot be followed yet).
bool planDynamicDims(mlir::func::FuncOp function, DimPlan &plan, std::string &error);

} // namespace ember::jit

#endif // EMBER_LIB_JIT_DYNAMICDIMS_H
