//===- InitAll.cpp - register ember's dialects, passes and pipelines -------===//

#include "ember/Init/InitAll.h"

#include "ember/Codegen/CPU/Passes.h"
#include "ember/Codegen/CUDA/Passes.h"
#include "ember/Conversion/Passes.h"
#include "ember/Dialect/Ember/IR/EmberOps.h"
#include "ember/Pipelines/Pipelines.h"
#include "ember/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <mutex>

void ember::registerAllDialects(mlir::DialectRegistry &registry) {
  // Linking libMLIR.so makes the full registration free, and partial
  // registration silently changes what passes do (RECIPE.md, pitfall 12).
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::ember::EmberDialect>();
}

void ember::registerAllPasses() {
  // Idempotent: the JIT and the tools may both ask, and the registries abort
  // on a name registered twice.
  static std::once_flag registered;
  std::call_once(registered, [] {
    mlir::registerAllPasses();
    mlir::ember::registerEmberConversionPasses();
    mlir::ember::registerEmberTransformsPasses();
    mlir::ember::registerEmberCPUCodegenPasses();
    mlir::ember::registerEmberCUDACodegenPasses();
    ember::registerPipelines();
  });
}
