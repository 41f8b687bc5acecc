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

#endif // EMBER_TRANSFORMS_PASSES_TD
