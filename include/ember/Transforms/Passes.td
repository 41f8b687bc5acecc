//===- Passes.td - ember's transformation passes -----------*- tablegen -*-===//
#ifndef EMBER_TRANSFORMS_PASSES_TD
#define EMBER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineLoopNestsPass : Pass<"ember-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Outline the loop nests of large functions, sharing identical ones";
  let description = [{
    In every function with at least `min-loop-nests` top-level loop nests
    (`scf.for`/`scf.parallel` without results, i.e. after bufferization), each
    nest moves into a private function marked `noinline` (LLVM passthrough), called from where
    it was. Nests that are identical up to their captured values share one
    function.

    Rationale: LLVM's optimizer is superlinear in function size (a traced
    graph of 100 matmuls spent most of its compile time in loop rotation and
    MemorySSA updates of one huge function), and repeated layers compile once.

    ```mlir
    func.func @f(%a: memref<10xf32>, %b: memref<10xf32>) {
      scf.for %i = %c0 to %c10 step %c1 { ... %a ... }
      scf.for %i = %c0 to %c10 step %c1 { ... %b ... }
    }
    // becomes
    func.func @f(%a: memref<10xf32>, %b: memref<10xf32>) {
      call @f_nest(%a) : (memref<10xf32>) -> ()
      call @f_nest(%b) : (memref<10xf32>) -> ()
    }
    func.func private @f_nest(%arg0: memref<10xf32>) attributes {passthrough = ["noinline"]} {...}
    ```
  }];
  let options = [
    Option<"minLoopNests", "min-loop-nests", "unsigned", "8",
           "Outline only in functions with at least this many loop nests">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

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

def FuseMatmulEpiloguesPass : Pass<"ember-fuse-matmul-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Fuse the elementwise consumer of a blocked matmul into its block writes";
  let description = [{
    A register-blocked matmul (convert-ember-to-linalg marks its loop nest
    `ember.blocked_matmul` and its block write `ember.matmul_block_write`;
    the pass starts from the write, since loops of one iteration may have
    been folded away, e.g. the panel loop when C is one panel wide)
    whose only user is an elementwise `linalg.generic` of the same shape and
    type (a bias and activation, an SGD update, a ReLU's backward mask)
    applies that generic to each block of accumulators while they are still
    in registers: the generic's other inputs are read block by block (with
    its broadcasts), its body runs on vectors, and the result is written
    once instead of writing the product and reading it back.

    ```mlir
    %c = scf.for ... {ember.blocked_matmul} // ... vector.transfer_write %acc, ...
    %r = linalg.generic ... ins(%c, %bias) { addf, maximumf }
    // becomes
    %r = scf.for ... // ... %b = vector.transfer_read %bias ...; %v = addf %acc, %b;
                     //     %w = maximumf %v, ...; vector.transfer_write %w, ...
    ```
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def LowerFaultReportsPass : Pass<"ember-lower-fault-reports", "::mlir::ModuleOp"> {
  let summary = "Lower ember.fault_if to runtime calls, one per loop nest";
  let description = [{
    `ember.fault_if %c, %v {kind, site}` (made by convert-ember-to-linalg in
    the bodies of integer divisions and gathers) becomes `%v` and a call to
    the runtime's `emberrt_report_fault(kind, site)` when `%c` holds. Run
    after convert-linalg-to-loops: inside `scf.for` loops, a call would keep
    LLVM from vectorizing them, so the condition is or-ed into a flag on the
    stack instead, and the outermost loop is followed by one call if the flag
    is set. LLVM promotes the flag to a register, and the loop then carries
    an or-reduction, which vectorizes. Outside loops (or inside a while loop
    or a parallel loop) the call is made in place, under an `scf.if`.

    ```mlir
    scf.for %i = %c0 to %c8 step %c1 {
      ...
      %r = ember.fault_if %zero, %q {kind = 1 : i32, site = 0 : i32} : i32
      memref.store %r, %out[%i] : memref<8xi32>
    }
    // becomes
    %flag = memref.alloca() : memref<i1>    // at the top of the function
    memref.store %false, %flag[] : memref<i1>
    scf.for %i = %c0 to %c8 step %c1 {
      ...
      %seen = memref.load %flag[] : memref<i1>
      %any = arith.ori %seen, %zero : i1
      memref.store %any, %flag[] : memref<i1>
      memref.store %q, %out[%i] : memref<8xi32>
    }
    %fault = memref.load %flag[] : memref<i1>
    scf.if %fault {
      func.call @emberrt_report_fault(%c1_i32, %c0_i32) : (i32, i32) -> ()
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"];
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
