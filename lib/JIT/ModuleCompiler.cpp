//===- ModuleCompiler.cpp - ember-lower-to-llvm plus the LLVM JIT ---------===//

#include "ember/JIT/ModuleCompiler.h"

#include "ember/InitAll.h"
#include "ember/Pipelines/Pipelines.h"

#include "emberrt/runtime.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>
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

/// Kernels have small constant trip counts that LLVM's O3 would fully
/// unroll, nest after nest, which made compile time grow with the tensor size
/// (5 ms at 7 elements, 25 ms at 105). A low full-unroll threshold keeps only
/// tiny inner loops (a 10-wide matmul row becomes 8 + 2 SLP-vectorized lanes
/// with the accumulators in registers); partial and runtime unrolling are off.
/// Measured with callgrind: about -27% instructions per elementwise compile.
static void limitLoopUnrolling() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto &options = llvm::cl::getRegisteredOptions();
    const std::pair<const char *, const char *> settings[] = {
        {"unroll-threshold", "64"},
        {"unroll-runtime", "false"},
        {"unroll-allow-partial", "false"}};
    for (auto [name, value] : settings)
      if (auto it = options.find(name); it != options.end())
        (void)it->second->addOccurrence(0, name, value);
  });
}

std::unique_ptr<ExecutionEngine>
ember::jit::compileModule(ModuleOp module, std::string &error,
                          llvm::function_ref<void(ModuleOp)> afterLowering,
                          StageObserver observeStage) {
  (void)compilerRegistry(); // registers the passes the pipeline names
  auto print = [&](llvm::StringRef stage) {
    if (!observeStage)
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().enableDebugInfo());
    observeStage(stage, text);
  };
  static constexpr llvm::StringLiteral kStageNames[] = {"optimized", "linalg", "llvm"};
  for (auto [stage, name] : llvm::zip(kLoweringStages, kStageNames)) {
    PassManager pm(module.getContext());
    if (failed(ember::buildStagePipeline(pm, stage))) {
      error += "internal error: cannot build the ember-lower-to-llvm pipeline";
      return nullptr;
    }
    if (failed(pm.run(module)))
      return nullptr; // the diagnostics are in `error` through the caller's handler
    if (stage != LoweringStage::LLVMDialect)
      print(name);
  }
  if (afterLowering)
    afterLowering(module);
  print("llvm");

  std::unique_ptr<llvm::TargetMachine> machine = hostTargetMachine(error);
  if (!machine)
    return nullptr;
  ExecutionEngineOptions options;
  options.enableObjectDump = std::getenv("EMBER_KERNEL_OBJECT_DIR") != nullptr;
  limitLoopUnrolling();
  // The engine consumes its machine; the optimizer gets one of its own, kept
  // per thread, for the CPU's cost model.
  thread_local std::unique_ptr<llvm::TargetMachine> optimizerMachine = hostTargetMachine(error);
  if (!optimizerMachine)
    return nullptr;
  llvm::TargetMachine *target = optimizerMachine.get();
  // `transformer` is a function_ref: the callable must outlive create().
  std::function<llvm::Error(llvm::Module *)> optimize = makeOptimizingTransformer(3, 0, target);
  auto transform = [&](llvm::Module *llvmModule) -> llvm::Error {
    if (llvm::Error failure = optimize(llvmModule))
      return failure;
    if (observeStage) {
      std::string text;
      llvm::raw_string_ostream os(text);
      llvmModule->print(os, nullptr);
      observeStage("llvm-ir", text);
    }
    return llvm::Error::success();
  };
  options.transformer = transform;
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
