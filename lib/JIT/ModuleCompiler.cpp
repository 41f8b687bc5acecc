//===- ModuleCompiler.cpp - ember-lower-to-llvm plus the LLVM JIT ---------===//

#include "ember/JIT/ModuleCompiler.h"

#include "ember/InitAll.h"
#include "ember/Pipelines/Pipelines.h"

#include "emberrt/runtime.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <mutex>

using namespace mlir;

const DialectRegistry &ember::jit::compilerRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    ember::registerAllDialects(*r);
    // The pipeline is built from its textual form, which names registered passes.
    ember::registerAllPasses();
    return r;
  }();
  return *registry;
}

/// A target machine for this CPU: its name, every feature it has (AVX-512 on
/// the machines ember runs on) and aggressive codegen. Setting the level on
/// the builder is what takes effect (RECIPE.md, pitfall 18).
static std::unique_ptr<llvm::TargetMachine> hostTargetMachine(std::string &error) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    error += llvm::toString(builder.takeError());
    return nullptr;
  }
  builder->setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  for (auto &feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.first(), feature.second);
  builder->addFeatures(features.getFeatures());
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto machine = builder->createTargetMachine();
  if (!machine) {
    error += llvm::toString(machine.takeError());
    return nullptr;
  }
  return std::move(*machine);
}

std::unique_ptr<ExecutionEngine> ember::jit::compileModule(ModuleOp module, std::string &error) {
  (void)compilerRegistry(); // registers the passes the pipeline names
  PassManager pm(module.getContext());
  if (failed(ember::buildLowerToLLVMPipeline(pm))) {
    error += "internal error: cannot build the ember-lower-to-llvm pipeline";
    return nullptr;
  }
  if (failed(pm.run(module)))
    return nullptr; // the diagnostics are in `error` through the caller's handler

  std::unique_ptr<llvm::TargetMachine> machine = hostTargetMachine(error);
  if (!machine)
    return nullptr;
  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, machine.get());
  auto engine = ExecutionEngine::create(module, options, std::move(machine));
  if (!engine) {
    error += llvm::toString(engine.takeError());
    return nullptr;
  }
  // Runtime functions that lowered code may call, served by ember's runtime.
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("memrefCopy")] = {llvm::orc::ExecutorAddr::fromPtr(&emberrt_memref_copy),
                                       llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return std::move(*engine);
}
