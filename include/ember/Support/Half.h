//===- Half.h - the 16-bit floating-point element types ---------*- C++ -*-===//
//
// ember::Half (IEEE binary16, numpy's float16) and ember::BFloat16 (the upper
// half of a float32: its exponent range, 8 bits of precision) as the host
// sees them: 16 bits of storage that convert to and from float, as LibTorch's
// c10::Half and c10::BFloat16 do. Arithmetic converts to float; compiled code
// computes f16 and bf16 ops in float32 and rounds each result, as LibTorch on
// the CPU does. Conversions round to nearest, ties to even; NaN stays NaN.
//
//   ember::BFloat16 x = 1.1f;                    // stored as 0x3f8d
//   float back = x;                              // 1.1015625f
//   ember::Tensor w = ember::cast(ember::random_uniform({64, 64}, 1), ember::kBFloat16);
//   ember::Tensor y = ember::matmul(w, w);       // bfloat16, summed in float32
//   std::vector<ember::BFloat16> values = y.to_vector<ember::BFloat16>();
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_HALF_H
#define EMBER_HALF_H

#include <bit>
#include <cstdint>
#include <type_traits>

namespace ember {
namespace detail {

/// float to binary16 bits, rounding to nearest even; overflow gives infinity.
constexpr uint16_t floatToHalfBits(float value) {
  uint32_t x = std::bit_cast<uint32_t>(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t magnitude = x & 0x7fffffff;
  if (magnitude > 0x7f800000) // NaN: quiet, the payload's top bits kept
    return sign | 0x7e00 | static_cast<uint16_t>((magnitude >> 13) & 0x1ff);
  if (magnitude >= 0x477ff000) // 65520 and above (half way past 65504): infinity
    return sign | 0x7c00;
  if (magnitude >= 0x38800000) { // a normal half (2^-14 and above)
    uint32_t rounded = magnitude + 0xfff + ((magnitude >> 13) & 1);
    return sign | static_cast<uint16_t>((rounded - 0x38000000) >> 13);
  }
  if (magnitude <= 0x33000000) // 2^-25 and below: zero (2^-25 is a tie, to even)
    return sign;
  // A subnormal half: m * 2^-24, rounding the float's 24-bit significand.
  uint32_t exponent = magnitude >> 23;
  uint32_t significand = (magnitude & 0x7fffff) | 0x800000;
  uint32_t shift = 126 - exponent; // 14 to 24
  uint32_t m = significand >> shift;
  uint32_t rest = significand & ((1u << shift) - 1), halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (m & 1)))
    ++m; // may carry into the smallest normal, whose encoding follows on
  return sign | static_cast<uint16_t>(m);
}

/// binary16 bits to float (exact).
constexpr float halfBitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0x1f) // infinity or NaN
    return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/// float to bfloat16 bits, rounding to nearest even; NaN stays a quiet NaN.
constexpr uint16_t floatToBFloat16Bits(float value) {
  uint32_t x = std::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/// bfloat16 bits to float (exact).
constexpr float bfloat16BitsToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

/// `value` as a float rounded to odd: toward zero, with the last bit set when
/// anything was cut off. Rounding that float again to 16 bits gives the
/// correctly rounded result of `value` itself (the float keeps more than two
/// extra bits), where rounding twice to nearest could be off by one.
constexpr float roundToOddFloat(double value) {
  float nearest = static_cast<float>(value);
  if (static_cast<double>(nearest) == value || value != value ||
      nearest - nearest != 0.0f) // exact, NaN or infinite
    return nearest;
  uint32_t bits = std::bit_cast<uint32_t>(nearest);
  bool awayFromZero = value < 0 ? static_cast<double>(nearest) < value
                                : static_cast<double>(nearest) > value;
  if (awayFromZero)
    --bits; // one step back toward zero (the sign bit is apart)
  return std::bit_cast<float>(bits | 1u);
}

} // namespace detail

/// IEEE 754 binary16 (numpy's float16, LibTorch's at::Half).
struct Half {
  uint16_t bits = 0;

  constexpr Half() = default;
  constexpr Half(float value) : bits(detail::floatToHalfBits(value)) {}
  constexpr Half(double value) : bits(detail::floatToHalfBits(detail::roundToOddFloat(value))) {}
  constexpr operator float() const { return detail::halfBitsToFloat(bits); }
  static constexpr Half fromBits(uint16_t bits) {
    Half h;
    h.bits = bits;
    return h;
  }
};

/// bfloat16 (JAX's and TensorFlow's bfloat16, LibTorch's at::BFloat16).
struct BFloat16 {
  uint16_t bits = 0;

  constexpr BFloat16() = default;
  constexpr BFloat16(float value) : bits(detail::floatToBFloat16Bits(value)) {}
  constexpr BFloat16(double value)
      : bits(detail::floatToBFloat16Bits(detail::roundToOddFloat(value))) {}
  constexpr operator float() const { return detail::bfloat16BitsToFloat(bits); }
  static constexpr BFloat16 fromBits(uint16_t bits) {
    BFloat16 b;
    b.bits = bits;
    return b;
  }
};

/// Whether T is one of the 16-bit floating-point types above.
template <typename T>
constexpr bool isHalfPrecisionType = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

} // namespace ember

#endif // EMBER_HALF_H
