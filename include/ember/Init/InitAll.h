//===- InitAll.h - register ember's dialects, passes and pipelines -*- C++ -*-===//
#ifndef EMBER_INITALL_H
#define EMBER_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace ember {
/// Adds the ember dialect and every upstream dialect and extension that ember's
/// pipelines use to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers ember's passes and named pipelines (for ember-opt).
void registerAllPasses();
} // namespace ember

#endif // EMBER_INITALL_H
