//===- EmberDialect.td - the ember dialect and its base classes -*- tablegen -*-===//
//
// The ember dialect models the numpy-style tensor programs of ember's front
// end on builtin ranked tensors. Shapes are static; element types are the
// front end's dtypes (f32, f64, i1, i32, i64).
//
//===----------------------------------------------------------------------===//

#ifndef EMBER_DIALECT_EMBER_IR_EMBERDIALECT_TD
#define EMBER_DIALECT_EMBER_IR_EMBERDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Ember_Dialect : Dialect {
  let name = "ember";
  let cppNamespace = "::mlir::ember";
  let summary = "Numpy-style tensor operations of ember's eager and traced front end";
  let description = [{
    Operations on builtin ranked tensors whose element type is one of ember's
    dtypes: f32, f64, i1 (bool), i32 and i64. Binary elementwise operations take
    operands of identical shape; broadcasting is explicit (`ember.broadcast_to`).
    Every operation verifies its operands with a message that names the
    offending shapes and types, infers its result type where it can, and folds
    on constants.
  }];
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    static void dropRepeatedInferenceErrors(::mlir::MLIRContext *context);
  }];
}

class Ember_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ember_Dialect, mnemonic, traits>;

// Ops through which no gradient flows (a constant, a comparison, an index):
// ember-autodiff gives their operands no cotangent, where an op without a
// gradient rule (VJPOpInterface) and with float operands is an error.
def Ember_NoGradient : NativeOpTrait<"NoGradient"> {
  let cppNamespace = "::mlir::ember";
}

// Ops computing each element of their result from the elements at the same
// position of their operands (all of one shape): convert-ember-to-linalg
// lowers every one of them with one pattern, a linalg.generic whose body is
// the op's scalar semantics.
def Ember_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::mlir::ember";
}

// The element types of ember's dtypes.
def Ember_ElementType : AnyTypeOf<[F32, F64, F16, BF16, I1, I32, I64]>;
def Ember_Tensor : RankedTensorOf<[F32, F64, F16, BF16, I1, I32, I64]>;
def Ember_IndexTensor : RankedTensorOf<[I32, I64]>;
def Ember_BoolTensor : RankedTensorOf<[I1]>;

def Ember_ComparisonDirection : I32EnumAttr<"ComparisonDirection",
    "direction of an elementwise comparison", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::ember";
}

def Ember_CollectiveReduction : I32EnumAttr<"CollectiveReduction",
    "how a collective combines the processes' values", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
      I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::mlir::ember";
}

def Ember_ScatterMode : I32EnumAttr<"ScatterMode",
    "how a scatter combines an update with the element it lands on", [
      I32EnumAttrCase<"update", 0>, I32EnumAttrCase<"add", 1>,
      I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"max", 3>,
      I32EnumAttrCase<"min", 4>]> {
  let cppNamespace = "::mlir::ember";
}

#endif // EMBER_DIALECT_EMBER_IR_EMBERDIALECT_TD
