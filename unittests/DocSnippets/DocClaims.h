//===- DocClaims.h - values the documentation's comments claim ---*- C++ -*-===//
//
// A documented snippet's declaration may end with a comment claiming its
// value: `Tensor y = f(x);  // [[1 0] [0 1]]`, `double m = ...;  // 2.5`,
// optionally "about " first and prose after (", ...", " (...)", ": ...").
// extract_snippets.py appends a call of docClaim() to such a line, which
// compares the value with the numbers claimed, each to the precision it is
// written with (0.417 means 0.4165 to 0.4175), and throws when they differ.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_DOCSNIPPETS_DOCCLAIMS_H
#define EMBER_DOCSNIPPETS_DOCCLAIMS_H

#include "ember/ember.h"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace docclaims {

struct Number {
  double value;
  double tolerance; ///< half a unit of the last digit written
};

/// The numbers of a claimed value ("[[1 0 0] [0 1 0]]", "{2, 4, 6}", "2.5",
/// "1.1015625f", "1e-05"), in order.
inline std::vector<Number> numbersOf(const std::string &claim) {
  std::vector<Number> numbers;
  for (size_t i = 0; i < claim.size();) {
    char c = claim[i];
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.')) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < claim.size() && (std::isalnum(static_cast<unsigned char>(claim[end])) ||
                                  claim[end] == '.' || claim[end] == '-' || claim[end] == '+'))
      ++end;
    std::string text = claim.substr(i, end - i);
    if (!text.empty() && text.back() == 'f')
      text.pop_back();
    char *rest = nullptr;
    double value = std::strtod(text.c_str(), &rest);
    // The last digit written: decimals, shifted by an exponent.
    size_t dot = text.find('.'), e = text.find_first_of("eE");
    size_t mantissaEnd = e == std::string::npos ? text.size() : e;
    int decimals = dot == std::string::npos ? 0 : static_cast<int>(mantissaEnd - dot - 1);
    int exponent = e == std::string::npos ? 0 : std::atoi(text.c_str() + e + 1);
    numbers.push_back({value, 0.5 * std::pow(10.0, exponent - decimals)});
    i = end;
  }
  return numbers;
}

inline std::string listed(const std::vector<double> &values) {
  std::string text;
  for (double v : values)
    text += (text.empty() ? "" : " ") + std::to_string(v);
  return "[" + text + "]";
}

inline void check(const char *where, const std::vector<double> &actual, const char *claim) {
  std::vector<Number> claimed = numbersOf(claim);
  bool same = claimed.size() == actual.size();
  for (size_t i = 0; same && i < actual.size(); ++i)
    same = std::abs(actual[i] - claimed[i].value) <=
           claimed[i].tolerance + 1e-6 * std::abs(claimed[i].value);
  if (!same)
    throw std::runtime_error(std::string(where) + ": the comment claims " + claim +
                             ", the value is " + listed(actual));
}

inline std::vector<double> valuesOf(const ember::Tensor &t) {
  return ember::cast(t, ember::DType::Float64).cpu().to_vector<double>();
}

inline void docClaim(const char *where, const ember::Tensor &t, const char *claim) {
  check(where, valuesOf(t), claim);
}
inline void docClaim(const char *where, const std::vector<std::optional<ember::Tensor>> &tensors,
                     const char *claim) {
  std::vector<double> all;
  for (const std::optional<ember::Tensor> &t : tensors)
    if (t)
      for (double v : valuesOf(*t))
        all.push_back(v);
  check(where, all, claim);
}
template <typename T>
std::enable_if_t<std::is_arithmetic_v<T>> docClaim(const char *where, T value, const char *claim) {
  check(where, {static_cast<double>(value)}, claim);
}
template <typename T>
std::enable_if_t<std::is_arithmetic_v<T>> docClaim(const char *where, const std::vector<T> &values,
                                                   const char *claim) {
  check(where, std::vector<double>(values.begin(), values.end()), claim);
}

} // namespace docclaims

#endif // EMBER_DOCSNIPPETS_DOCCLAIMS_H
