//===- OpDef.h - the front end's op vocabulary ------------------*- C++ -*-===//
//
// What every part of the front end (the dispatcher, the tracer, the tapes)
// says about ops: an op and its attribute schema (the ops themselves are
// OpTable.h), the signature words of a tensor type, the compiler's tensor
// types, and op errors. A leaf: it includes no other front-end internals.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_FRONTEND_OPDEF_H
#define EMBER_LIB_FRONTEND_OPDEF_H

#include "ember/Frontend/Ops.h"
#include "ember/Frontend/Tensor.h"
#include "ember/JIT/KernelCompiler.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ember::detail {

/// An ember op as the eager front end calls it: its MLIR name and the schema
/// of its attributes. Instances are static; their address identifies the op in
/// the kernel cache.
struct OpDef {
  std::string_view name;
  std::span<const trace::AttrSchema> attrs = {};
};

/// The words a tensor type adds to a signature (the eager kernel cache's, a
/// traced function's, a tape derivative's): the dtype and the rank in one
/// word, then the dimensions, each passed through `dim` (a shape-generic
/// kernel's signature generalizes them). `Words` has push_back.
struct SameDim {
  constexpr int64_t operator()(int64_t dim) const { return dim; }
};
template <typename Words, typename Dim = SameDim>
void appendTypeWords(Words &words, DType dtype, std::span<const int64_t> dims, Dim dim = {}) {
  words.push_back((static_cast<int64_t>(dtype) << 8) | static_cast<int64_t>(dims.size()));
  for (int64_t size : dims)
    words.push_back(dim(size));
}
template <typename Words, typename Dim = SameDim>
void appendTypeWords(Words &words, DType dtype, const Shape &shape, Dim dim = {}) {
  appendTypeWords(words, dtype, std::span<const int64_t>(shape.data(), shape.rank()), dim);
}

/// Appends an Int64Array attribute to an op's attribute words: the count,
/// then the values (see trace::AttrKind).
template <typename Values> void pushArray(std::vector<int64_t> &words, const Values &values) {
  words.push_back(static_cast<int64_t>(std::size(values)));
  words.insert(words.end(), std::begin(values), std::end(values));
}

/// The static type of a tensor as the compiler sees it.
trace::TensorSpec specOf(DType dtype, const Shape &shape);

/// The shape of a compiler-side tensor type.
Shape shapeOf(const trace::TensorSpec &spec);

// Errors name tensors with ember::describe and start with ember::error_at;
// ember::throw_op_error raises an op's (ember/Frontend/Error.h, Tensor.h).

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_OPDEF_H
