//===- DimPlan.h - how a function with ? dims is called ----------*- C++ -*-===//
//
// What the caller of a function compiled with `?` dims must know: the sizes
// that must agree (checked before the call, so that compiled code never
// reads past a buffer) and where each result dim's size comes from (the
// caller allocates the results). ember-plan-dynamic-dims finds them;
// compiler::planDynamicDims reads them; the JIT and ember-compile's C
// header use them. Plain C++: the front end and generated headers see it.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_SUPPORT_DIMPLAN_H
#define EMBER_SUPPORT_DIMPLAN_H

#include <cstdint>
#include <string>
#include <vector>

namespace ember {

/// A size: argument `argument`'s dim `dim`, or (argument -1) the constant
/// `size`.
struct DimSource {
  int argument = -1;
  int dim = 0;
  int64_t size = 0;
};

/// Two sizes that must be equal for a call to be valid (an elementwise op's
/// operands, a matmul's contracting dims); `opName` at `location` is the op
/// that needs them equal.
struct DimCheck {
  DimSource a, b;
  std::string opName;   ///< "ember.matmul"
  std::string location; ///< "file:line:col", or empty
};

/// The checks to make before a call, and each result dim's size (a
/// function of static shapes has an empty plan).
struct DimPlan {
  std::vector<DimCheck> checks;
  std::vector<std::vector<DimSource>> resultDims; ///< per result, per dim
};

} // namespace ember

#endif // EMBER_SUPPORT_DIMPLAN_H
