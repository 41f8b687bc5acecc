//===- DynamicDims.cpp - the plans of functions with ? dims ---------------===//
//
// ember-plan-dynamic-dims writes a function's DimPlan as attributes; this
// runs it (by name, as the pipelines name passes) and reads them back for
// the JIT and ember-compile's header.
//
//===----------------------------------------------------------------------===//

#include "ember/Compiler/Compiler.h"

#include "ember/Init/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

/// Runs the pipeline `text` on `module`.
static LogicalResult runPipeline(ModuleOp module, const std::string &text) {
  ember::registerAllPasses();
  PassManager pm(module.getContext());
  if (failed(parsePassPipeline(text, pm)))
    return module.emitError("internal error: cannot build the pass pipeline " + text);
  return pm.run(module);
}

LogicalResult ember::compiler::planDynamicDims(ModuleOp module) {
  const std::string plan = "func.func(ember-plan-dynamic-dims)";
  // A function that calls another (a gradient traced inside it, whose
  // derivative ember-autodiff generates) is planned once optimized: on a
  // copy, its calls differentiated and inlined; the plans come back by name.
  bool calls = false;
  module.walk([&](func::CallOp) { calls = true; });
  if (!calls)
    return runPipeline(module, plan);
  OwningOpRef<ModuleOp> copy = module.clone();
  if (failed(runPipeline(*copy, stagePipelineText(LoweringStage::Optimized))) ||
      failed(runPipeline(*copy, plan)))
    return failure();
  for (auto function : copy->getOps<func::FuncOp>()) {
    auto original = module.lookupSymbol<func::FuncOp>(function.getName());
    if (!original)
      continue;
    for (StringRef name : {"ember.dim_checks", "ember.result_dims"}) {
      if (Attribute value = function->getAttr(name))
        original->setAttr(name, value);
      else
        original->removeAttr(name);
    }
  }
  return success();
}

/// The DimSource at the front of `words` (ember-plan-dynamic-dims' layout:
/// (argument, dim, size), or (-2, scale, divisor, terms) or (-3, scale,
/// divisor, terms, factors), then the base, the factors and the terms as
/// such triples), which it drops.
static ember::DimSource takeSource(ArrayRef<int64_t> &words) {
  // The pass wrote them (compiler::planDynamicDims drops any the input had):
  // a short list is an internal error, not a read past it.
  auto plain = [&] {
    if (words.size() < 3)
      llvm::report_fatal_error("ember: a DimPlan size is cut short");
    ember::DimSource source{static_cast<int>(words[0]), static_cast<int>(words[1]), words[2]};
    words = words.drop_front(3);
    return source;
  };
  if (words.empty() || (words[0] != -2 && words[0] != -3))
    return plain();
  bool product = words[0] == -3;
  size_t header = product ? 5 : 4;
  if (words.size() < header)
    llvm::report_fatal_error("ember: a DimPlan size is cut short");
  int64_t scale = words[1], divisor = words[2], terms = words[3], factors = product ? words[4] : 0;
  words = words.drop_front(header);
  ember::DimSource source = plain();
  source.scale = scale;
  source.divisor = divisor;
  for (int64_t f = 0; f < factors; ++f)
    source.times.push_back(plain());
  for (int64_t t = 0; t < terms; ++t)
    source.plus.push_back(plain());
  return source;
}

static ember::DimSource sourceOf(ArrayRef<int64_t> words) { return takeSource(words); }

ember::DimPlan ember::compiler::dimPlanOf(Operation *function) {
  DimPlan plan;
  auto checks = function->getAttrOfType<ArrayAttr>("ember.dim_checks");
  auto results = function->getAttrOfType<ArrayAttr>("ember.result_dims");
  if (!checks || !results)
    return plan;
  for (auto check : checks.getAsRange<DictionaryAttr>())
    plan.checks.push_back({sourceOf(check.getAs<DenseI64ArrayAttr>("a").asArrayRef()),
                           sourceOf(check.getAs<DenseI64ArrayAttr>("b").asArrayRef()),
                           check.getAs<StringAttr>("op").str(),
                           check.getAs<StringAttr>("loc").str(),
                           check.contains("divisible")  ? ember::DimCheck::Kind::Divisible
                           : check.contains("at_least") ? ember::DimCheck::Kind::AtLeast
                                                        : ember::DimCheck::Kind::Equal});
  for (auto dims : results.getAsRange<DenseI64ArrayAttr>()) {
    plan.resultDims.emplace_back();
    for (ArrayRef<int64_t> words = dims.asArrayRef(); !words.empty();)
      plan.resultDims.back().push_back(takeSource(words));
  }
  return plan;
}
