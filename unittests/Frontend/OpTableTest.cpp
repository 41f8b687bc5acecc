//===- OpTableTest.cpp - the front end's op table against ODS -------------===//
//
// OpTable.h copies op names, attribute names and the comparison directions
// from EmberOps.td; these tests fail when the two drift apart.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"

#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace ember::detail;

namespace {

TEST(OpTable, NamesAndAttributesAreTheDialects) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::ember::EmberDialect>();
  std::set<std::string> inTable;
  for (const OpDef *op : kFrontendOps) {
    std::string name(op->name);
    std::optional<mlir::RegisteredOperationName> registered =
        mlir::RegisteredOperationName::lookup(name, &context);
    ASSERT_TRUE(registered.has_value()) << name << " is in OpTable.h but not in EmberOps.td";
    std::set<std::string> odsAttributes, tableAttributes;
    for (mlir::StringAttr attribute : registered->getAttributeNames())
      odsAttributes.insert(attribute.str());
    for (const ember::trace::AttrSchema &attribute : op->attrs)
      tableAttributes.insert(attribute.name);
    EXPECT_EQ(tableAttributes, odsAttributes) << name;
    EXPECT_TRUE(inTable.insert(name).second) << name << " is in the table twice";
  }
  // Every op of the dialect is in the table, or is one the front end never
  // dispatches: constants and custom gradients are built while tracing,
  // yields end regions, fault checks come from lowering.
  const std::set<std::string> builtOtherwise = {"ember.constant", "ember.custom_gradient",
                                                "ember.yield", "ember.fault_if",
                                                "ember.max_pool2d_grad",
                                                "ember.avg_pool2d_grad",
                                                "ember.max_pool2d_gather"};
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "ember")
      continue;
    std::string op = name.getStringRef().str();
    EXPECT_TRUE(inTable.count(op) || builtOtherwise.count(op))
        << op << " is in EmberOps.td but not in OpTable.h";
  }
}

TEST(OpTable, ComparisonDirectionsAreTheDialects) {
  using mlir::ember::symbolizeComparisonDirection;
  const std::pair<const char *, ComparisonDirection> directions[] = {
      {"eq", kEq}, {"ne", kNe}, {"lt", kLt}, {"le", kLe}, {"gt", kGt}, {"ge", kGe}};
  for (auto [text, direction] : directions) {
    std::optional<mlir::ember::ComparisonDirection> ods = symbolizeComparisonDirection(text);
    ASSERT_TRUE(ods.has_value()) << text;
    EXPECT_EQ(static_cast<int64_t>(*ods), static_cast<int64_t>(direction)) << text;
  }
  EXPECT_EQ(mlir::ember::getMaxEnumValForComparisonDirection(), static_cast<unsigned>(kGe));
}

} // namespace
