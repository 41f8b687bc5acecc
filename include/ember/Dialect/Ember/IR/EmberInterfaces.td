//===- EmberInterfaces.td - ember op interfaces ------------*- tablegen -*-===//
#ifndef EMBER_DIALECT_EMBER_IR_EMBERINTERFACES_TD
#define EMBER_DIALECT_EMBER_IR_EMBERINTERFACES_TD

include "mlir/IR/OpBase.td"

def Ember_VJPOpInterface : OpInterface<"VJPOpInterface"> {
  let cppNamespace = "::mlir::ember";
  let description = [{
    The vector-Jacobian product of an op, stated next to the op (in
    EmberVJPs.cpp): given the cotangents of its results, build the cotangents
    of its operands with ember ops. The `ember-autodiff` pass composes them in
    reverse order. Operands without a gradient (integer operands, indices,
    conditions) get a null Value. The op's own results may be used (forward
    values are reused, not recomputed).
  }];
  let methods = [
    InterfaceMethod<
      "Appends one cotangent per operand (null where there is none).",
      "::llvm::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$resultCotangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>
  ];
}

#endif // EMBER_DIALECT_EMBER_IR_EMBERINTERFACES_TD
