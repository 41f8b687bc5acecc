//===- Format.cpp - numpy-compatible text of a tensor's values ------------===//
//
// The layout rules mirror numpy's arrayprint (array2string with separator ' ')
// and the float rules its Dragon4 'maxprec' mode. Digits come from
// std::to_chars: its shortest form is the shortest round-trip string numpy's
// unique mode prints, and its fixed-precision form is the exactly rounded
// value numpy prints once a precision cut-off applies.
//
//===----------------------------------------------------------------------===//

#include "Format.h"

#include "ember/Frontend/Error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ember::detail {
namespace {

// numpy's default print options.
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 75;
constexpr int kPrecision = 8;

//===----------------------------------------------------------------------===//
// Decimal digits of one float
//===----------------------------------------------------------------------===//

/// A finite value as sign, mantissa digits and exponent: d0.d1d2... * 10^exp.
struct Decimal {
  bool negative = false;
  std::string digits;
  int exponent = 0;
};

/// Parses std::to_chars' scientific output ("-1.25e-05", "3e+00").
Decimal parseScientific(std::string_view text) {
  Decimal d;
  size_t i = 0;
  if (i < text.size() && text[i] == '-') {
    d.negative = true;
    ++i;
  }
  for (; i < text.size() && text[i] != 'e'; ++i)
    if (text[i] != '.')
      d.digits += text[i];
  if (i < text.size()) {
    ++i; // 'e'
    bool negExp = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+'))
      ++i;
    int e = 0;
    for (; i < text.size(); ++i)
      e = e * 10 + (text[i] - '0');
    d.exponent = negExp ? -e : e;
  }
  return d;
}

/// Shortest digits that read back as `x` in its own type R, so float32 0.1f
/// gives "1" rather than float64's "100000001490116...". Values of the
/// 16-bit types are formatted as floats (T) but read back as R: float16's
/// 0.1 (0.0999755859375) prints as "0.1", as numpy prints it.
template <typename R = void, typename T>
Decimal shortestDigits(T x) {
  char buf[64];
  if constexpr (isHalfPrecisionType<R>) {
    auto readsBack = [&](double v) { return R(v).bits == R(x).bits; };
    for (int digits = 0; digits < 9; ++digits) {
      auto res = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific, digits);
      Decimal nearestDigits = parseScientific(std::string_view(buf, res.ptr - buf));
      double nearest = 0;
      std::from_chars(buf, res.ptr, nearest);
      if (readsBack(nearest))
        return nearestDigits;
      // The other decimal of this length around x may still read back, as
      // float16 0.015625 does from 0.01563 (not from the nearest, 0.01562).
      double unit = std::pow(10.0, nearestDigits.exponent - digits);
      double step = nearest < static_cast<double>(x) ? unit : -unit;
      // Printing at `digits` again gives that decimal's exact text.
      res = std::to_chars(buf, buf + sizeof(buf), nearest + step, std::chars_format::scientific,
                          digits);
      double other = 0;
      std::from_chars(buf, res.ptr, other);
      if (readsBack(other))
        return parseScientific(std::string_view(buf, res.ptr - buf));
    }
  }
  auto res = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  return parseScientific(std::string_view(buf, res.ptr - buf));
}

/// `x` exactly rounded to `fracDigits` mantissa digits after the point.
template <typename T>
Decimal roundedScientific(T x, int fracDigits) {
  char buf[128];
  auto res = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific, fracDigits);
  return parseScientific(std::string_view(buf, res.ptr - buf));
}

void trimTrailingZeros(std::string &s) {
  while (!s.empty() && s.back() == '0')
    s.pop_back();
}

/// Integer part (with sign) and fraction digits of a positional rendering.
struct Positional {
  std::string intPart;
  std::string fracPart;
};

/// Positional form with the shortest round-trip digits, or, when those need
/// more than `maxFrac` fraction digits (maxFrac >= 0), the value rounded to
/// `maxFrac` digits; trailing zeros dropped either way (Dragon4 trim '.').
/// `exactUnits` asks for digits down to the units place at least (numpy's
/// min_digits=0, which array elements get): float16 65504 prints "65504",
/// where its shortest digits alone give the scalar's "65500".
template <typename R = void, typename T>
Positional positional(T x, int maxFrac, bool exactUnits = false) {
  Decimal d = shortestDigits<R>(x);
  int fracNeeded = std::max(0, static_cast<int>(d.digits.size()) - 1 - d.exponent);
  Positional p;
  if (maxFrac >= 0 && fracNeeded > maxFrac) {
    // Positional mode only sees values below 1e16, so 400 chars is ample.
    char buf[400];
    auto res = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::fixed, maxFrac);
    std::string_view text(buf, res.ptr - buf);
    size_t dot = text.find('.');
    p.intPart = std::string(text.substr(0, dot));
    if (dot != std::string_view::npos)
      p.fracPart = std::string(text.substr(dot + 1));
    trimTrailingZeros(p.fracPart);
    return p;
  }
  if (d.negative)
    p.intPart = "-";
  if (d.exponent >= 0) {
    size_t intDigits = static_cast<size_t>(d.exponent) + 1;
    if (d.digits.size() < intDigits && exactUnits) {
      // Shortest digits stop above the units only where the spacing of R
      // exceeds 1, so x is an integer and its fixed form is exact.
      char buf[64];
      auto res = std::to_chars(buf, buf + sizeof(buf), std::fabs(x), std::chars_format::fixed, 0);
      p.intPart += std::string(buf, res.ptr);
    } else if (d.digits.size() <= intDigits) {
      p.intPart += d.digits + std::string(intDigits - d.digits.size(), '0');
    } else {
      p.intPart += d.digits.substr(0, intDigits);
      p.fracPart = d.digits.substr(intDigits);
    }
  } else {
    p.intPart += "0";
    p.fracPart = std::string(static_cast<size_t>(-d.exponent - 1), '0') + d.digits;
  }
  trimTrailingZeros(p.fracPart);
  return p;
}

/// "e+05", "e-123": exponents get at least `minDigits` digits.
std::string exponentText(int exponent, int minDigits) {
  std::string digits = std::to_string(exponent < 0 ? -exponent : exponent);
  if (static_cast<int>(digits.size()) < minDigits)
    digits.insert(0, static_cast<size_t>(minDigits) - digits.size(), '0');
  return std::string("e") + (exponent < 0 ? '-' : '+') + digits;
}

std::string padLeft(const std::string &s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

//===----------------------------------------------------------------------===//
// 0-d arrays: numpy prints str() of the scalar
//===----------------------------------------------------------------------===//

/// numpy 1.24 (Debian 12's) prints every float scalar positionally from 1e-4
/// up to 1e16, whatever its dtype.
constexpr long double kScalarPositionalLimit = 1e16L;

template <typename T, typename R = T>
std::string floatScalarText(T x) {
  if (std::isnan(x))
    return "nan";
  // Compare in long double as numpy's scalartypes.c does; it matters for
  // float32 values such as 1e-4f that lie just below the double cut-off.
  long double mag = std::fabs(static_cast<long double>(x));
  if (x == 0 || (mag >= 1e-4L && mag < kScalarPositionalLimit)) {
    // Trim mode 'leave one zero': 4.0, 0.5, -0.0.
    Positional p = positional<R>(x, -1);
    return p.intPart + "." + (p.fracPart.empty() ? "0" : p.fracPart);
  }
  if (std::isinf(x))
    return x < 0 ? "-inf" : "inf";
  // Trim mode 'drop point and zeros': 1e+16, 1.5e-05.
  Decimal d = shortestDigits<R>(x);
  std::string out = d.negative ? "-" : "";
  out += d.digits[0];
  if (d.digits.size() > 1)
    out += "." + d.digits.substr(1);
  return out + exponentText(d.exponent, 2);
}

//===----------------------------------------------------------------------===//
// Element formatters for arrays (numpy's FloatingFormat, IntegerFormat, ...)
//===----------------------------------------------------------------------===//

/// Every element gets the same width, fixed by the elements actually shown.
/// T is the type computed in, R the elements' own (see shortestDigits).
template <typename T, typename R = T>
class FloatFormatter {
public:
  explicit FloatFormatter(const std::vector<T> &shown) {
    std::vector<T> finite;
    bool negInf = false;
    for (T v : shown) {
      if (std::isfinite(v))
        finite.push_back(v);
      else if (std::isinf(v) && v < 0)
        negInf = true;
    }
    chooseNotation(finite);
    if (finite.empty()) {
      padLeft_ = padRight_ = 0;
    } else if (scientific_) {
      // First pass: each value at up to 8 digits, trailing zeros trimmed;
      // the widest result sets the digits everyone gets.
      precision_ = 0;
      expDigits_ = 2;
      for (T v : finite) {
        Decimal d = trimmedScientific(v);
        precision_ = std::max(precision_, static_cast<int>(d.digits.size()) - 1);
        padLeft_ = std::max(padLeft_, d.negative ? 2 : 1);
        int e = d.exponent < 0 ? -d.exponent : d.exponent;
        expDigits_ = std::max(expDigits_, static_cast<int>(std::to_string(e).size()));
      }
      padRight_ = expDigits_ + 2 + precision_;
    } else {
      for (T v : finite) {
        Positional p = positional<R>(v, kPrecision, /*exactUnits=*/true);
        padLeft_ = std::max(padLeft_, static_cast<int>(p.intPart.size()));
        padRight_ = std::max(padRight_, static_cast<int>(p.fracPart.size()));
      }
    }
    if (finite.size() != shown.size()) {
      // nan/inf are right-aligned in the full width, which they may widen.
      int offset = padRight_ + 1;
      padLeft_ = std::max({padLeft_, 3 - offset, 3 + (negInf ? 1 : 0) - offset});
    }
  }

  std::string operator()(T x) const {
    size_t width = static_cast<size_t>(padLeft_ + padRight_ + 1);
    if (std::isnan(x))
      return padLeft("nan", width);
    if (std::isinf(x))
      return padLeft(x < 0 ? "-inf" : "inf", width);
    if (scientific_) {
      // Exactly precision_ digits for everyone, so the 'e's line up.
      Decimal d = roundedScientific(x, precision_);
      std::string mant = std::string(d.negative ? "-" : "") + d.digits[0];
      return padLeft(mant, static_cast<size_t>(padLeft_)) + "." + d.digits.substr(1) +
             exponentText(d.exponent, expDigits_);
    }
    Positional p = positional<R>(x, kPrecision, /*exactUnits=*/true);
    std::string frac = p.fracPart;
    frac.resize(static_cast<size_t>(padRight_), ' ');
    return padLeft(p.intPart, static_cast<size_t>(padLeft_)) + "." + frac;
  }

private:
  /// numpy 1.24's rule: scientific when the largest magnitude reaches 1e8,
  /// the smallest non-zero is below 1e-4, or they span more than 1e3. numpy
  /// divides in the elements' dtype and compares those scalars with Python
  /// floats in double, so float32 1e-4f (just below 1e-4) is scientific and a
  /// ratio of 1000.2 in float16 (rounded to 1000) is not.
  void chooseNotation(const std::vector<T> &finite) {
    bool any = false;
    T maxAbs = 0, minAbs = 0;
    for (T v : finite) {
      if (v == 0)
        continue;
      T a = std::fabs(v);
      if (!any) {
        maxAbs = minAbs = a;
        any = true;
      } else {
        maxAbs = std::max(maxAbs, a);
        minAbs = std::min(minAbs, a);
      }
    }
    if (!any)
      return;
    // Rounding T's quotient to R is R's own division (T has more than twice
    // R's digits); it may overflow to inf, which counts as large.
    double ratio = static_cast<double>(static_cast<R>(maxAbs / minAbs));
    scientific_ = static_cast<double>(maxAbs) >= 1e8 || static_cast<double>(minAbs) < 1e-4 ||
                  ratio > 1e3;
  }

  /// Shortest digits capped at 8 after the point, trailing zeros trimmed.
  static Decimal trimmedScientific(T x) {
    Decimal d = shortestDigits<R>(x);
    if (static_cast<int>(d.digits.size()) - 1 > kPrecision) {
      d = roundedScientific(x, kPrecision);
      while (d.digits.size() > 1 && d.digits.back() == '0')
        d.digits.pop_back();
    }
    return d;
  }

  bool scientific_ = false;
  int padLeft_ = 0;
  int padRight_ = 0;
  int precision_ = 0;
  int expDigits_ = 2;
};

//===----------------------------------------------------------------------===//
// Layout (numpy's _formatArray with separator ' ' and no prefix)
//===----------------------------------------------------------------------===//

class Printer {
public:
  Printer(const int64_t *shape, int rank, bool summarise,
          std::function<std::string(int64_t)> element)
      : shape_(shape, shape + rank), strides_(static_cast<size_t>(rank), 1),
        summarise_(summarise), element_(std::move(element)) {
    for (int i = rank - 2; i >= 0; --i)
      strides_[i] = strides_[i + 1] * shape_[i + 1];
  }

  std::string print() { return block(0, 0, " ", kLineWidth); }

private:
  /// Positions along `axis` to show; -1 stands for the "..." marker.
  std::vector<int64_t> positions(size_t axis) const {
    std::vector<int64_t> out;
    int64_t n = shape_[axis];
    if (summarise_ && n > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i)
        out.push_back(i);
      out.push_back(-1);
      for (int64_t i = n - kEdgeItems; i < n; ++i)
        out.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i)
        out.push_back(i);
    }
    return out;
  }

  /// The text of the sub-array at `offset`; lines after the first start with
  /// `indent`, which is one space per enclosing '['. `width` shrinks by one
  /// per level to leave room for the closing ']'s.
  std::string block(size_t axis, int64_t offset, const std::string &indent, int64_t width) {
    std::vector<int64_t> pos = positions(axis);
    std::string out;
    if (axis + 1 == shape_.size()) {
      // Innermost rows wrap before an element would pass the line width.
      size_t limit = static_cast<size_t>(width - 1);
      std::string line = indent;
      for (size_t k = 0; k < pos.size(); ++k) {
        std::string word = pos[k] < 0 ? "..." : element_(offset + pos[k] * strides_[axis]);
        // Wrapping an empty line would not make it any shorter.
        if (line.size() + word.size() > limit && line.size() > indent.size()) {
          size_t end = line.find_last_not_of(' ');
          out += line.substr(0, end + 1) + "\n";
          line = indent;
        }
        line += word;
        if (k + 1 < pos.size())
          line += ' ';
      }
      out += line;
    } else {
      // One newline between rows, plus a blank line per extra dimension.
      std::string sep(shape_.size() - axis - 1, '\n');
      std::string inner = indent + " ";
      for (size_t k = 0; k < pos.size(); ++k) {
        out += indent;
        out += pos[k] < 0 ? std::string("...")
                          : block(axis + 1, offset + pos[k] * strides_[axis], inner, width - 1);
        if (k + 1 < pos.size())
          out += sep;
      }
    }
    return "[" + out.substr(indent.size()) + "]";
  }

  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  bool summarise_;
  std::function<std::string(int64_t)> element_;
};

/// Calls fn(flatIndex) for each element the printout shows, so that widths
/// depend only on those (as numpy's _leading_trailing does).
void forEachShown(const int64_t *shape, int rank, bool summarise,
                  const std::function<void(int64_t)> &fn) {
  std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
  for (int i = rank - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  std::function<void(int, int64_t)> walk = [&](int axis, int64_t offset) {
    if (axis == rank) {
      fn(offset);
      return;
    }
    int64_t n = shape[axis];
    for (int64_t i = 0; i < n; ++i) {
      if (summarise && n > 2 * kEdgeItems && i == kEdgeItems)
        i = n - kEdgeItems;
      walk(axis + 1, offset + i * strides[axis]);
    }
  };
  walk(0, 0);
}

template <typename T>
T load(const void *data, int64_t index) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char *>(data) + index * sizeof(T), sizeof(T));
  return v;
}

// Bools are read as bytes so that a stray value other than 0/1 is not UB.
bool loadBool(const void *data, int64_t index) {
  return static_cast<const unsigned char *>(data)[index] != 0;
}

template <typename T>
std::string intText(T v) {
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

/// Elements stored as R, formatted as T (float for the 16-bit types).
template <typename T, typename R = T>
std::string formatFloats(const void *data, const int64_t *shape, int rank, bool summarise) {
  std::vector<T> shown;
  forEachShown(shape, rank, summarise,
               [&](int64_t i) { shown.push_back(static_cast<T>(load<R>(data, i))); });
  FloatFormatter<T, R> fmt(shown);
  return Printer(shape, rank, summarise, [&](int64_t i) {
           return fmt(static_cast<T>(load<R>(data, i)));
         }).print();
}

template <typename T>
std::string formatInts(const void *data, const int64_t *shape, int rank, bool summarise) {
  size_t width = 0;
  forEachShown(shape, rank, summarise,
               [&](int64_t i) { width = std::max(width, intText(load<T>(data, i)).size()); });
  return Printer(shape, rank, summarise, [&](int64_t i) {
           return padLeft(intText(load<T>(data, i)), width);
         }).print();
}

std::string formatBools(const void *data, const int64_t *shape, int rank, bool summarise) {
  // " True" keeps columns aligned with "False".
  return Printer(shape, rank, summarise, [&](int64_t i) {
           return std::string(loadBool(data, i) ? " True" : "False");
         }).print();
}

} // namespace

std::string formatValues(const void *data, DType dtype, const int64_t *shape, int rank) {
  if (rank < 0)
    throw Error("formatValues: negative rank " + std::to_string(rank));
  int64_t size = 1;
  for (int i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      throw Error("formatValues: negative dimension " + std::to_string(shape[i]));
    // Saturate so absurd shapes cannot overflow; they only need "> threshold".
    size = shape[i] == 0 ? 0
           : size > std::numeric_limits<int64_t>::max() / shape[i]
               ? std::numeric_limits<int64_t>::max()
               : size * shape[i];
  }
  if (rank == 0) {
    switch (dtype) {
    case DType::Bool:
      return loadBool(data, 0) ? "True" : "False";
    case DType::Int32:
      return intText(load<int32_t>(data, 0));
    case DType::Int64:
      return intText(load<int64_t>(data, 0));
    case DType::Float32:
      return floatScalarText(load<float>(data, 0));
    case DType::Float64:
      return floatScalarText(load<double>(data, 0));
    case DType::Float16:
      return floatScalarText<float, Half>(load<Half>(data, 0));
    case DType::BFloat16:
      return floatScalarText<float, BFloat16>(load<BFloat16>(data, 0));
    }
  }
  if (size == 0)
    return "[]";
  bool summarise = size > kThreshold;
  switch (dtype) {
  case DType::Bool:
    return formatBools(data, shape, rank, summarise);
  case DType::Int32:
    return formatInts<int32_t>(data, shape, rank, summarise);
  case DType::Int64:
    return formatInts<int64_t>(data, shape, rank, summarise);
  case DType::Float32:
    return formatFloats<float>(data, shape, rank, summarise);
  case DType::Float64:
    return formatFloats<double>(data, shape, rank, summarise);
  case DType::Float16:
    return formatFloats<float, Half>(data, shape, rank, summarise);
  case DType::BFloat16:
    return formatFloats<float, BFloat16>(data, shape, rank, summarise);
  }
  throw Error("formatValues: unknown dtype");
}

} // namespace ember::detail
