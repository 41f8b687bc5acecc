//===- TensorTypes.h - the trace's plain types in MLIR ----------*- C++ -*-===//
//
// What the trace builder and the JIT's compile step share: the MLIR types of
// TensorSpecs (and back), and MLIR's error diagnostics as the text the front
// end raises. Not for the front end (MLIR types).
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_TRACE_TENSORTYPES_H
#define EMBER_TRACE_TENSORTYPES_H

#include "ember/Trace/Types.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>

namespace ember::trace {

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

} // namespace ember::trace

#endif // EMBER_TRACE_TENSORTYPES_H
