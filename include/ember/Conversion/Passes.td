//===- Passes.td - ember's conversion passes ---------------*- tablegen -*-===//
#ifndef EMBER_CONVERSION_PASSES_TD
#define EMBER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertEmberToLinalgPass : Pass<"convert-ember-to-linalg"> {
  let summary = "Lower ember ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Every ember op becomes upstream ops on tensors: elementwise ops and
    broadcasts become `linalg.generic` (one loop nest each, fusable by
    `linalg-fuse-elementwise-ops`), reductions `linalg.reduce`, matmul
    `linalg.matmul`/`linalg.batch_matmul`, transpose `linalg.transpose`, and
    reshape, slice and concat the matching `tensor` ops.

    ```mlir
    %r = ember.add %a, %b : tensor<4xf32>
    // becomes
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic {...} ins(%a, %b : ...) outs(%e : ...) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    ```

    Ops that can fault never trap: integer `div`, `floordiv` and `mod` divide
    by 1 where the divisor is 0 or where the most negative integer is divided
    by -1, and `gather` reads a clamped index where one is out of range. With
    `report-faults` the guarded scalar goes through `ember.fault_if`, which
    reports the fault (kind, and the op's `ember.fault_site` attribute, the
    number the front end gave it, or -1) when its condition holds;
    `ember-lower-fault-reports` makes it calls to the runtime once there are
    loops. `mod` of the most negative integer by -1 is 0, not a fault.

    ```mlir
    %q = ember.div %a, %b {ember.fault_site = 0 : i32} : tensor<4xi32>
    // has the body
    %zero = arith.cmpi eq, %y, %c0 : i32
    %overflow = arith.andi (%x == INT_MIN), (%y == -1)
    %bad = arith.ori %zero, %overflow : i1
    %d = arith.select %bad, %c1, %y : i32
    %q = arith.divsi %x, %d : i32
    %q1 = ember.fault_if %zero, %q {kind = 1 : i32, site = 0 : i32} : i32
    %q2 = ember.fault_if %overflow, %q1 {kind = 2 : i32, site = 0 : i32} : i32
    linalg.yield %q2 : i32
    ```
  }];
  let options = [
    Option<"reportFaults", "report-faults", "bool", "true",
           "Report integer division by zero and gather indices out of range "
           "(ember.fault_if, for the runtime); false: only guard them (GPU "
           "kernels, which cannot call the host runtime)">,
    Option<"narrowMatmulOperands", "narrow-matmul-operands", "bool", "false",
           "Matmuls of float16 and bfloat16 keep their operands 16-bit (the "
           "linalg.matmul widens each product to a float32 accumulator) for "
           "targets that multiply them natively (GPU tensor cores); false: the "
           "operands are widened to float32 tensors first">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def EmitEntryPointsPass : Pass<"ember-emit-entry-points", "::mlir::ModuleOp"> {
  let summary = "Add one packed C entry point per C-interface function";
  let description = [{
    For every defined `_mlir_ciface_<f>` (made for functions carrying
    `llvm.emit_c_interface`) that returns nothing, adds
    `void ember_entry_<f>(void **args)`, where `args[i]` points to the memref
    descriptor of argument `i` (inputs, then output buffers). This is the one
    ABI ember's runtime calls, for JIT and ahead-of-time code alike.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AnnotateNoAliasPass : Pass<"ember-annotate-noalias", "::mlir::ModuleOp"> {
  let summary = "Mark lowered memref arguments that ember proved exclusive as noalias";
  let description = [{
    Functions whose memref arguments ember knows to be exclusive (see
    `ember-outline-loop-nests`) carry `ember.noalias_memrefs`, the indices of
    those arguments' pointers after lowering to the LLVM dialect. This pass,
    run on the LLVM dialect, puts `llvm.noalias` on those pointers and drops
    the attribute. (func-to-llvm does not carry `llvm.noalias` from memref
    arguments to their pointers.)
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // EMBER_CONVERSION_PASSES_TD
