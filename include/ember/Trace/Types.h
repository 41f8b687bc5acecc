//===- Types.h - the plain types of a traced function -----------*- C++ -*-===//
//
// The vocabulary the front end and the compiler share about a function being
// built: tensor types, attribute encodings, source locations. No MLIR types,
// so the front end (built with exceptions) never includes MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_TRACE_TYPES_H
#define EMBER_TRACE_TYPES_H

#include "ember/Support/DType.h"
#include "emberrt/runtime.h"

#include <cstdint>

namespace ember::trace {

constexpr int kMaxRank = EMBERRT_MAX_RANK;

/// A dim whose size is known only when the code runs (MLIR's `?`): shape-
/// generic kernels and functions take such dims.
constexpr int64_t kDynamic = -1;

/// The type of one tensor: dtype and shape (a dim may be kDynamic).
struct TensorSpec {
  DType dtype = DType::Float32;
  int rank = 0;
  int64_t dims[kMaxRank] = {};

  /// The element count of a static shape.
  int64_t numElements() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d)
      n *= dims[d];
    return n;
  }
};

/// How an attribute is encoded in the request's attribute words.
enum class AttrKind : uint8_t {
  Int64,      ///< one word -> i64 IntegerAttr
  Enum32,     ///< one word -> i32 IntegerAttr (an ODS I32EnumAttr)
  Unit,       ///< one word, 0 or 1 -> UnitAttr present when 1
  Int64Array, ///< a count, then that many words -> DenseI64ArrayAttr
  String,     ///< a byte count, then the bytes packed 8 to a word -> StringAttr
};

struct AttrSchema {
  const char *name;
  AttrKind kind;
};

struct SourceLocation {
  const char *file = "<unknown>";
  unsigned line = 0;
  unsigned column = 0;
};

} // namespace ember::trace

#endif // EMBER_TRACE_TYPES_H
