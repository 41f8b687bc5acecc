//===- ember-opt.cpp - mlir-opt with ember's dialect, passes and pipelines -===//

#include "ember/Init/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  ember::registerAllDialects(registry);
  ember::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ember optimizer driver\n", registry));
}
