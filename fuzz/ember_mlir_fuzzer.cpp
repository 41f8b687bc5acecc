// What ember-compile does with a file, on arbitrary text: parse and verify
// ember-dialect (and upstream) IR, check it as ember-compile does, and lower
// it through ember's CPU pipeline to LLVM IR. An input is refused with
// diagnostics or compiled; nothing else (no crash, no hang).
#include "ember/Compiler/Compiler.h"
#include "ember/Init/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <string>

namespace {
mlir::MLIRContext &context() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    ember::registerAllDialects(registry);
    auto *made = new mlir::MLIRContext(registry);
    made->loadAllAvailableDialects();
    // Refusals are expected: their diagnostics go nowhere.
    made->getDiagEngine().registerHandler([](mlir::Diagnostic &) { return mlir::success(); });
    return made;
  }();
  return *context;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context());
  if (!module)
    return 0;
  llvm::FailureOr<int> exported = ember::compiler::markEntryPoints(*module);
  if (failed(exported) || *exported == 0)
    return 0;
  ember::compiler::CompileOptions options;
  options.stopAfter = ember::compiler::Phase::LLVMIR;
  options.optLevel = 1;
  std::string out, error;
  (void)ember::compiler::compile(*module, options, out, error);
  return 0;
}
