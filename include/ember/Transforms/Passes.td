//===- Passes.td - ember's transformation passes -----------*- tablegen -*-===//
#ifndef EMBER_TRANSFORMS_PASSES_TD
#define EMBER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseElementwiseTreesPass : Pass<"ember-fuse-elementwise-trees", "::mlir::func::FuncOp"> {
  let summary = "Fuse each tree of elementwise linalg.generic ops into one, in one step";
  let description = [{
    On linalg on tensors, before upstream `linalg-fuse-elementwise-ops`: an
    elementwise `linalg.generic` (all loops parallel, identity output map)
    whose operands are produced by other such generics over the same
    iteration space, each used by it alone and read at the same element,
    absorbs them all at once: one new generic takes the producers' inputs
    (deduplicated) and runs their bodies in order. Upstream fuses one pair at
    a time and copies the whole fused body each time, which made a traced
    chain of 3000 elementwise ops take 3.2 s there (quadratic); this is
    linear. What is left (broadcasts into reductions, producers with several
    users) the upstream pass still fuses.
  }];
}

def FuseElementwiseOpsPass : Pass<"ember-fuse-elementwise-ops", "::mlir::func::FuncOp"> {
  let summary = "Upstream's elementwise fusion, keeping matmuls' operands plain for GPUs";
  let description = [{
    `linalg-fuse-elementwise-ops` (a producer with one use fused into its
    consumer, reshapes folded by expansion, constants folded) with
    `contractions-take-moves-only`: into a contraction (a generalized
    matmul) only producers that move their one input's elements, such as a
    transpose. The CUDA pipeline uses it so that a matmul keeps reading A
    and B from buffers (stored or transposed), which its tiles and tensor
    cores need; an operand computed elementwise (a gradient's `dz * relu'(z)`)
    stays a kernel of its own instead of a thread per element of C.

    ```mlir
    %d = linalg.generic ... { %p = arith.mulf %x, %y : f32 ... }  // dz * mask
    %c = linalg.generic ... ins(%a, %d) ... { ... mulf, addf ... } // a matmul
    // upstream: one generic (the mulf inside the matmul's body);
    // contractions-take-moves-only: both kept
    ```
  }];
  let options = [
    Option<"contractionsTakeMovesOnly", "contractions-take-moves-only", "bool", "false",
           "Fuse into contractions only producers that move their one input's "
           "elements (transposes, copies)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DynamicResultsInOutParamsPass : Pass<"ember-dynamic-results-in-out-params", "::mlir::func::FuncOp"> {
  let summary = "Compute a dynamically shaped result in the caller's buffer";
  let description = [{
    After buffer-results-to-out-params: a dynamically shaped result buffer
    allocated in the function and copied into its out-param at the end (and
    never freed) is replaced by the out-param itself. The caller allocates
    each result with the result's sizes (ember's calling convention), as
    hoist-static-allocs assumes for static shapes.

    ```mlir
    %a = memref.alloc(%n) : memref<?xf32>
    linalg.generic ... outs(%a : memref<?xf32>)
    memref.copy %a, %out : memref<?xf32> to memref<?xf32>
    return
    // becomes
    linalg.generic ... outs(%out : memref<?xf32>)
    return
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LowerDynamicExpandShapesPass : Pass<"ember-lower-dynamic-expand-shapes", "::mlir::func::FuncOp"> {
  let summary = "Lower a memref.expand_shape into several dynamic dims to a view";
  let description = [{
    A `memref.expand_shape` of an identity-layout buffer that splits one dim
    into two or more dynamic dims becomes a `memref.reinterpret_cast` with
    the output sizes and their row-major strides. Upstream's
    expand-strided-metadata crashes on such an expansion (MLIR 22); shape-generic
    elementwise kernels make one when they unflatten their result.

    ```mlir
    %e = memref.expand_shape %m [[0, 1]] output_shape [%r, %c]
        : memref<?xf32> into memref<?x?xf32>
    // becomes
    %e = memref.reinterpret_cast %m to offset: [0], sizes: [%r, %c],
        strides: [%c, 1] : memref<?xf32> to memref<?x?xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

def PlanDynamicDimsPass : Pass<"ember-plan-dynamic-dims", "::mlir::func::FuncOp"> {
  let summary = "Plan the calls of a function with `?` dims: size checks and result sizes";
  let description = [{
    For a function of ember ops (as traced) with `?` dims in its arguments:
    follows every `?` dim back to an argument's dim or a constant through the
    ops that lower `?` dims (elementwise ops, broadcast_to, reductions,
    argmax, matmul, transpose, reshape, concat, gather, slices, windows),
    and writes on the function what its caller needs: `ember.dim_checks`,
    the sizes that must be equal for the call to be valid (each `{a, b, op,
    loc}`, with `divisible` where a must be a multiple of b instead: a
    reshape that splits a `?` dim), and `ember.result_dims`, per result the
    size of each dim, flattened. A size is `argument, dim, size` (argument
    -1 for the constant `size`), or one computed from such sizes as
    `-2, scale, divisor, n` followed by n + 1 of them: the first times
    scale over divisor (a reshape that merges or splits a `?` dim), plus the
    n others (a concatenation along a `?` dim). The caller checks them
    before it calls, so compiled code never reads past a buffer, and
    allocates the results. A `?` dim meeting any other op is an error
    naming it. Functions without `?` argument dims are left alone.
  }];
}

def ScheduleCollectivesPass : Pass<"ember-schedule-collectives", "::mlir::func::FuncOp"> {
  let summary = "Start each all_reduce where its operand is ready, use its result late";
  let description = [{
    An `ember.all_reduce` lowers to a start where the op is and a wait just
    before its result's first use, and the work between them runs while the
    collective travels. This pass makes that work as large as it can: each
    all_reduce, with the side-effect-free ops that only compute its operand
    (a gradient bucket's reshapes and concatenation), moves up to just after
    the definitions of its operands (never past another op with side
    effects, so every process keeps the collectives' order); the
    side-effect-free ops that use its result, directly or through each
    other, move down to just before their first use. In a training step the
    reduction of the last layers' gradients then overlaps the backward pass
    of the first layers.

    ```mlir
    %g2 = ember.matmul ...            // the last layer's gradient
    %g1 = ember.matmul ...            // the first layer's gradient
    %r2 = ember.all_reduce mean, %g2
    %u2 = ember.sub %w2, %r2
    // becomes
    %g2 = ember.matmul ...
    %r2 = ember.all_reduce mean, %g2  // started here
    %g1 = ember.matmul ...            // runs while %r2 travels
    %u2 = ember.sub %w2, %r2          // waits here
    ```
  }];
}

def SinkTransposesPass : Pass<"ember-sink-transposes", "::mlir::func::FuncOp"> {
  let summary = "Move transposes below the elementwise ops that read them";
  let description = [{
    An elementwise op whose operands are transposes by one permutation (or
    splat constants) becomes the transpose of the op on the untransposed
    operands, when that leaves no more transposes than before; repeated, a
    transpose travels down to the next transpose back and folds away (the
    ONNX importer's NCHW <-> NHWC pairs around each convolution).

    ```mlir
    %t = ember.transpose %x permutation = [0, 3, 1, 2] : tensor<1x4x4x8xf32> -> tensor<1x8x4x4xf32>
    %r = ember.relu %t : tensor<1x8x4x4xf32>
    // becomes
    %s = ember.relu %x : tensor<1x4x4x8xf32>
    %r = ember.transpose %s permutation = [0, 3, 1, 2] : tensor<1x4x4x8xf32> -> tensor<1x8x4x4xf32>
    ```
  }];
}

def ReadOnlyArgumentsPass : Pass<"ember-read-only-arguments", "::mlir::func::FuncOp"> {
  let summary = "Mark a public function's tensor arguments read-only for bufferization";
  let description = [{
    The tensor arguments of public functions (entry points: the caller's
    tensors, which ember never changes) get `bufferization.writable = false`,
    so that one-shot bufferization copies such an argument before an op
    writes into it in place (a scatter's loop) rather than writing into the
    caller's buffer. Private functions keep writable arguments.

    ```mlir
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32>
    // becomes
    func.func @f(%x: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def CopyRepeatedResultsPass : Pass<"ember-copy-repeated-results", "::mlir::func::FuncOp"> {
  let summary = "Give a buffer returned more than once a copy for each repeat";
  let description = [{
    After bufferization, a `func.return` that returns one buffer twice (a
    traced function returning a tensor twice, a value assigned to two
    variables) returns a fresh copy for every repeat, so that each result can
    become its own caller-provided buffer in buffer-results-to-out-params.

    ```mlir
    return %0, %0 : memref<2xf32>, memref<2xf32>
    // becomes
    %1 = memref.alloc() : memref<2xf32>
    memref.copy %0, %1 : memref<2xf32> to memref<2xf32>
    return %0, %1 : memref<2xf32>, memref<2xf32>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def ApproximateMathPass : Pass<"ember-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Rewrite float32 transcendentals as polynomial approximations";
  let description = [{
    `math.exp`, `math.expm1`, `math.log`, `math.log1p`, `math.log2` and
    `math.tanh` on f32 (scalars or vectors) become MLIR's polynomial
    approximations (a few ulp, with the special values of the libm
    functions: inf, nan, -0), plain arithmetic that LLVM vectorizes, where a
    libm call per element would not be. float64 and the other math ops keep
    their libm calls (sin and cos lose accuracy for large arguments when
    approximated).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::vector::VectorDialect"];
}

def AutodiffPass : Pass<"ember-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation of functions marked ember.differentiate";
  let description = [{
    For every `func.func @f` carrying the unit attribute `ember.differentiate`,
    adds `@f_vjp` taking f's arguments followed by one cotangent per result,
    and returning f's results followed by the gradient with respect to every
    floating-point argument (zeros where an argument does not reach a result).
    With `ember.differentiate = array<i64: 0, 2>` (JAX's argnums) the gradients
    are those of the listed arguments only, in that order; work that only
    other arguments' gradients need is then pruned by canonicalization.
    A forward op marked `ember.forward_value = N` is not recomputed: its
    value is the derivative's extra argument N, after the cotangents (a
    GradientTape passes the values it recorded while running eagerly).

    The forward ops are copied, then each op's vector-Jacobian product
    (`VJPOpInterface`, stated next to the op in EmberVJPs.cpp) is applied in
    reverse order, summing cotangents of values used more than once. `scf.if`
    gets a backward `scf.if` on the same condition; `scf.for` (constant bounds,
    tensor loop variables) saves each iteration's state in a forward pass and
    runs a reverse loop over it; `scf.while` is refused. Forward
    values are reused by the backward ops, not recomputed. Ops without a
    gradient (comparisons, argmax, integer ops, constants) contribute none.

    ```mlir
    func.func @square(%x: tensor<2xf32>) -> tensor<2xf32> attributes {ember.differentiate} {
      %0 = ember.mul %x, %x : tensor<2xf32>
      return %0 : tensor<2xf32>
    }
    // adds
    func.func @square_vjp(%x: tensor<2xf32>, %g: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %0 = ember.mul %x, %x : tensor<2xf32>
      %1 = ember.mul %g, %x : tensor<2xf32>
      %2 = ember.mul %g, %x : tensor<2xf32>
      %3 = ember.add %1, %2 : tensor<2xf32>
      return %0, %3 : tensor<2xf32>, tensor<2xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"];
}

#endif // EMBER_TRANSFORMS_PASSES_TD
