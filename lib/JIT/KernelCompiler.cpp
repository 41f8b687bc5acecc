//===- KernelCompiler.cpp - one ember op as a compiled kernel -------------===//
//
// An eager op is a one-op function: arguments for the inputs, the op, its
// result returned. The function is named after the op ("ember.add" ->
// "ember_add") so kernel dumps say what they are.
//
//===----------------------------------------------------------------------===//

#include "ember/JIT/KernelCompiler.h"

#include "ember/Conversion/Passes.h"
#include "ember/Dialect/Ember/IR/EmberOps.h"
#include "ember/JIT/FunctionCompiler.h"
#include "ember/Trace/FinishedFunction.h"
#include "ember/Trace/TensorTypes.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ember::jit {

/// The size operands of a broadcast of `request`'s inputs (values
/// `operands`) to `target`: for each kDynamic dim of it, the run-time size
/// of an input whose aligned dim is kDynamic too (one exists: a broadcast
/// dim above 1 is some input's own size).
static bool broadcastSizes(trace::FunctionBuilder &builder, const KernelRequest &request,
                           std::span<const int> operands, const TensorSpec &target,
                           std::vector<int> &sizes, std::string &error) {
  for (int d = 0; d < target.rank; ++d) {
    if (target.dims[d] != kDynamic)
      continue;
    int source = -1, sourceDim = -1;
    for (size_t i = 0; i < request.inputs.size() && source < 0; ++i) {
      const TensorSpec &spec = request.inputs[i];
      int aligned = d - (target.rank - spec.rank);
      if (aligned >= 0 && spec.dims[aligned] == kDynamic) {
        source = static_cast<int>(i);
        sourceDim = aligned;
      }
    }
    if (source < 0) {
      error = "internal error: no operand of '" + std::string(request.opName) +
              "' gives the size of dynamic broadcast dim " + std::to_string(d);
      return false;
    }
    sizes.push_back(builder.addDim(operands[source], sourceDim));
  }
  return true;
}

/// Builds the one-op function; null with `error` set if the op is invalid.
static std::unique_ptr<trace::FunctionBuilder> buildKernel(const KernelRequest &request,
                                                           int &result, std::string &error) {
  std::string name(request.opName);
  for (char &c : name)
    if (c == '.')
      c = '_';
  auto builder = std::make_unique<trace::FunctionBuilder>(name);
  std::vector<int> arguments;
  for (const TensorSpec &spec : request.inputs)
    arguments.push_back(builder->addArgument(spec));
  std::vector<int> operands = arguments;
  if (!request.broadcastShape.empty()) {
    TensorSpec target;
    target.rank = static_cast<int>(request.broadcastShape.size());
    std::copy(request.broadcastShape.begin(), request.broadcastShape.end(), target.dims);
    for (size_t i = 0; i < operands.size(); ++i) {
      const TensorSpec &spec = request.inputs[i];
      if (spec.rank == target.rank && std::equal(spec.dims, spec.dims + spec.rank, target.dims))
        continue;
      target.dtype = spec.dtype;
      std::vector<int> broadcastOperands = {arguments[i]};
      if (!broadcastSizes(*builder, request, arguments, target, broadcastOperands, error))
        return nullptr;
      trace::OpCall broadcast{"ember.broadcast_to", {}, {}, &target, request.loc};
      TensorSpec unused;
      operands[i] = builder->addOp(broadcast, broadcastOperands, unused, error);
      if (operands[i] < 0)
        return nullptr;
    }
  }
  trace::OpCall call{request.opName, request.attrSchema, request.attrWords, request.resultType,
                     request.loc};
  TensorSpec spec;
  result = builder->addOp(call, operands, spec, error);
  return result < 0 ? nullptr : std::move(builder);
}

bool checkKernel(const KernelRequest &request, KernelCheck &out, std::string &error) {
  int result;
  std::unique_ptr<trace::FunctionBuilder> builder = buildKernel(request, result, error);
  if (!builder)
    return false;
  trace::FinishedFunction function;
  if (!trace::finish(*builder, {&result, 1}, function)) {
    error = "internal error: '" + std::string(request.opName) + "' built no result";
    return false;
  }
  trace::toSpec(function.function.getResultTypes().front(), out.result);
  // On the CPU and the GPU (whose kernels then take memref descriptors), but
  // for a GPU matmul: with `?` N and K it would run on the CUDA cores, off
  // tensor cores and TF32, until its shape's specialization landed (its
  // values changing then under TF32).
  out.shapeGeneric = !(request.target == Target::Cuda && request.opName == "ember.matmul");
  // A broadcast_to called on its own has result sizes its operand does not
  // give (inside an op's kernel they come from the other operands).
  if (request.opName == "ember.broadcast_to")
    out.shapeGeneric = false;
  // A reshape's target shape is its result type, which a generic kernel
  // would need as run-time sizes too.
  if (request.opName == "ember.reshape")
    out.shapeGeneric = false;
  // A slice stays per shape: its bounds (attributes, the call's own) must
  // lie inside its `?` dims, which a caller checks from the DimPlan, and an
  // eager kernel has none. Windows lower a `?` batch, which theirs then
  // generalizes alone.
  function.function.walk([&](mlir::Operation *op) {
    if (!llvm::isa<mlir::ember::EmberDialect>(op->getDialect()))
      return;
    if (llvm::isa<mlir::ember::Conv2DOp>(op))
      out.batchOperands = {true, false}; // the input, not the filter
    else if (llvm::isa<mlir::ember::MaxPool2DOp, mlir::ember::AvgPool2DOp,
                       mlir::ember::MaxPool2DGradOp, mlir::ember::AvgPool2DGradOp,
                       mlir::ember::MaxPool2DGatherOp>(op))
      out.batchOperands.assign(op->getNumOperands(), true);
    else if (!mlir::ember::lowersDynamicShapes(op) || llvm::isa<mlir::ember::SliceOp>(op))
      out.shapeGeneric = false;
  });
  return true;
}

bool compileKernel(const KernelRequest &request, CompiledKernel &out, std::string &error) {
  int result;
  std::unique_ptr<trace::FunctionBuilder> builder = buildKernel(request, result, error);
  if (!builder)
    return false;
  CompiledFunction function;
  if (!compileFunction(*builder, {&result, 1}, function, error, {}, std::nullopt, request.target,
                       Caller::EagerKernel))
    return false;
  out.entry = function.entry;
  out.result = function.results.front();
  out.compileSeconds = function.compileSeconds;
  out.fromDiskCache = function.fromDiskCache;
  out.owner = std::move(function.owner);
  out.faultSites = std::move(function.faultSites);
  return true;
}

std::string faultMessage(int32_t kind, const FaultSite *site) {
  switch (kind) {
  case EMBERRT_FAULT_INTEGER_DIVISION_BY_ZERO:
    return "integer division by zero";
  case EMBERRT_FAULT_INTEGER_DIVISION_OVERFLOW:
    return "integer division overflow: the most negative integer divided by -1";
  case EMBERRT_FAULT_EMPTY_AXIS:
    return "the reduced axis is empty: it has no maximum" +
           (site && !site->detail.empty() ? " (" + site->detail + ")" : std::string());
  case EMBERRT_FAULT_INDEX_OUT_OF_RANGE:
    return "index out of range" +
           (site && !site->detail.empty() ? " " + site->detail : std::string());
  case EMBERRT_FAULT_COLLECTIVE:
    return emberrt_fault_message();
  default:
    return "fault " + std::to_string(kind) + " in compiled code";
  }
}

namespace {
struct TaggedFaultSites {
  std::mutex mutex;
  std::vector<std::vector<FaultSite>> byTag; ///< tag n at n - 1
  std::map<std::string, uint32_t> tagOf;     ///< by the sites' text: one tag per list
};
TaggedFaultSites &taggedFaultSites() {
  static TaggedFaultSites *instance = new TaggedFaultSites; // outlives every kernel
  return *instance;
}
} // namespace

uint32_t tagKernelFaultSites(std::vector<FaultSite> sites) {
  std::string text;
  for (const FaultSite &site : sites)
    text += site.opName + '\0' + site.location + '\0' + site.detail + '\0';
  TaggedFaultSites &tagged = taggedFaultSites();
  std::lock_guard<std::mutex> lock(tagged.mutex);
  auto [it, added] = tagged.tagOf.try_emplace(std::move(text), 0);
  if (added) {
    tagged.byTag.push_back(std::move(sites));
    it->second = static_cast<uint32_t>(tagged.byTag.size());
  }
  return it->second;
}

std::vector<FaultSite> kernelFaultSites(uint32_t tag) {
  TaggedFaultSites &tagged = taggedFaultSites();
  std::lock_guard<std::mutex> lock(tagged.mutex);
  return tag >= 1 && tag <= tagged.byTag.size() ? tagged.byTag[tag - 1] : std::vector<FaultSite>();
}

} // namespace ember::jit
