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

/// A size: argument `argument`'s dim `dim`, times the sizes in `times`,
/// times `scale` over `divisor`, or (argument -1) the constant `size`; plus
/// the sizes in `plus`. The terms of `times` and `plus` are plain (an
/// argument's dim or a constant). A reshape that merges a `?` dim with
/// known ones scales it ([?, 3, 4] -> [?, 4]: 3 times dim 0), one that
/// merges two `?` dims multiplies them ([?, ?, 4] -> [?, 4]), one that
/// splits a dim divides it (the plan checks that it divides); a
/// concatenation along a `?` dim adds its inputs' sizes.
struct DimSource {
  int argument = -1;
  int dim = 0;
  int64_t size = 0;
  int64_t scale = 1, divisor = 1;
  std::vector<DimSource> plus = {};
  std::vector<DimSource> times = {};
};

/// Whether `source` is an argument's dim or a constant, as is (neither
/// scaled, a product nor a sum).
inline bool isPlain(const DimSource &source) {
  return source.scale == 1 && source.divisor == 1 && source.plus.empty() && source.times.empty();
}

/// Whether `a` and `b` are the same expression (so equal for any sizes).
inline bool sameSize(const DimSource &a, const DimSource &b) {
  auto sameTerms = [](const std::vector<DimSource> &x, const std::vector<DimSource> &y) {
    if (x.size() != y.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!sameSize(x[i], y[i]))
        return false;
    return true;
  };
  return a.argument == b.argument && (a.argument < 0 ? a.size == b.size : a.dim == b.dim) &&
         a.scale == b.scale && a.divisor == b.divisor && sameTerms(a.plus, b.plus) &&
         sameTerms(a.times, b.times);
}

/// Whether `source` is a constant (never scaled: see evaluate).
inline bool isConstant(const DimSource &source) {
  return source.argument < 0 && source.plus.empty();
}

/// What evaluate gives for a size that does not fit in int64 (products of
/// large sizes): no check holds with it.
inline constexpr int64_t kSizeOverflow = INT64_MIN;

/// The value of `source`, with `argumentSize(argument, dim)` an argument's
/// size; kSizeOverflow where it does not fit in int64.
template <typename ArgumentSize>
int64_t evaluate(const DimSource &source, ArgumentSize &&argumentSize) {
  int64_t value = source.size;
  bool overflow = false;
  if (source.argument >= 0) {
    value = argumentSize(source.argument, source.dim);
    for (const DimSource &factor : source.times) {
      int64_t size = evaluate(factor, argumentSize);
      overflow = overflow || size == kSizeOverflow || __builtin_mul_overflow(value, size, &value);
    }
    overflow = overflow || __builtin_mul_overflow(value, source.scale, &value);
    value /= source.divisor;
  }
  for (const DimSource &term : source.plus) {
    int64_t size = evaluate(term, argumentSize);
    overflow = overflow || size == kSizeOverflow || __builtin_add_overflow(value, size, &value);
  }
  return overflow ? kSizeOverflow : value;
}

/// `source` as text, each plain size (an argument's dim or a constant)
/// written by `plain`: "x", "3 * x / 2", "x * y", "x + y + 2", "x - 1".
template <typename Plain> std::string formatSize(const DimSource &source, Plain &&plain) {
  std::string text = plain(source);
  for (const DimSource &factor : source.times)
    text += " * " + plain(factor);
  if (source.argument >= 0 && source.scale != 1) // a constant is never scaled (see evaluate)
    text = std::to_string(source.scale) + " * " + text;
  if (source.argument >= 0 && source.divisor != 1)
    text += " / " + std::to_string(source.divisor);
  for (const DimSource &term : source.plus)
    text += term.argument < 0 && term.size < 0 ? " - " + std::to_string(-term.size)
                                               : " + " + plain(term);
  return text;
}

/// Two sizes a call needs related: equal (an elementwise op's operands, a
/// matmul's contracting dims), the first a multiple of the second (a
/// reshape that splits a `?` dim), or the first at least the second (a
/// slice's bounds inside a `?` dim); `opName` at `location` is the op that
/// needs them so.
struct DimCheck {
  enum class Kind { Equal, Divisible, AtLeast };
  DimSource a, b;
  std::string opName;   ///< "ember.matmul"
  std::string location; ///< "file:line:col", or empty
  Kind kind = Kind::Equal;

  /// Whether sizes `x` (a's) and `y` (b's) pass (never one that overflows).
  bool holds(int64_t x, int64_t y) const {
    if (x == kSizeOverflow || y == kSizeOverflow)
      return false;
    switch (kind) {
    case Kind::Divisible:
      return y != 0 && x % y == 0;
    case Kind::AtLeast:
      return x >= y;
    case Kind::Equal:
      break;
    }
    return x == y;
  }
  /// What the check needs, between the two sizes' text: " must be a multiple
  /// of ", " must be at least ", " and ... must be equal" (`tail`).
  const char *relation() const {
    return kind == Kind::Divisible ? " must be a multiple of "
           : kind == Kind::AtLeast ? " must be at least "
                                   : " and ";
  }
  const char *tail() const { return kind == Kind::Equal ? " must be equal" : ""; }
};

/// The checks to make before a call, and each result dim's size (a
/// function of static shapes has an empty plan).
struct DimPlan {
  std::vector<DimCheck> checks;
  std::vector<std::vector<DimSource>> resultDims; ///< per result, per dim
};

} // namespace ember

#endif // EMBER_SUPPORT_DIMPLAN_H
