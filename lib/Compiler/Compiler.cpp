//===- Compiler.cpp - a module to an artifact, for any target -------------===//

#include "ember/Compiler/Compiler.h"

#include "LLVMModuleSteps.h"

#include "ember/Init/InitAll.h"
#include "ember/Support/AtomicFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;
using namespace ember::compiler;

//===----------------------------------------------------------------------===//
// Phases
//===----------------------------------------------------------------------===//

static constexpr PhaseInfo kPhases[] = {
    {Phase::Optimized, "optimized", ".mlir", "ember after graph optimization (ember-optimize)"},
    {Phase::Linalg, "linalg", ".mlir", "linalg on tensors, elementwise chains fused"},
    {Phase::LLVMDialect, "llvm", ".mlir", "MLIR's LLVM dialect (GPU kernels embedded)"},
    {Phase::LLVMIR, "llvm-ir", ".ll", "LLVM IR, optimized"},
    {Phase::Assembly, "asm", ".s", "the target's assembly"},
    {Phase::Object, "obj", ".o", "an object file"},
};

llvm::ArrayRef<PhaseInfo> ember::compiler::phases() { return kPhases; }

const PhaseInfo &ember::compiler::infoOf(Phase phase) {
  return kPhases[static_cast<size_t>(phase)];
}

std::optional<Phase> ember::compiler::phaseNamed(llvm::StringRef name) {
  for (const PhaseInfo &info : kPhases)
    if (info.name == name)
      return info.phase;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

Target Target::host() { return Target(); }

bool Target::parse(llvm::StringRef text, Target &out, std::string &error) {
  out = Target();
  if (text == "host" || text == "cpu")
    return true;
  if (text == "cuda" || text.starts_with("cuda:")) {
    out.kind = Kind::Cuda;
    llvm::StringRef chip = text.drop_front(std::min<size_t>(text.size(), 5));
    if (!chip.empty()) {
      unsigned number;
      if (!chip.starts_with("sm_") || chip.drop_front(3).getAsInteger(10, number) || number < 50) {
        error = "unknown CUDA target '" + text.str() + "': expected cuda:sm_XX (sm_50 or newer)";
        return false;
      }
      out.cuda.chip = chip.str();
    }
    return true;
  }
  error = "unknown target '" + text.str() + "': expected host, cuda or cuda:sm_XX";
  return false;
}

std::string Target::describe() const {
  if (kind == Kind::Cuda)
    return "cuda " + cuda.chip + " " + cuda.features + " " + cuda.format + " block " +
           std::to_string(cuda.blockSize) + (cuda.tf32 ? " tf32" : "");
  return "cpu " + (triple.empty() ? std::string("host") : triple) + " " + cpu + " " + features +
         " vector-bits " + std::to_string(vectorBits) + " bf16 " + bf16Instructions;
}

static void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

static std::string hostFeatures() {
  llvm::SubtargetFeatures features;
  for (auto &feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.first(), feature.second);
  return features.getString();
}

/// The machine code generator for `target`'s CPU (the host's for GPU code).
static std::unique_ptr<llvm::TargetMachine> targetMachine(const Target &target, unsigned optLevel,
                                                          std::string &error) {
  initializeTargets();
  bool cpuTarget = target.kind == Target::Kind::CPU;
  bool onThisMachine = !cpuTarget || target.triple.empty();
  std::string triple = onThisMachine ? llvm::sys::getProcessTriple()
                                     : llvm::Triple::normalize(target.triple);
  std::string lookupError;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), lookupError);
  if (!llvmTarget) {
    error = "unknown target triple '" + triple + "': " + lookupError;
    return nullptr;
  }
  std::string cpu = cpuTarget && !target.cpu.empty() ? target.cpu
                    : onThisMachine                  ? llvm::sys::getHostCPUName().str()
                                                     : "generic";
  std::string features = cpuTarget && !target.features.empty() ? target.features
                         : onThisMachine && (!cpuTarget || target.cpu.empty())
                             ? hostFeatures()
                             : "";
  llvm::Triple parsed(triple);
  if (!knowsCpu(*llvmTarget, parsed, cpu)) {
    error = "unknown CPU '" + cpu + "' for " + triple;
    return nullptr;
  }
  llvm::CodeGenOptLevel level = optLevel == 0   ? llvm::CodeGenOptLevel::None
                                : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                                : llvm::CodeGenOptLevel::Aggressive;
  // Constructors (a GPU module's kernel loads) in .init_array, as clang puts
  // them: the loader and lld run nothing from the old .ctors sections.
  llvm::TargetOptions targetOptions;
  targetOptions.UseInitArray = true;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      parsed, cpu, features, targetOptions, llvm::Reloc::PIC_, std::nullopt, level));
  if (!machine)
    error = "cannot generate code for " + triple + " (" + cpu + ")";
  return machine;
}

bool ember::compiler::knowsCpu(const llvm::Target &target, const llvm::Triple &triple,
                               llvm::StringRef cpu) {
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(target.createMCSubtargetInfo(triple, "", ""));
  return subtarget && subtarget->isCPUStringValid(cpu);
}

unsigned ember::compiler::vectorBitsOf(const llvm::MCSubtargetInfo &subtarget) {
  if (!subtarget.getTargetTriple().isX86())
    return 128;
  if (subtarget.checkFeatures("+avx512f"))
    return 512;
  if (subtarget.checkFeatures("+avx"))
    return 256;
  return 128;
}

/// bfloat16 matmul instructions, least first.
static constexpr llvm::StringLiteral kBF16Instructions[] = {"none", "avx512bf16", "amx"};

bool ember::compiler::isBF16Instructions(llvm::StringRef name) {
  return llvm::is_contained(kBF16Instructions, name);
}

std::string ember::compiler::bf16InstructionsOf(const llvm::MCSubtargetInfo &subtarget,
                                                llvm::StringRef limit) {
  bool x86 = subtarget.getTargetTriple().isX86();
  const bool has[] = {true, x86 && subtarget.checkFeatures("+avx512bf16"),
                      x86 && subtarget.checkFeatures("+amx-tile,+amx-bf16")};
  if (!isBF16Instructions(limit))
    return "none";
  size_t most = llvm::find(kBF16Instructions, limit) - std::begin(kBF16Instructions);
  for (size_t i = std::min<size_t>(most, std::size(has) - 1); i > 0; --i)
    if (has[i])
      return kBF16Instructions[i].str();
  return "none";
}

/// Long elementwise bodies (a traced chain of 100 ops fused into one loop)
/// are chains of dependent instructions: one vector's result takes the
/// latency of every op in turn, and the out-of-order window holds little
/// more than one iteration. LLVM's vectorizer interleaves only short loops,
/// so innermost loops of many scalar floating-point operations are marked
/// `llvm.loop.interleave.count`: several independent vectors per iteration,
/// their instructions side by side. (Loops of vector operations, the blocked
/// matmuls, are left alone.)
static void interleaveLongLoopBodies(llvm::Module &module) {
  // Floating-point operations per iteration: from kLongBody, up to 4
  // vectors side by side, within kMaxInterleavedBody operations (longer
  // bodies compile slowly enough: LLVM's time grows with the body).
  constexpr int64_t kLongBody = 16, kMaxInterleavedBody = 1024, kMaxInterleave = 4;
  llvm::LLVMContext &context = module.getContext();
  forEachLoop(module, [&](llvm::Loop &loop) {
    if (!loop.isInnermost())
      return;
    int64_t floatOps = 0;
    bool vectors = false;
    for (llvm::BasicBlock *block : loop.blocks())
      for (llvm::Instruction &instruction : *block) {
        vectors |= instruction.getType()->isVectorTy();
        if (instruction.getType()->isFloatingPointTy() && !isa<llvm::LoadInst>(instruction))
          ++floatOps;
      }
    int64_t interleave =
        std::min(kMaxInterleave, kMaxInterleavedBody / std::max<int64_t>(floatOps, 1));
    if (vectors || floatOps < kLongBody || interleave < 2)
      return;
    llvm::Metadata *count[] = {
        llvm::MDString::get(context, "llvm.loop.interleave.count"),
        llvm::ConstantAsMetadata::get(
            llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), interleave))};
    addLoopProperty(loop, llvm::MDNode::get(context, count));
  });
}

void ember::compiler::forEachLoop(llvm::Module &module,
                                  llvm::function_ref<void(llvm::Loop &)> body) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loops(dominators);
    for (llvm::Loop *loop : loops.getLoopsInPreorder())
      body(*loop);
  }
}

void ember::compiler::addLoopProperty(llvm::Loop &loop, llvm::MDNode *property) {
  llvm::SmallVector<llvm::Metadata *> operands{nullptr, property};
  if (llvm::MDNode *existing = loop.getLoopID())
    for (unsigned i = 1; i < existing->getNumOperands(); ++i)
      operands.push_back(existing->getOperand(i));
  llvm::MDNode *id = llvm::MDNode::getDistinct(loop.getHeader()->getContext(), operands);
  id->replaceOperandWith(0, id);
  loop.setLoopID(id);
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

bool ember::compiler::writeFileAtomically(const std::string &path,
                                          llvm::ArrayRef<llvm::StringRef> pieces,
                                          std::string &error, bool sync) {
  std::vector<std::string_view> views(pieces.begin(), pieces.end());
  if (std::string why = support::writeFileWhole(path, views, sync); !why.empty()) {
    error = "cannot write " + path + ": " + why;
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

FailureOr<int> ember::compiler::markEntryPoints(ModuleOp module) {
  // `?` dims: the caller checks and sizes them by the function's plan.
  if (failed(planDynamicDims(module)))
    return failure();
  int exported = 0;
  for (auto function : module.getOps<func::FuncOp>())
    if (function.isPublic() && !function.isDeclaration()) {
      function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        UnitAttr::get(module.getContext()));
      ++exported;
    }
  return exported;
}

void ember::compiler::keepOnlyEntryPoints(ModuleOp lowered, bool noAlias) {
  SmallVector<LLVM::LLVMFuncOp> entries;
  for (auto entry : lowered.getOps<LLVM::LLVMFuncOp>())
    if (entry.getName().starts_with("ember_entry_"))
      entries.push_back(entry);
  UnitAttr unit = UnitAttr::get(lowered.getContext());
  for (LLVM::LLVMFuncOp entry : entries) {
    std::string name = entry.getName().drop_front(strlen("ember_entry_")).str();
    auto function = lowered.lookupSymbol<LLVM::LLVMFuncOp>(name);
    auto wrapper = lowered.lookupSymbol<LLVM::LLVMFuncOp>("_mlir_ciface_" + name);
    if (!function || !wrapper)
      continue;
    if (noAlias)
      for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
        if (isa<LLVM::LLVMPointerType>(function.getArgument(i).getType()))
          function.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), unit);
    for (LLVM::LLVMFuncOp inner : {function, wrapper}) {
      inner.setLinkage(LLVM::Linkage::Internal);
      inner.setAlwaysInline(true);
    }
  }
}

static std::string textOf(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo());
  return text;
}

/// Whether any value of `module` is a tensor or memref with `?` dims: its
/// GPU kernels then take memref descriptors, which carry the sizes.
static bool hasDynamicShapes(ModuleOp module) {
  auto dynamic = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasRank() && !shaped.hasStaticShape();
  };
  return module
      .walk([&](Operation *op) {
        bool found = llvm::any_of(op->getResultTypes(), dynamic);
        for (Region &region : op->getRegions())
          for (Block &block : region)
            found |= llvm::any_of(block.getArgumentTypes(), dynamic);
        return found ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

LogicalResult ember::compiler::compile(ModuleOp module, const CompileOptions &options,
                                       std::string &out, std::string &error) {
  if (options.optLevel > 3) {
    error = "optimization level " + std::to_string(options.optLevel) + " is not 0 to 3";
    return failure();
  }
  bool cuda = options.target.kind == Target::Kind::Cuda;
  auto reached = [&](Phase phase) { return phase == options.stopAfter; };
  auto observe = [&](Phase phase, const std::string &text) {
    if (options.observePhase)
      options.observePhase(phase, text);
  };

  // The machine code generator first: a CPU target's vector width shapes
  // the blocked matmuls of the linalg stage.
  std::unique_ptr<llvm::TargetMachine> machine =
      targetMachine(options.target, options.optLevel, error);
  if (!machine)
    return failure();
  unsigned vectorBits = cuda                      ? 0
                        : options.target.vectorBits ? options.target.vectorBits
                                                    : vectorBitsOf(*machine->getMCSubtargetInfo());
  std::string bf16Instructions =
      cuda ? "none"
           : bf16InstructionsOf(*machine->getMCSubtargetInfo(), options.target.bf16Instructions);

  // ember -> ... -> the LLVM dialect, stage by stage.
  ember::registerAllPasses();
  static constexpr Phase kStagePhases[] = {Phase::Optimized, Phase::Linalg, Phase::LLVMDialect};
  for (auto [stage, phase] : llvm::zip(kLoweringStages, kStagePhases)) {
    PassManager pm(module.getContext());
    CudaTargetOptions cudaOptions = options.target.cuda;
    if (cuda && stage == LoweringStage::LLVMDialect)
      cudaOptions.barePointers = !hasDynamicShapes(module);
    std::string text =
        cuda ? cudaStagePipelineText(stage, cudaOptions)
             : stagePipelineText(stage, vectorBits, options.splitDynamicSizes, bf16Instructions);
    if (failed(parsePassPipeline(text, pm))) {
      error = "internal error: cannot build the pass pipeline " + text;
      return failure();
    }
    if (options.printIRAfterAll) {
      module.getContext()->disableMultithreading();
      pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                          [](Pass *, Operation *) { return true; },
                          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    }
    if (options.timing)
      pm.enableTiming();
    if (!options.crashReproducerPath.empty())
      pm.enableCrashReproducerGeneration(options.crashReproducerPath);
    if (failed(pm.run(module)))
      return failure(); // the diagnostics went to the caller's handler
    if (phase == Phase::LLVMDialect && options.afterLowering)
      options.afterLowering(module);
    if (options.observePhase || reached(phase)) {
      std::string printed = textOf(module);
      observe(phase, printed);
      if (reached(phase)) {
        out = std::move(printed);
        return success();
      }
    }
  }

  // LLVM IR, optimized for the target, then machine code.
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    error = "internal error: translation to LLVM IR failed";
    return failure();
  }
  if (options.exposeInitializers)
    exposeInitializers(*llvmModule);
  if (options.unrolling == Unrolling::CompileTimeFirst)
    limitLoopUnrolling(*llvmModule);
  if (options.afterTranslation)
    options.afterTranslation(*llvmModule);
  // Full-width vectors: LLVM's tuning of AVX-512 CPUs vectorizes loops with
  // 256-bit vectors (older chips slowed their clock for 512-bit ones); ember's
  // loops are long, compute-bound ones included, and get all 16 f32 lanes.
  if (!cuda && vectorBits >= 512)
    for (llvm::Function &function : *llvmModule)
      if (!function.isDeclaration())
        function.addFnAttr("prefer-vector-width", std::to_string(vectorBits));
  if (!cuda)
    interleaveLongLoopBodies(*llvmModule);
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  if (llvm::Error failed =
          makeOptimizingTransformer(options.optLevel, 0, machine.get())(llvmModule.get())) {
    error = llvm::toString(std::move(failed));
    return failure();
  }
  if (options.observePhase || reached(Phase::LLVMIR)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    observe(Phase::LLVMIR, text);
    if (reached(Phase::LLVMIR)) {
      out = std::move(text);
      return success();
    }
  }
  llvm::SmallVector<char, 0> emitted;
  {
    llvm::raw_svector_ostream os(emitted);
    llvm::legacy::PassManager codegen;
    llvm::CodeGenFileType type = reached(Phase::Assembly) ? llvm::CodeGenFileType::AssemblyFile
                                                          : llvm::CodeGenFileType::ObjectFile;
    if (machine->addPassesToEmitFile(codegen, os, nullptr, type)) {
      error = "internal error: the target cannot emit " + infoOf(options.stopAfter).name.str();
      return failure();
    }
    codegen.run(*llvmModule);
  }
  out.assign(emitted.data(), emitted.size());
  return success();
}
