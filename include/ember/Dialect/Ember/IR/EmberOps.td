//===- EmberOps.td - the operations of the ember dialect ---*- tablegen -*-===//
//
// Every op: a summary, a description with an example, a verifier (through
// result-type inference where the result type follows from the operands) and a
// folder where folding is meaningful. Shape and dtype rules live in
// EmberOps.cpp next to the inference functions, so the front end, the verifier
// and the folders share one definition.
//
//===----------------------------------------------------------------------===//

#ifndef EMBER_DIALECT_EMBER_IR_EMBEROPS_TD
#define EMBER_DIALECT_EMBER_IR_EMBEROPS_TD

include "ember/Dialect/Ember/IR/EmberDialect.td"
include "ember/Dialect/Ember/IR/EmberInterfaces.td"

//===----------------------------------------------------------------------===//
// Binary elementwise operations
//===----------------------------------------------------------------------===//

class Ember_BinaryOp<string mnemonic, string semantics, list<Trait> traits = []>
    : Ember_Op<mnemonic, !listconcat(traits, [Pure, Ember_Elementwise, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>])> {
  let summary = "elementwise " # mnemonic;
  let description = "Elementwise " # semantics # [{ The operands have identical
    shapes and element types (broadcast first with `ember.broadcast_to`); the
    result has the same type.

    ```mlir
    %r = ember.}] # mnemonic # [{ %a, %b : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$lhs, Ember_Tensor:$rhs);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<SameOperandTypes>(type($lhs), type($rhs))
  }];
  let hasFolder = 1;
}

def Ember_AddOp : Ember_BinaryOp<"add", "sum `lhs + rhs` of numbers.", [Commutative]>;
def Ember_SubOp : Ember_BinaryOp<"sub", "difference `lhs - rhs` of numbers.">;
def Ember_MulOp : Ember_BinaryOp<"mul", "product `lhs * rhs` of numbers.", [Commutative]>;
def Ember_DivOp : Ember_BinaryOp<"div", [{quotient `lhs / rhs`; integer division
  truncates toward zero (as C++).}]>;
def Ember_FloorDivOp : Ember_BinaryOp<"floordiv", [{floored quotient
  `floor(lhs / rhs)` (numpy `//`).}]>;
def Ember_ModOp : Ember_BinaryOp<"mod", [{remainder of floored division: the
  result has the sign of the divisor (numpy `%`, Python `%`).}]>;
def Ember_PowOp : Ember_BinaryOp<"pow", [{power `lhs ** rhs`; for integers a
  negative exponent gives 0 unless the base is 1 or -1.}]>;
def Ember_MaximumOp : Ember_BinaryOp<"maximum", "maximum of the operands (NaN propagates).", [Commutative]>;
def Ember_MinimumOp : Ember_BinaryOp<"minimum", "minimum of the operands (NaN propagates).", [Commutative]>;
def Ember_AndOp : Ember_BinaryOp<"and", "logical (i1) or bitwise (integers) and.", [Commutative]>;
def Ember_OrOp : Ember_BinaryOp<"or", "logical (i1) or bitwise (integers) or.", [Commutative]>;

def Ember_CompareOp : Ember_Op<"compare", [Pure, Ember_Elementwise, InferTypeOpAdaptor, Ember_NoGradient]> {
  let summary = "elementwise comparison giving i1";
  let description = [{
    Compares operands of identical shape and element type elementwise. Float
    comparisons are ordered (false on NaN) except `ne`, which is true on NaN.

    ```mlir
    %r = ember.compare lt, %a, %b : tensor<4xf32>   // -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Ember_ComparisonDirection:$direction, Ember_Tensor:$lhs,
                       Ember_Tensor:$rhs);
  let results = (outs Ember_BoolTensor:$result);
  let assemblyFormat = [{
    $direction `,` $lhs `,` $rhs attr-dict `:` custom<SameOperandTypes>(type($lhs), type($rhs))
  }];
  let hasFolder = 1;
}

def Ember_SelectOp : Ember_Op<"select", [Pure, Ember_Elementwise, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "elementwise choice by an i1 condition";
  let description = [{
    `condition ? on_true : on_false`, elementwise; all three operands have the
    same shape and the two choices the same element type.

    ```mlir
    %r = ember.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Ember_BoolTensor:$condition, Ember_Tensor:$on_true,
                       Ember_Tensor:$on_false);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` type($condition) `,`
    custom<SameOperandTypes>(type($on_true), type($on_false))
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise operations
//===----------------------------------------------------------------------===//

class Ember_UnaryOp<string mnemonic, string semantics, string types>
    : Ember_Op<mnemonic, [Pure, Ember_Elementwise, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "elementwise " # mnemonic;
  let description = "Elementwise " # semantics # " Operand element types: "
    # types # [{. The result has the operand's type.

    ```mlir
    %r = ember.}] # mnemonic # [{ %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
  let hasFolder = 1;
}

def Ember_NegOp : Ember_UnaryOp<"neg", "negation `-x`.", "numbers">;
def Ember_AbsOp : Ember_UnaryOp<"abs", "absolute value.", "numbers">;
def Ember_ExpOp : Ember_UnaryOp<"exp", "natural exponential.", "floats">;
def Ember_LogOp : Ember_UnaryOp<"log", "natural logarithm.", "floats">;
def Ember_Log1pOp : Ember_UnaryOp<"log1p", "`log(1 + x)`, accurate near 0.", "floats">;
def Ember_ErfOp : Ember_UnaryOp<"erf", "error function `2/sqrt(pi) * integral of exp(-t^2) from 0 to x` (GELU's).", "floats">;
def Ember_SqrtOp : Ember_UnaryOp<"sqrt", "square root.", "floats">;
def Ember_RsqrtOp : Ember_UnaryOp<"rsqrt", "reciprocal square root `1 / sqrt(x)`.", "floats">;
def Ember_TanhOp : Ember_UnaryOp<"tanh", "hyperbolic tangent.", "floats">;
def Ember_SigmoidOp : Ember_UnaryOp<"sigmoid", "logistic function `1 / (1 + exp(-x))`.", "floats">;
def Ember_ReluOp : Ember_UnaryOp<"relu", "rectifier `max(x, 0)`.", "numbers">;
def Ember_SquareOp : Ember_UnaryOp<"square", "square `x * x`.", "numbers">;
def Ember_SignOp : Ember_UnaryOp<"sign", "sign: -1, 0 or 1 (NaN stays NaN).", "numbers">;
def Ember_SinOp : Ember_UnaryOp<"sin", "sine.", "floats">;
def Ember_CosOp : Ember_UnaryOp<"cos", "cosine.", "floats">;
def Ember_AsinOp : Ember_UnaryOp<"asin", "arcsine, in [-pi/2, pi/2] (NaN outside [-1, 1]).", "floats">;
def Ember_AcosOp : Ember_UnaryOp<"acos", "arccosine, in [0, pi] (NaN outside [-1, 1]).", "floats">;
def Ember_AtanOp : Ember_UnaryOp<"atan", "arctangent, in [-pi/2, pi/2].", "floats">;
def Ember_NotOp : Ember_UnaryOp<"not", "logical (i1) or bitwise (integers) not.", "i1 and integers">;

def Ember_CastOp : Ember_Op<"cast", [Pure, Ember_Elementwise, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "elementwise conversion to the result's element type";
  let description = [{
    Converts each element to the result's element type with numpy semantics:
    bool to number gives 0 or 1, number to bool is `x != 0`, float to integer
    truncates toward zero, saturating at the integer type's limits, NaN
    giving 0 (XLA's rule; numpy's result there depends on the machine).
    Shapes are identical.

    ```mlir
    %r = ember.cast %x : tensor<4xf32> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shape operations
//===----------------------------------------------------------------------===//

def Ember_ConstantOp : Ember_Op<"constant", [ConstantLike, Pure, InferTypeOpAdaptor,
                                             Ember_NoGradient]> {
  let summary = "a tensor constant";
  let description = [{
    ```mlir
    %c = ember.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    ```
    Large weights (exported functions) may be `dense_resource` blobs, whose
    bytes sit in the file's `dialect_resources` section; the blob must hold
    exactly the tensor's bytes, and 0-d or i1 constants must be `dense`.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Ember_BroadcastToOp : Ember_Op<"broadcast_to", [Pure, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "numpy broadcast to the result's shape";
  let description = [{
    Broadcasts the operand to the shape of the result with numpy's rules: the
    shapes are aligned at the right; each operand dim equals the result dim or
    is 1; the result may have more (leading) dims.

    ```mlir
    %r = ember.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
    ```

    A dynamic result dim takes its size from `sizes`, one `index` per `?` of
    the result type in order (as `tensor.empty`). Whether a dim broadcasts is
    static: an operand dim of 1 broadcasts, any other operand dim (`?`
    included) equals the result dim; what the types cannot show is checked
    when the code runs (a mismatch is a fault, never a read out of bounds).

    ```mlir
    %r = ember.broadcast_to %w [%rows, %cols] : tensor<?xf32> -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand, Variadic<Index>:$sizes);
  let results = (outs Ember_Tensor:$result);
  let builders = [
    OpBuilder<(ins "Type":$type, "Value":$operand),
              [{ build($_builder, $_state, type, operand, ValueRange{}); }]>
  ];
  let assemblyFormat =
      "$operand (` ` `[` $sizes^ `]`)? attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Ember_ReshapeOp : Ember_Op<"reshape", [Pure, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "row-major reshape to the result's shape";
  let description = [{
    Same elements in row-major order, new shape; element counts must match.

    ```mlir
    %r = ember.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
    ```

    A result with one `?` dim may leave its size out: it is the operand's
    element count over the result's known dims. Else each `?` dim of the
    result takes its size from `sizes`, in order (as `ember.broadcast_to`):
    a sequence batch `[B * T, U]` split back into `[B, T, U]` takes B and T
    from the input. Element counts that the types cannot show equal are
    checked when the code runs (a mismatch is a fault).

    ```mlir
    %y = ember.reshape %x [%b, %t] : tensor<?x5xf32> -> tensor<?x?x5xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand, Variadic<Index>:$sizes);
  let results = (outs Ember_Tensor:$result);
  let builders = [
    OpBuilder<(ins "Type":$type, "Value":$operand),
              [{ build($_builder, $_state, type, operand, ValueRange{}); }]>
  ];
  let assemblyFormat =
      "$operand (` ` `[` $sizes^ `]`)? attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Ember_TransposeOp : Ember_Op<"transpose", [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "permutation of dimensions";
  let description = [{
    Result dim `i` is operand dim `permutation[i]` (numpy `transpose(x, axes)`).

    ```mlir
    %r = ember.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $operand `permutation` `=` $permutation attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Ember_SliceOp : Ember_Op<"slice", [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "strided slice";
  let description = [{
    numpy `x[start:limit:stride]` per dimension, with `0 <= start <= limit <=
    dim` and `stride >= 1`. Result dim `i` is `ceil((limit - start) / stride)`.

    Along a `?` dim of size n, a negative start or limit counts from the end
    (n + start; -9223372036854775808, `?`, is the end itself): `1:?` is
    numpy's `x[1:]` and gives `?` (n - 1), `0:-1` is `x[:-1]`, `-3:?` is
    `x[-3:]` and gives 3, `0:4` gives 4. Bounds are not clamped: the caller
    checks that n holds them (n >= 4 for `0:4`). A start counted from the end
    needs a limit counted from the end; a `?` result takes stride 1.

    ```mlir
    %r = ember.slice %x start = [0, 1] limit = [2, 3] stride = [1, 1]
        : tensor<2x3xf32> -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$stride);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $operand `start` `=` $start `limit` `=` $limit `stride` `=` $stride attr-dict
    `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Ember_ConcatOp : Ember_Op<"concat", [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "concatenation along an axis";
  let description = [{
    Joins one or more tensors of equal rank and element type along `axis`; the
    other dims must match.

    ```mlir
    %r = ember.concat %a, %b axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
    ```
  }];
  let arguments = (ins Variadic<Ember_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasFolder = 1;
}

def Ember_GatherOp : Ember_Op<"gather", [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "take elements along an axis by index";
  let description = [{
    numpy `take(operand, indices, axis)`: the result shape is
    `operand.shape[:axis] + indices.shape + operand.shape[axis+1:]`. Negative
    indices count from the end. Out-of-range indices are refused by the eager
    front end; compiled code clamps them into range.

    ```mlir
    %r = ember.gather %x, %i axis = 0 : tensor<5x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand, Ember_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` $indices `axis` `=` $axis attr-dict `:` type($operand) `,`
    type($indices) `->` type($result)
  }];
  let hasFolder = 1;
}

def Ember_ScatterOp : Ember_Op<"scatter", [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "write or combine updates into elements along an axis by index";
  let description = [{
    The inverse of `gather` (numpy `take`), as TensorFlow's `scatter_update`
    family and JAX's `x.at[..., indices].set/add/...`: the result is the
    operand with `updates` (of `gather`'s result shape,
    `operand.shape[:axis] + indices.shape + operand.shape[axis+1:]`) put at
    `indices` along `axis`, where `mode` says how each update meets the
    element it lands on: `update` replaces it (of several updates to one
    element, the last in row-major order of `updates` wins), `add`, `mul`,
    `max` and `min` combine with it. Negative indices count from the end;
    compiled code reports an index out of range as a fault and leaves the
    element as it was.

    ```mlir
    %r = ember.scatter add, %x, %i, %u axis = 0 : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
    ```
  }];
  let arguments = (ins Ember_ScatterMode:$mode, Ember_Tensor:$operand, Ember_IndexTensor:$indices,
                       Ember_Tensor:$updates, I64Attr:$axis);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $mode `,` $operand `,` $indices `,` $updates `axis` `=` $axis attr-dict `:` type($operand) `,`
    type($indices) `,` type($updates) `->` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Ember_ReduceOp<string mnemonic, string semantics, string types>
    : Ember_Op<mnemonic, [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = semantics # " over axes";
  let description = "Reduces the operand over `axes` (distinct, in range; an "
    # "empty list reduces nothing) by " # semantics # ". Reduced dims are "
    # "dropped, or kept with size 1 under `keepdims`. Element types: " # types
    # [{.

    ```mlir
    %r = ember.}] # mnemonic # [{ %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
    %k = ember.}] # mnemonic # [{ %x axes = [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand, DenseI64ArrayAttr:$axes, UnitAttr:$keepdims);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $operand `axes` `=` $axes (`keepdims` $keepdims^)? attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Ember_ReduceSumOp : Ember_ReduceOp<"reduce_sum", "the sum", "numbers">;
def Ember_ReduceMaxOp : Ember_ReduceOp<"reduce_max", "the maximum", "numbers">;
def Ember_ReduceMinOp : Ember_ReduceOp<"reduce_min", "the minimum", "numbers">;
def Ember_ReduceProdOp : Ember_ReduceOp<"reduce_prod", "the product", "numbers">;
def Ember_ReduceMeanOp : Ember_ReduceOp<"reduce_mean", "the arithmetic mean", "floats">;

def Ember_ArgMaxOp : Ember_Op<"argmax", [Pure, InferTypeOpAdaptor, Ember_NoGradient]> {
  let summary = "index of the maximum along an axis";
  let description = [{
    The i64 index of the first maximal element along `axis` (numpy `argmax`);
    the axis is dropped, or kept with size 1 under `keepdims`.

    ```mlir
    %r = ember.argmax %x axis = 1 : tensor<2x3xf32> -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand, I64Attr:$axis, UnitAttr:$keepdims);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $operand `axis` `=` $axis (`keepdims` $keepdims^)? attr-dict `:` type($operand) `->` type($result)
  }];
  let hasFolder = 1;
}

def Ember_ShapeOfOp : Ember_Op<"shape_of", [Pure, InferTypeOpAdaptor, Ember_NoGradient]> {
  let summary = "the sizes of a tensor's dims, as a 1-D int64 tensor";
  let description = [{
    The size of each dim of the operand, read at run time for a `?` dim
    (TensorFlow's tf.shape; ember::shape in C++). It folds to a constant when
    the operand's shape is static.

    ```mlir
    %s = ember.shape_of %x : tensor<?x3xf32> -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
}

def Ember_IotaOp : Ember_Op<"iota", [Pure, Ember_NoGradient]> {
  let summary = "each element's index along one dim";
  let description = [{
    Each element of the result is its index along dim `dimension` (JAX's
    lax.broadcasted_iota; ember::iota_like in C++). A dynamic result dim
    takes its size from `sizes`, one `index` per `?` of the result type in
    order (as `ember.broadcast_to`), so that a function traced with a None
    batch can number its rows (Dropout's mask hashes each element's index).

    ```mlir
    %rows = ember.iota dim 0 [%n] : tensor<?x3xi64>
    ```
  }];
  let arguments = (ins I64Attr:$dimension, Variadic<Index>:$sizes);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = "`dim` $dimension (` ` `[` $sizes^ `]`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Custom gradients
//===----------------------------------------------------------------------===//

def Ember_CustomGradientOp : Ember_Op<"custom_gradient", [Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a value with a user-defined gradient";
  let description = [{
    The result is `value`; its gradient is not the one of the ops that
    computed `value` but the `backward` region's: given the cotangent of the
    result (the block argument), it yields one cotangent per `inputs` operand.
    The region may use any value computed before the op (forward
    intermediates). `ember-autodiff` applies the region; lowering replaces the
    op by `value`. Without inputs (a value whose gradient is cut, as
    softmax's max shift) the `inputs(...)` clause is left out.

    ```mlir
    %e = ember.exp %x : tensor<f32>
    %y = ember.log1p %e : tensor<f32>
    %r = ember.custom_gradient %y inputs(%x : tensor<f32>) : tensor<f32> {
    ^bb0(%g: tensor<f32>):
      %s = ember.sigmoid %x : tensor<f32>
      %d = ember.mul %g, %s : tensor<f32>
      ember.yield %d : tensor<f32>
    }
    ```
  }];
  let arguments = (ins Ember_Tensor:$value, Variadic<Ember_Tensor>:$inputs);
  let results = (outs Ember_Tensor:$result);
  let regions = (region SizedRegion<1>:$backward);
  let assemblyFormat = [{
    $value (`inputs` `(` $inputs^ `:` type($inputs) `)`)? attr-dict `:` type($value) $backward
  }];
  let hasVerifier = 1;
}

def Ember_YieldOp : Ember_Op<"yield", [Pure, Terminator, HasParent<"CustomGradientOp">]> {
  let summary = "the cotangents a custom gradient's backward region computes";
  let arguments = (ins Variadic<Ember_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------===//
// Side effects
//===----------------------------------------------------------------------===//

def Ember_PrintOp : Ember_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "print a tensor when the program runs";
  let description = [{
    Prints `message` followed by the operand's values (numpy style) to
    standard output each time the compiled code runs, unlike host code in a
    traced function, which runs once, while tracing. It has a side effect, so
    it is never pruned, merged or reordered with other prints.

    ```mlir
    ember.print %x message = "x = " : tensor<2xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$operand, StrAttr:$message);
  let assemblyFormat = "$operand `message` `=` $message attr-dict `:` type($operand)";
}

def Ember_AllReduceOp : Ember_Op<"all_reduce", [MemoryEffects<[MemWrite]>,
    AllTypesMatch<["operand", "result"]>, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "the element-wise sum, mean, max or min of a tensor over every process";
  let description = [{
    Data parallelism: every process of the group (ember::distributed) runs
    the same function on its own data, and each all_reduce combines the
    operand element-wise over the processes, returning the same result on
    every one. The runtime calls the collective engine the program set up
    (Gloo, through ember::distributed); without one the call faults. Every
    process must run the same all_reduces in the same order with operands of
    the same shape, so the op has a side effect: it is never pruned, merged
    or reordered with other effects. f32, f64, i32 and i64 (mean: floats).

    The gradient of a sum is the sum of the cotangents over the processes
    (each process's loss depends on every process's operand), of a mean
    their mean; max and min have none.

    ```mlir
    %g = ember.all_reduce sum, %grad : tensor<?x10xf32>
    ```
  }];
  let arguments = (ins Ember_CollectiveReduction:$reduction, Ember_Tensor:$operand);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = "$reduction `,` $operand attr-dict `:` type($operand)";
  let hasVerifier = 1;
}

def Ember_FaultIfOp : Ember_Op<"fault_if", [NoMemoryEffect, AllTypesMatch<["value", "result"]>]> {
  let summary = "a run-time fault of compiled code, reported when a condition holds";
  let description = [{
    Returns `value`; when `condition` is true it also reports fault `kind`
    (1: integer division by zero, 2: the most negative integer divided by -1,
    3: an index out of range, 4: an argmax over an empty `?` axis;
    emberrt_fault_kind_t) of the op numbered `site`
    to the runtime (`emberrt_report_fault`), whose caller raises it as an
    error naming that op. convert-ember-to-linalg makes it in the scalar
    bodies of ops that can fault, which it guards so that they never trap;
    ember-lower-fault-reports lowers it to calls once there are loops.

    The result ties the report to the value it guards: it is pruned with an
    unused computation (as TensorFlow prunes unused ops) and fuses with it,
    but it is not speculatable, so it is never moved to where its condition
    was not checked.

    ```mlir
    %q2 = ember.fault_if %zero, %q {kind = 1 : i32, site = 0 : i32} : i32
    ```
  }];
  let arguments = (ins I1:$condition, AnyType:$value, I32Attr:$kind, I32Attr:$site);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$condition `,` $value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Ember_MatmulOp : Ember_Op<"matmul", [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "matrix product, optionally batched";
  let description = [{
    `[m, k] x [k, n] -> [m, n]`; with rank > 2 both operands have the same
    rank and equal leading (batch) dims: `[b..., m, k] x [b..., k, n] ->
    [b..., m, n]`. Element types are equal numbers.

    ```mlir
    %r = ember.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$lhs, Ember_Tensor:$rhs);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

def Ember_Conv2DOp : Ember_Op<"conv2d", [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "2-D convolution of an NHWC input with an HWIO filter";
  let description = [{
    `input [N, H, W, C] x filter [KH, KW, C, F] -> [N, OH, OW, F]`, floats:

        result[n, oh, ow, f] = sum over kh, kw, c of
            x[n, oh * strides[0] + kh * dilations[0], ow * strides[1] + kw * dilations[1], c]
              * filter[kh, kw, c, f]

    where `x` is the input with `input_dilations - 1` zeros between its
    elements along H and W, then `padding = [top, bottom, left, right]`
    zeros around them (XLA's convolution, in TensorFlow's layouts): with
    input dilations of 1 this is `tf.nn.conv2d` with explicit padding, and
    the gradients of a convolution are convolutions too (the input's with
    the forward strides as input dilations). `OH = (H' - (KH - 1) *
    dilations[0] - 1) / strides[0] + 1` for the dilated, padded height `H'`
    (likewise OW); it must be at least 1.

    ```mlir
    %y = ember.conv2d %x, %w strides = [1, 1] dilations = [1, 1]
        input_dilations = [1, 1] padding = [1, 1, 1, 1]
        : tensor<8x28x28x1xf32>, tensor<3x3x1x16xf32> -> tensor<8x28x28x16xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$input, Ember_Tensor:$filter, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$input_dilations,
                       DenseI64ArrayAttr:$padding);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $filter `strides` `=` $strides `dilations` `=` $dilations
    `input_dilations` `=` $input_dilations `padding` `=` $padding attr-dict
    `:` type($input) `,` type($filter) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class Ember_Pool2DOp<string mnemonic, list<Trait> traits = []>
    : Ember_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)> {
  let arguments = (ins Ember_Tensor:$input, DenseI64ArrayAttr:$window,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $input `window` `=` $window `strides` `=` $strides `padding` `=` $padding attr-dict
    `:` type($input) `->` type($result)
  }];
  // A 1x1 window, strides 1, no padding: the input itself.
  let hasFolder = 1;
}

def Ember_MaxPool2DOp : Ember_Pool2DOp<"max_pool2d",
                                       [DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "2-D max pooling of an NHWC input";
  let description = [{
    `input [N, H, W, C] -> [N, OH, OW, C]`, floats: each result is the
    largest element of its `window = [KH, KW]` of the input padded with
    `padding = [top, bottom, left, right]` elements of -inf, windows
    `strides` apart (`tf.nn.max_pool2d` with explicit padding). `OH = (H +
    top + bottom - KH) / strides[0] + 1` (likewise OW); a padding must be
    smaller than its window, so that each window holds an input element.

    ```mlir
    %y = ember.max_pool2d %x window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0]
        : tensor<8x28x28x16xf32> -> tensor<8x14x14x16xf32>
    ```
  }];
}

def Ember_AvgPool2DOp : Ember_Pool2DOp<"avg_pool2d",
                                       [DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "2-D average pooling of an NHWC input";
  let description = [{
    As `ember.max_pool2d`, each result the mean of the input elements of its
    window: padding is not counted (`tf.nn.avg_pool2d`: a window that
    overlaps the padding divides by the number of input elements in it).

    ```mlir
    %y = ember.avg_pool2d %x window = [3, 3] strides = [1, 1] padding = [1, 1, 1, 1]
        : tensor<8x28x28x16xf32> -> tensor<8x28x28x16xf32>
    ```
  }];
}

class Ember_Pool2DGradOp<string mnemonic, list<Trait> traits = []>
    : Ember_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)> {
  let arguments = (ins Ember_Tensor:$input, Ember_Tensor:$cotangent, DenseI64ArrayAttr:$window,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $cotangent `window` `=` $window `strides` `=` $strides `padding` `=` $padding
    attr-dict `:` type($input) `,` type($cotangent) `->` type($result)
  }];
}

def Ember_MaxPool2DGradOp : Ember_Pool2DGradOp<"max_pool2d_grad",
                                                 [DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "the gradient of ember.max_pool2d";
  let description = [{
    The input's gradient for `ember.max_pool2d` of `input` with these
    attributes, whose result's gradient is `cotangent`: each window's
    cotangent goes to the first of its largest elements (row by row), as
    TensorFlow's MaxPoolGrad; elements in several windows add up theirs.
    Made by reverse-mode differentiation. It is linear in `cotangent`: its
    own gradient there (second derivatives through max pooling) is
    `ember.max_pool2d_gather` of the incoming one; `input` gets none.
  }];
}

def Ember_MaxPool2DGatherOp : Ember_Op<"max_pool2d_gather",
    [Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "each max-pooling window's element of `values` where `input` is largest";
  let description = [{
    For each window of `ember.max_pool2d` of `input` (these attributes), the
    element of `values` (of `input`'s type) at the window's first largest
    element of `input`, row by row: the position `ember.max_pool2d_grad`
    sends that window's cotangent to, so this op is its adjoint (as XLA's
    select-and-gather). Made by reverse-mode differentiation of
    max_pool2d_grad; its own gradient in `values` is max_pool2d_grad's.

    ```mlir
    %y = ember.max_pool2d_gather %x, %v window = [2, 2] strides = [2, 2] padding = [0, 0, 0, 0]
        : tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32> -> tensor<1x2x2x1xf32>
    ```
  }];
  let arguments = (ins Ember_Tensor:$input, Ember_Tensor:$values, DenseI64ArrayAttr:$window,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding);
  let results = (outs Ember_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $values `window` `=` $window `strides` `=` $strides `padding` `=` $padding
    attr-dict `:` type($input) `,` type($values) `->` type($result)
  }];
}

def Ember_AvgPool2DGradOp : Ember_Pool2DGradOp<"avg_pool2d_grad",
                                                 [DeclareOpInterfaceMethods<Ember_VJPOpInterface>]> {
  let summary = "the gradient of ember.avg_pool2d";
  let description = [{
    The input's gradient for `ember.avg_pool2d` of `input` (read for its
    shape alone) whose result's gradient is `cotangent`: each window's
    cotangent divided among the input elements of the window. Made by
    reverse-mode differentiation. It is linear in `cotangent`, so its own
    gradient (second derivatives through average pooling) is the average
    pooling of its cotangent; `input` gets none.
  }];
}

#endif // EMBER_DIALECT_EMBER_IR_EMBEROPS_TD
