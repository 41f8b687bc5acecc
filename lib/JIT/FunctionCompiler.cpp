//===- FunctionCompiler.cpp - the JIT's compile driver ---------------------===//
//
// What happens to a traced function once it is built: fault sites numbered
// for the runtime's reports, its stages observed (the caller's ir_stages,
// EMBER_DUMP_DIR, EMBER_KERNEL_OBJECT_DIR), the compiler library's pipeline
// (through the JIT's cache, ModuleCompiler), and the entry point looked up.
// The function comes from a trace::FunctionBuilder (lib/Trace).
//
//===----------------------------------------------------------------------===//

#include "ember/JIT/FunctionCompiler.h"

#include "ember/Compiler/Compiler.h"
#include "ember/Conversion/Passes.h"
#include "ember/Dialect/Ember/IR/EmberOps.h"
#include "ember/JIT/ModuleCompiler.h"
#include "ember/Trace/FinishedFunction.h"
#include "ember/Trace/TensorTypes.h"
#include "emberrt/cuda.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <chrono>
#include <cstdlib>

using namespace mlir;

namespace ember::jit {

static_assert(static_cast<int32_t>(mlir::ember::FaultKind::IntegerDivisionByZero) ==
              EMBERRT_FAULT_INTEGER_DIVISION_BY_ZERO);
static_assert(static_cast<int32_t>(mlir::ember::FaultKind::IntegerDivisionOverflow) ==
              EMBERRT_FAULT_INTEGER_DIVISION_OVERFLOW);
static_assert(static_cast<int32_t>(mlir::ember::FaultKind::IndexOutOfRange) ==
              EMBERRT_FAULT_INDEX_OUT_OF_RANGE);
static_assert(static_cast<int32_t>(mlir::ember::FaultKind::EmptyAxis) == EMBERRT_FAULT_EMPTY_AXIS);

/// Numbers the ops of `module` that can fault at run time (integer
/// division, gather, scatter, argmax over a `?` axis, collectives) with ember.fault_site, which
/// the code they lower to reports faults with, and lists them in that order. The numbers depend on
/// the module's structure only, not on its source locations, so that code
/// from the disk cache (keyed without locations) reports the same numbers.
static std::vector<FaultSite> numberFaultSites(ModuleOp module) {
  std::vector<FaultSite> sites;
  module.walk([&](Operation *op) {
    std::string detail;
    auto describeAxis = [&](RankedTensorType type, int64_t axis) {
      llvm::raw_string_ostream os(detail);
      os << "for axis " << axis;
      if (!type.isDynamicDim(axis)) // a `?` size is known at the call only
        os << " of size " << type.getDimSize(axis);
      os << " (" << type << ")";
    };
    if (auto gather = dyn_cast<mlir::ember::GatherOp>(op)) {
      describeAxis(gather.getOperand().getType(), gather.getAxis());
    } else if (auto scatter = dyn_cast<mlir::ember::ScatterOp>(op)) {
      describeAxis(scatter.getOperand().getType(), scatter.getAxis());
    } else if (auto argmax = dyn_cast<mlir::ember::ArgMaxOp>(op)) {
      RankedTensorType type = argmax.getOperand().getType();
      if (!type.isDynamicDim(argmax.getAxis()))
        return;
      llvm::raw_string_ostream os(detail);
      os << "axis " << argmax.getAxis() << " of " << type;
    } else if (isa<mlir::ember::AllReduceOp>(op)) {
      // A collective's failure (a lost process) is a fault of its own.
    } else if (!isa<mlir::ember::DivOp, mlir::ember::FloorDivOp, mlir::ember::ModOp>(op) ||
               !isa<IntegerType>(getElementTypeOrSelf(op->getResult(0).getType()))) {
      return;
    }
    op->setAttr(mlir::ember::kFaultSiteAttrName,
                IntegerAttr::get(IntegerType::get(op->getContext(), 32),
                                 static_cast<int64_t>(sites.size())));
    FaultSite site;
    site.opName = op->getName().getStringRef().str();
    site.location = mlir::ember::sourcePosition(op);
    site.detail = std::move(detail);
    sites.push_back(std::move(site));
  });
  return sites;
}

/// Facts only ember's callers know, added once the module is in the LLVM
/// dialect: outputs are fresh buffers and inputs are only read, so no pointer
/// argument aliases a written one (LLVM vectorizes without runtime overlap
/// checks); only the packed entry point is called (see
/// compiler::keepOnlyEntryPoints).
static void prepareForJit(ModuleOp lowered) {
  ::ember::compiler::keepOnlyEntryPoints(lowered, /*noAlias=*/true);
}

/// Writes a stage's `text` to `path` whole or not at all, into its directory
/// (made when missing, as XLA's --xla_dump_to); a dump that cannot be written
/// is reported once on stderr and does not stop the compile.
static void writeAtomically(const std::string &path, const std::string &text) {
  std::string error;
  (void)llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
  if (::ember::compiler::writeFileAtomically(path, {llvm::StringRef(text)}, error))
    return;
  static std::atomic<bool> reported{false};
  if (!reported.exchange(true))
    llvm::errs() << "ember: EMBER_DUMP_DIR: " << error << "\n";
}

/// Compiles `function`, the finished and verified function of `module`
/// traced as `name` (see compileFunction). Errors go to the context's
/// diagnostics, which the caller collects, or to `error`.
static bool compileTracedFunction(ModuleOp module, func::FuncOp function, const std::string &name,
                                  CompiledFunction &out, std::string &error,
                                  const StageSink &stages,
                                  const std::optional<std::vector<int64_t>> &differentiateWrt,
                                  Target target, Caller caller) {
  auto start = std::chrono::steady_clock::now();
  bool differentiate = differentiateWrt.has_value();
  if (differentiate)
    for (int64_t index : *differentiateWrt)
      if (index < 0 || index >= static_cast<int64_t>(function.getNumArguments())) {
        error += "internal error: differentiating with respect to a missing argument";
        return false;
      }
  if (differentiate)
    function->setAttr("ember.differentiate",
                       DenseI64ArrayAttr::get(function.getContext(), *differentiateWrt));
  // Stage dumps: to the caller and/or to EMBER_DUMP_DIR.
  const char *dumpDir = std::getenv("EMBER_DUMP_DIR");
  std::string dumpPrefix;
  int stageIndex = 0;
  auto observe = [&](llvm::StringRef stage, const std::string &text) {
    if (stages)
      stages(stage.str(), text);
    if (dumpDir)
      writeAtomically(dumpPrefix + "." + std::to_string(stageIndex) + "-" + stage.str() +
                          (stage == "llvm-ir" ? ".ll" : ".mlir"),
                      text);
    ++stageIndex;
  };
  bool observing = stages || dumpDir;
  if (observing) {
    std::string traced;
    llvm::raw_string_ostream os(traced);
    module.print(os, OpPrintingFlags().enableDebugInfo());
    if (dumpDir)
      dumpPrefix = (llvm::Twine(dumpDir) + "/" + name + "-" +
                    llvm::utohexstr(llvm::xxh3_64bits(traced), /*LowerCase=*/true).substr(0, 8))
                       .str();
    observe("traced", traced);
  }
  out.results.clear();
  SmallVector<Type> resultTypes(function.getResultTypes());
  if (differentiate) // ... then the gradients of the listed arguments
    for (int64_t index : *differentiateWrt)
      resultTypes.push_back(function.getArgumentTypes()[index]);
  for (Type type : resultTypes) {
    out.results.emplace_back();
    if (!trace::toSpec(type, out.results.back())) {
      error += "internal error: unsupported result type";
      return false;
    }
  }
  if (caller == Caller::Function) {
    if (failed(::ember::compiler::planDynamicDims(module)))
      return false; // the error went to the diagnostics
    out.dims = ::ember::compiler::dimPlanOf(function);
  }
  if (differentiate && !out.dims.resultDims.empty()) // a gradient has its argument's sizes
    for (int64_t index : *differentiateWrt) {
      auto type = cast<RankedTensorType>(function.getArgumentTypes()[index]);
      out.dims.resultDims.emplace_back();
      for (int64_t d = 0; d < type.getRank(); ++d)
        out.dims.resultDims.back().push_back(
            type.isDynamicDim(d) ? DimSource{static_cast<int>(index), static_cast<int>(d), 0}
                                 : DimSource{-1, 0, type.getDimSize(d)});
    }
  out.faultSites = numberFaultSites(module);
  std::string symbol = differentiate ? name + "_vjp" : name;
  // EMBER_KERNEL_OBJECT_DIR=<dir>: also write the machine code to
  // <dir>/<name>-<n>.o, to read with objdump (e.g. to see that it vectorized).
  std::string objectPath;
  if (const char *dir = std::getenv("EMBER_KERNEL_OBJECT_DIR")) {
    static std::atomic<int> counter{0};
    objectPath = (llvm::Twine(dir) + "/" + symbol + "-" + llvm::Twine(counter.fetch_add(1)) + ".o").str();
  }
  // GPU modules are loaded while compileModule returns: their kernels report
  // faults with a tag for these sites (reset however compileModule returns).
  struct FaultTagScope {
    explicit FaultTagScope(uint32_t tag) { emberrt_cuda_set_fault_tag(tag); }
    ~FaultTagScope() { emberrt_cuda_set_fault_tag(0); }
  } faultTag(target == Target::Cuda && !out.faultSites.empty() ? tagKernelFaultSites(out.faultSites)
                                                               : 0);
  bool cudaErrorBefore = target == Target::Cuda && *emberrt_cuda_last_error();
  std::unique_ptr<Executable> executable = compileModule(
      module, error, [](ModuleOp lowered) { prepareForJit(lowered); },
      observing ? StageObserver(observe) : StageObserver(), objectPath, target,
      /*splitDynamicSizes=*/caller == Caller::Function);
  if (!executable)
    return false;
  // A GPU module that failed to load on a machine with a GPU (its
  // constructor only records the error) is a failed compile, not code whose
  // launches would all fail. (Without a GPU, code is compiled all the same.)
  if (target == Target::Cuda && emberrt_cuda_available() && !cudaErrorBefore &&
      *emberrt_cuda_last_error()) {
    error += std::string("loading its GPU module: ") + emberrt_cuda_last_error();
    emberrt_cuda_clear_error();
    return false;
  }
  out.entry = reinterpret_cast<emberrt_entry_fn>(executable->lookup("ember_entry_" + symbol, error));
  if (!out.entry)
    return false;
  out.fromDiskCache = executable->fromDiskCache;
  out.owner = std::shared_ptr<Executable>(std::move(executable));
  out.compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return true;
}

bool compileFunction(trace::FunctionBuilder &builder, std::span<const int> results,
                     CompiledFunction &out, std::string &error, const StageSink &stages,
                     const std::optional<std::vector<int64_t>> &differentiateWrt, Target target,
                     Caller caller) {
  trace::DiagnosticCollector collector(trace::contextOf(builder), error);
  trace::FinishedFunction finished;
  if (!trace::finish(builder, results, finished)) {
    error += "internal error: invalid result ids";
    return false;
  }
  if (failed(verify(finished.module)))
    return false;
  return compileTracedFunction(finished.module, finished.function, finished.name, out, error,
                               stages, differentiateWrt, target, caller);
}

} // namespace ember::jit
