//===- EmberDialect.cpp - ember dialect registration and hooks ------------===//

#include "ember/Dialect/Ember/IR/EmberOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"

#include <memory>

using namespace mlir;
using namespace mlir::ember;

#include "ember/Dialect/Ember/IR/EmberEnums.cpp.inc"
#include "ember/Dialect/Ember/IR/EmberInterfaces.cpp.inc"
#include "ember/Dialect/Ember/IR/EmberOpsDialect.cpp.inc"

namespace {
/// Every ember op is pure and region-free, so calls to functions of ember
/// ops can always be inlined.
struct EmberInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
};
} // namespace

void EmberDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ember/Dialect/Ember/IR/EmberOps.cpp.inc"
      >();
  addInterfaces<EmberInlinerInterface>();
  dropRepeatedInferenceErrors(getContext());
}

/// An ember op's result-type inference names what is wrong with its operands
/// ("contracting dims differ: ..."); when the verifier ran it, MLIR then adds
/// "'ember.x' op failed to infer returned types" at the same op, a second
/// error for one problem that says nothing more. That one is dropped when the
/// error before it was at the same place (so an inference that failed
/// silently still reports something). The handler is the newest of the
/// context's when the dialect loads while a file is parsed (ember-opt,
/// ember-compile): it sees every diagnostic first.
void EmberDialect::dropRepeatedInferenceErrors(MLIRContext *context) {
  auto lastError = std::make_shared<Location>(UnknownLoc::get(context));
  context->getDiagEngine().registerHandler([lastError](Diagnostic &diagnostic) -> LogicalResult {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
      return failure();
    std::string text = diagnostic.str();
    StringRef message(text);
    bool repeat = message.starts_with("'ember.") &&
                  message.ends_with("' op failed to infer returned types") &&
                  diagnostic.getLocation() == *lastError;
    *lastError = diagnostic.getLocation();
    return success(repeat); // success: handled, i.e. dropped
  });
}

Operation *EmberDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                             Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

bool mlir::ember::isEmberFloatType(Type type) {
  return type.isF32() || type.isF64() || type.isF16() || type.isBF16();
}

bool mlir::ember::isEmberElementType(Type type) {
  return isEmberFloatType(type) || type.isInteger(1) || type.isInteger(32) ||
         type.isInteger(64);
}
