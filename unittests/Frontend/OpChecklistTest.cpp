//===- OpChecklistTest.cpp - every ember op has its parts ------------------===//
//
// docs/ADDING_AN_OP.md lists what an op needs; this test keeps the list
// honest for every op the dialect registers: a gradient rule or the
// no-gradient trait, a round trip in test/Dialect/Ember/ops.mlir, and a CPU
// lowering (convert-ember-to-linalg turns the round-trip test's uses of it
// into linalg). The front-end table entry is OpTableTest's.
//
//===----------------------------------------------------------------------===//

#include "ember/Dialect/Ember/IR/EmberOps.h"
#include "ember/Init/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace {

/// Ops that need no rule of their own, and why.
const std::map<std::string, std::string> kNoGradientRuleNeeded = {
    {"ember.custom_gradient", "its backward region is its rule (ember-autodiff reads it)"},
    {"ember.yield", "the terminator of a custom gradient's region"},
    {"ember.print", "an effect with no result"},
    {"ember.fault_if", "made by the lowering, after differentiation"},
};
/// Ops whose rule is still to be written (none now): ember-autodiff refuses
/// to differentiate them ("has no gradient rule"), so what needs one is
/// refused, not wrong. An entry leaves with its rule.
const std::map<std::string, std::string> kGradientRuleMissing = {};
/// Ops the CPU lowers elsewhere than convert-ember-to-linalg, and where.
const std::map<std::string, std::string> kLoweredElsewhere = {
    {"ember.fault_if", "ember-lower-fault-reports (test/Codegen/CPU/lower-fault-reports.mlir)"},
    {"ember.yield", "with its custom gradient, which the lowering drops"},
};

class OpChecklist : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry registry;
    ember::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    ember::registerAllPasses();
    roundTrip = mlir::parseSourceFile<mlir::ModuleOp>(
        EMBER_SOURCE_DIR "/test/Dialect/Ember/ops.mlir", &context);
    ASSERT_TRUE(roundTrip) << "test/Dialect/Ember/ops.mlir does not parse";
  }

  std::set<std::string> emberOpsIn(mlir::Operation *root) {
    std::set<std::string> names;
    root->walk([&](mlir::Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "ember")
        names.insert(op->getName().getStringRef().str());
    });
    return names;
  }

  std::vector<mlir::RegisteredOperationName> emberOps() {
    std::vector<mlir::RegisteredOperationName> ops;
    for (mlir::RegisteredOperationName name : context.getRegisteredOperations())
      if (name.getDialectNamespace() == "ember")
        ops.push_back(name);
    return ops;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> roundTrip;
};

TEST_F(OpChecklist, EveryOpHasAGradientRuleOrNone) {
  for (mlir::RegisteredOperationName name : emberOps()) {
    std::string op = name.getStringRef().str();
    bool rule = name.hasInterface<mlir::ember::VJPOpInterface>();
    bool none = name.hasTrait<mlir::ember::NoGradient>();
    EXPECT_TRUE(rule || none || kNoGradientRuleNeeded.count(op) || kGradientRuleMissing.count(op))
        << op
        << " has neither a gradient rule (VJPOpInterface, lib/Dialect/Ember/IR/"
           "EmberVJPs.cpp) nor the Ember_NoGradient trait";
    EXPECT_FALSE(rule && none) << op << " has a gradient rule and the no-gradient trait";
    EXPECT_FALSE(rule && kGradientRuleMissing.count(op))
        << op << " has its gradient rule now: take it off kGradientRuleMissing";
  }
}

TEST_F(OpChecklist, EveryOpRoundTripsInTheDialectTests) {
  std::set<std::string> tested = emberOpsIn(roundTrip.get());
  for (mlir::RegisteredOperationName name : emberOps())
    EXPECT_TRUE(tested.count(name.getStringRef().str()))
        << name.getStringRef().str() << " has no round trip in test/Dialect/Ember/ops.mlir";
}

TEST_F(OpChecklist, EveryOpHasACpuLowering) {
  // Each function of the round-trip test alone (a function the lowering
  // cannot convert names its ops), then which ember ops are left.
  std::set<std::string> left;
  for (auto function : roundTrip->getOps<mlir::func::FuncOp>()) {
    mlir::OwningOpRef<mlir::ModuleOp> alone = mlir::ModuleOp::create(function.getLoc());
    alone->push_back(function->clone());
    mlir::PassManager pm(&context);
    ASSERT_TRUE(succeeded(mlir::parsePassPipeline("convert-ember-to-linalg", pm)));
    mlir::ScopedDiagnosticHandler quiet(&context,
                                        [](mlir::Diagnostic &) { return mlir::success(); });
    if (failed(pm.run(*alone))) {
      for (const std::string &op : emberOpsIn(function))
        left.insert(op + " (in @" + function.getName().str() + ", which failed to lower)");
      continue;
    }
    for (const std::string &op : emberOpsIn(alone.get()))
      if (!kLoweredElsewhere.count(op))
        left.insert(op);
  }
  for (const std::string &op : left)
    ADD_FAILURE() << op
                  << " is not lowered by convert-ember-to-linalg "
                     "(lib/Conversion/EmberToLinalg/EmberToLinalg.cpp)";
}

} // namespace
