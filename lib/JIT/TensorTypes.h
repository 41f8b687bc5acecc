//===- TensorTypes.h - the JIT's plain types in MLIR ------------*- C++ -*-===//
//
// What the trace builder and the compile driver share: the MLIR types of the
// JIT's TensorSpecs (and back), and MLIR's error diagnostics as the text the
// front end raises.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_JIT_TENSORTYPES_H
#define EMBER_LIB_JIT_TENSORTYPES_H

#include "ember/JIT/KernelCompiler.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>

namespace ember::jit {

/// Records every error diagnostic as "file:line:col: error: message".
struct DiagnosticCollector {
  DiagnosticCollector(mlir::MLIRContext &context, std::string &out)
      : handler(&context, [&out](mlir::Diagnostic &diag) {
          if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
            return mlir::success();
          llvm::raw_string_ostream os(out);
          if (!out.empty())
            os << "\n";
          if (auto loc = mlir::dyn_cast<mlir::FileLineColLoc>(diag.getLocation()))
            os << loc.getFilename().getValue() << ":" << loc.getLine() << ":" << loc.getColumn()
               << ": ";
          os << "error: " << diag.str();
          for (mlir::Diagnostic &note : diag.getNotes())
            os << "\n  note: " << note.str();
          return mlir::success();
        }) {}
  mlir::ScopedDiagnosticHandler handler;
};


/// The element type of `dtype`.
mlir::Type elementType(mlir::MLIRContext &context, ::ember::DType dtype);
/// The tensor type `spec` describes.
mlir::RankedTensorType tensorType(mlir::MLIRContext &context, const TensorSpec &spec);
/// `type` as a TensorSpec; false for types ember has no dtype for.
bool toSpec(mlir::Type type, TensorSpec &spec);

} // namespace ember::jit

#endif // EMBER_LIB_JIT_TENSORTYPES_H
