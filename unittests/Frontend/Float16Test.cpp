// float16 and bfloat16: the host types' conversions against independent
// references, and tensors of them through eager ops, traced functions,
// gradients, printing and files. Compiled code computes each op in float32
// and rounds its result; sums, matmuls and convolutions accumulate in
// float32 and round once.
#include "ErrorTestUtil.h"

#include "ember/IO/Safetensors.h"

#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

using namespace ember;

namespace {

/// bfloat16's nearest-even rounding of `x`, computed from the two
/// neighbouring bfloat16 values in double (a reference written apart from
/// the bit trick of Half.h).
uint16_t referenceBFloat16(float x) {
  if (std::isnan(x))
    return 0x7fc0;
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  uint32_t low = bits & 0xffff0000u, high = low + 0x10000u;
  if ((low & 0x7fffffffu) == 0x7f800000u) // infinity
    return static_cast<uint16_t>(low >> 16);
  float lowValue, highValue;
  std::memcpy(&lowValue, &low, 4);
  std::memcpy(&highValue, &high, 4);
  // Rounding up from the largest finite value reaches infinity, which
  // rounding treats as the next power of two, 2^128.
  double highMagnitude = (high & 0x7fffffffu) == 0x7f800000u ? 0x1p128
                                                              : std::fabs(double(highValue));
  double below = std::fabs(static_cast<double>(x) - lowValue);
  double above = std::fabs(highMagnitude - std::fabs(static_cast<double>(x)));
  if (below < above || (below == above && ((low >> 16) & 1) == 0))
    return static_cast<uint16_t>(low >> 16);
  return static_cast<uint16_t>(high >> 16);
}

std::vector<float> interestingFloats() {
  std::vector<float> values = {0.f,     -0.f,    1.f,       -1.f,     0.1f,     1.1f,   65504.f,
                               65519.f, 65520.f, 1e-8f,     5.96e-8f, 2.98e-8f, 6.1e-5f, 1e30f,
                               -1e38f,  INFINITY, -INFINITY, 3.4e38f, 1.00390625f};
  std::mt19937 random(7);
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = random();
    float f;
    std::memcpy(&f, &bits, 4);
    if (!std::isnan(f))
      values.push_back(f);
  }
  return values;
}

TEST(Float16, HostConversionsRoundToNearestEven) {
  // Every binary16 value reads back as itself through float.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    Half h = Half::fromBits(static_cast<uint16_t>(bits));
    float f = h;
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(static_cast<float>(Half(f)))) << bits;
    else
      ASSERT_EQ(Half(f).bits, bits) << std::hex << bits;
  }
#ifdef __FLT16_MANT_DIG__
  // float and double to binary16 against the compiler's _Float16.
  for (float f : interestingFloats()) {
    _Float16 expected = static_cast<_Float16>(f);
    uint16_t expectedBits;
    std::memcpy(&expectedBits, &expected, 2);
    ASSERT_EQ(Half(f).bits, expectedBits) << f;
    double d = static_cast<double>(f) * (1 + 0x1p-30); // between floats: rounded once
    expected = static_cast<_Float16>(d);
    std::memcpy(&expectedBits, &expected, 2);
    ASSERT_EQ(Half(d).bits, expectedBits) << d;
  }
#endif
  for (float f : interestingFloats())
    ASSERT_EQ(BFloat16(f).bits, referenceBFloat16(f)) << f;
  EXPECT_EQ(BFloat16(1.1f).bits, 0x3f8d);
  EXPECT_EQ(static_cast<float>(BFloat16(1.1f)), 1.1015625f);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(NAN))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(NAN))));
  EXPECT_EQ(static_cast<float>(Half(1e6f)), INFINITY);
  // 1 + 2^-8 + 2^-30 is just above a tie between bfloat16's 1 and 1 + 2^-7:
  // rounding it to float first (to 1 + 2^-8, the tie) and then to even would
  // give 1; once, correctly, 1 + 2^-7.
  EXPECT_EQ(static_cast<float>(BFloat16(1.0 + 0x1p-8 + 0x1p-30)), 1.0f + 0x1p-7f);
}

// The compiled casts (bf16 by integer operations, f16 by F16C or libgcc)
// round as the host types do, NaN, infinities, ties and subnormals included.
TEST(Float16, CompiledCastsRoundAsTheHost) {
  std::vector<float> values = interestingFloats();
  for (uint32_t bits : {0x7f800001u, 0x7fffffffu, 0xffc00000u, 0x7fc00000u, 0x3f808000u,
                        0x3f818000u, 0x7f7fffffu, 0x00008000u, 0x80018000u}) {
    float f;
    std::memcpy(&f, &bits, 4);
    values.push_back(f);
  }
  Tensor x = Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
  // The bits the compiled code wrote (to_vector would convert on the host).
  std::vector<uint16_t> bBits(values.size()), hBits(values.size());
  std::memcpy(bBits.data(), cast(x, kBFloat16).data(), 2 * values.size());
  std::memcpy(hBits.data(), cast(x, kFloat16).data(), 2 * values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16::fromBits(bBits[i])))) << i;
      EXPECT_TRUE(std::isnan(static_cast<float>(Half::fromBits(hBits[i])))) << i;
      continue;
    }
    ASSERT_EQ(bBits[i], BFloat16(values[i]).bits) << values[i];
    ASSERT_EQ(hBits[i], Half(values[i]).bits) << values[i];
  }
  // From float64, rounded once (through float32 rounded to odd): values
  // between floats, and 1 + 2^-8 + 2^-30, which rounding to float32 first
  // would make a tie (rounded to even: 1) instead of 1 + 2^-7.
  std::vector<double> doubles = {1.0 + 0x1p-8 + 0x1p-30, -(1.0 + 0x1p-11 + 0x1p-40), 1e300,
                                 -1e-300, 65519.99, 0x1p-25 + 0x1p-50};
  for (size_t i = 0; i < values.size(); i += 7)
    if (std::isfinite(values[i]))
      doubles.push_back(static_cast<double>(values[i]) * (1 + 0x1p-30));
  Tensor d = Tensor::from_vector(doubles, {static_cast<int64_t>(doubles.size())}, kFloat64);
  std::vector<uint16_t> dbBits(doubles.size()), dhBits(doubles.size());
  std::memcpy(dbBits.data(), cast(d, kBFloat16).data(), 2 * doubles.size());
  std::memcpy(dhBits.data(), cast(d, kFloat16).data(), 2 * doubles.size());
  EXPECT_EQ(static_cast<float>(BFloat16::fromBits(dbBits[0])), 1.0f + 0x1p-7f);
  for (size_t i = 0; i < doubles.size(); ++i) {
    ASSERT_EQ(dbBits[i], BFloat16(doubles[i]).bits) << doubles[i];
#ifdef __FLT16_MANT_DIG__
    _Float16 expected = static_cast<_Float16>(doubles[i]);
    uint16_t expectedBits;
    std::memcpy(&expectedBits, &expected, 2);
    ASSERT_EQ(dhBits[i], expectedBits) << doubles[i];
#endif
  }
  // And back to float32, exactly.
  std::vector<uint16_t> all(0x10000);
  for (uint32_t i = 0; i < 0x10000; ++i)
    all[i] = static_cast<uint16_t>(i);
  Tensor allBits = Tensor::empty({0x10000}, kBFloat16);
  std::memcpy(allBits.data(), all.data(), 2 * all.size());
  std::vector<float> widened = cast(allBits, kFloat32).to_vector<float>();
  for (uint32_t i = 0; i < 0x10000; ++i) {
    float expected = BFloat16::fromBits(static_cast<uint16_t>(i));
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(widened[i]));
    else
      ASSERT_EQ(widened[i], expected) << i;
  }
}

TEST(Float16, CastsAndTypes) {
  Tensor x({0.1f, 1.5f, -2.25f, 1000.f});
  Tensor h = cast(x, kFloat16), b = cast(x, kBFloat16);
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_EQ(b.dtype(), kBFloat16);
  EXPECT_EQ(kHalf, kFloat16);
  EXPECT_EQ(h.nbytes(), 8u);
  std::vector<Half> halves = h.to_vector<Half>();
  std::vector<BFloat16> bfloats = b.to_vector<BFloat16>();
  std::vector<float> floats = x.to_vector<float>();
  for (size_t i = 0; i < floats.size(); ++i) {
    EXPECT_EQ(halves[i].bits, Half(floats[i]).bits);
    EXPECT_EQ(bfloats[i].bits, BFloat16(floats[i]).bits);
  }
  // Between the 16-bit types, through float32 (one rounding), as the host
  // converts; and to integers as numpy's astype (truncation).
  std::vector<BFloat16> converted = cast(h, kBFloat16).to_vector<BFloat16>();
  for (size_t i = 0; i < halves.size(); ++i)
    EXPECT_EQ(converted[i].bits, BFloat16(static_cast<float>(halves[i])).bits);
  EXPECT_EQ(cast(b, kInt32).to_vector<int>(), (std::vector<int>{0, 1, -2, 1000}));
  EXPECT_EQ(cast(Tensor({3, -7, 100000}), kFloat16).to_vector<float>(),
            (std::vector<float>{3, -7, INFINITY}));
  EXPECT_EQ(cast(Tensor(2.5f), kBFloat16).item<float>(), 2.5f);
  EXPECT_EQ(full({2}, 0.1, kFloat16).to_vector<Half>()[0].bits, Half(0.1).bits);
  EXPECT_EQ(Tensor::from_vector(std::vector<BFloat16>{1.1f}, {1}).dtype(), kBFloat16);
  // A 16-bit C++ value as a scalar: its own dtype alone, the tensor's beside one.
  EXPECT_EQ(Tensor(BFloat16(1.5f)).dtype(), kBFloat16);
  EXPECT_EQ(Tensor(Half(0.1f)).item<Half>().bits, Half(0.1f).bits);
  EXPECT_EQ((b * BFloat16(2.f)).dtype(), kBFloat16);
  EXPECT_EQ((b * BFloat16(2.f)).to_vector<float>()[1], 3.f);
  EXPECT_EQ((x + Half(0.5f)).to_vector<float>()[1], 2.f);
}

// Ops that only move values (broadcasts, transposes, slices, gathers) copy
// the bits: no rounding, and no float conversion in the compiled code.
TEST(Float16, DataMovementOpsCopyTheBits) {
  for (DType dtype : {kFloat16, kBFloat16}) {
    SCOPED_TRACE(std::string(dtypeName(dtype)));
    Tensor x32 = random_uniform({3, 4}, 13) * 10.f;
    Tensor x = cast(x32, dtype), back = cast(x, kFloat32);
    auto same = [&](const Tensor &got, const Tensor &expected) {
      EXPECT_EQ(got.dtype(), dtype);
      EXPECT_EQ(cast(got, kFloat32).to_vector<float>(), expected.to_vector<float>());
    };
    same(broadcast_to(x, {2, 3, 4}), broadcast_to(back, {2, 3, 4}));
    same(transpose(x), transpose(back));
    same(slice(x, {1, 0}, {3, 4}, {1, 2}), slice(back, {1, 0}, {3, 4}, {1, 2}));
    same(concat({x, x}, 0), concat({back, back}, 0));
    same(reshape(x, {4, 3}), reshape(back, {4, 3}));
    same(gather(x, Tensor({2, 0}), 0), gather(back, Tensor({2, 0}), 0));
    same(where(x > 5, x, -x), where(back > 5, back, -back));
    // Broadcast operands: LLVM selected scalars in float registers and
    // rounded bf16 results through __truncsfbf2 (the kernel did not load).
    Tensor p = cast(random_uniform({64, 33, 1, 1}, 3), dtype);
    Tensor q = cast(random_uniform({64, 33, 64, 1}, 4), dtype);
    Tensor p32 = cast(p, kFloat32), q32 = cast(q, kFloat32);
    same(where(p < q, p, q), where(p32 < q32, p32, q32));
  }
}

/// `op` on 16-bit tensors against float32 computation of the same values,
/// rounded: compiled code computes in float32 and rounds each op's result.
template <typename T, typename Op, typename Reference>
void expectRoundedFloat32(Op op, Reference reference, DType dtype, float maxUlps = 0) {
  Tensor a = cast(random_uniform({7, 33}, 11) * 4.f - 2.f, dtype);
  Tensor b = cast(random_uniform({7, 33}, 12) * 4.f - 2.f, dtype);
  std::vector<T> got = op(a, b).template to_vector<T>();
  std::vector<T> x = a.to_vector<T>(), y = b.to_vector<T>();
  ASSERT_EQ(got.size(), x.size());
  for (size_t i = 0; i < got.size(); ++i) {
    T expected(reference(static_cast<float>(x[i]), static_cast<float>(y[i])));
    if (maxUlps == 0)
      ASSERT_EQ(got[i].bits, expected.bits) << i << ": " << static_cast<float>(x[i]) << ", "
                                            << static_cast<float>(y[i]);
    else
      ASSERT_LE(std::abs(int(got[i].bits) - int(expected.bits)), maxUlps) << i;
  }
}

TEST(Float16, ElementwiseOpsRoundEachResultOnce) {
  for (DType dtype : {kFloat16, kBFloat16}) {
    SCOPED_TRACE(std::string(dtypeName(dtype)));
    auto run = [&](auto op, auto reference, float ulps = 0) {
      if (dtype == kFloat16)
        expectRoundedFloat32<Half>(op, reference, dtype, ulps);
      else
        expectRoundedFloat32<BFloat16>(op, reference, dtype, ulps);
    };
    run([](const Tensor &a, const Tensor &b) { return a + b; }, [](float x, float y) { return x + y; });
    run([](const Tensor &a, const Tensor &b) { return a * b; }, [](float x, float y) { return x * y; });
    run([](const Tensor &a, const Tensor &b) { return a / b; }, [](float x, float y) { return x / y; });
    run([](const Tensor &a, const Tensor &b) { return maximum(a, b); },
        [](float x, float y) { return std::max(x, y); });
    run([](const Tensor &a, const Tensor &) { return a * 3; }, [](float x, float) { return x * 3; });
    // Polynomial exp and tanh in float32 may differ from libm's in the last
    // float bit, which can move the rounded result by one unit.
    run([](const Tensor &a, const Tensor &) { return exp(a); },
        [](float x, float) { return std::exp(x); }, 1);
    run([](const Tensor &a, const Tensor &) { return tanh(a); },
        [](float x, float) { return std::tanh(x); }, 1);
  }
}

TEST(Float16, SumsMatmulsAndConvolutionsAccumulateInFloat32) {
  // 4096 ones: a bfloat16 running sum would stop at 256 (256 + 1 rounds
  // back to 256); float32 accumulation gives 4096, which bfloat16 holds.
  EXPECT_EQ(reduce_sum(ones({4096}, kBFloat16)).item<float>(), 4096.f);
  EXPECT_EQ(reduce_sum(ones({4096}, kBFloat16)).dtype(), kBFloat16);
  EXPECT_EQ(reduce_mean(full({64, 64}, 0.1, kFloat16)).item<float>(),
            static_cast<float>(Half(static_cast<float>(Half(0.1)))));
  EXPECT_EQ(reduce_max(cast(Tensor({1.f, 7.f, -3.f}), kBFloat16)).item<float>(), 7.f);

  for (DType dtype : {kFloat16, kBFloat16}) {
    SCOPED_TRACE(std::string(dtypeName(dtype)));
    // 16 columns: widened to float32 FMAs on every CPU (narrower than the
    // blocks of the bfloat16 dot products, tested below), bit for bit.
    Tensor a = cast(random_uniform({96, 80}, 1) - 0.5f, dtype);
    Tensor b = cast(random_uniform({80, 16}, 2) - 0.5f, dtype);
    Tensor product = matmul(a, b);
    EXPECT_EQ(product.dtype(), dtype);
    // The float32 product of the same (widened) values, rounded once.
    Tensor expected = cast(matmul(cast(a, kFloat32), cast(b, kFloat32)), dtype);
    std::vector<float> got = cast(product, kFloat32).to_vector<float>();
    std::vector<float> want = cast(expected, kFloat32).to_vector<float>();
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << i;

    Tensor images = cast(random_uniform({2, 9, 9, 3}, 3), dtype);
    Tensor filters = cast(random_uniform({3, 3, 3, 4}, 4) - 0.5f, dtype);
    Tensor convolved = nn::conv2d(images, filters, {1, 1}, "SAME");
    Tensor reference =
        cast(nn::conv2d(cast(images, kFloat32), cast(filters, kFloat32), {1, 1}, "SAME"), dtype);
    EXPECT_EQ(convolved.dtype(), dtype);
    EXPECT_EQ(cast(convolved, kFloat32).to_vector<float>(),
              cast(reference, kFloat32).to_vector<float>());
  }
}

/// Whether every element of `got` is within one bfloat16 rounding (and
/// float32 summation) of the product of `a` [m, k] and `b` [k, n] in double.
void expectRoundedProduct(const Tensor &got, const Tensor &a, const Tensor &b, bool roundedToBF16) {
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  std::vector<float> x = cast(a, kFloat32).to_vector<float>();
  std::vector<float> y = cast(b, kFloat32).to_vector<float>();
  std::vector<float> values = cast(got, kFloat32).to_vector<float>();
  ASSERT_EQ(values.size(), static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double exact = 0, magnitude = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        exact += double(x[i * k + kk]) * y[kk * n + j];
        magnitude += std::fabs(double(x[i * k + kk]) * y[kk * n + j]);
      }
      double tolerance = (roundedToBF16 ? 0x1p-8 * std::fabs(exact) : 0) + 0x1p-20 * magnitude;
      ASSERT_NEAR(values[i * n + j], exact, tolerance) << "[" << i << ", " << j << "]";
    }
}

TEST(Float16, BFloat16MatmulsOnAmxTilesRoundTheExactProductOnce) {
  // On CPUs with AMX tiles (amx-bf16) these run on tiles, on AVX512-BF16
  // (vdpbf16ps; the ctest Float16.OnAvx512BF16DotProducts) on vectors,
  // elsewhere widened to float32 FMAs: all within the same bounds. Sizes that
  // are whole blocks and steps of k, sizes that are not (zero padding, masked
  // edges, n = 48 and 80 ending inside a block), two passes over k (1024).
  const int64_t sizes[][3] = {{64, 64, 96},    {100, 70, 50},  {33, 1000, 17}, {16, 32, 16},
                              {257, 130, 300}, {64, 1024, 96}, {40, 99, 48},   {50, 33, 80}};
  for (const auto &size : sizes) {
    SCOPED_TRACE(std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" +
                 std::to_string(size[2]));
    Tensor a = cast(random_uniform({size[0], size[1]}, 5) - 0.5f, kBFloat16);
    Tensor b = cast(random_uniform({size[1], size[2]}, 6) - 0.5f, kBFloat16);
    Tensor product = matmul(a, b);
    EXPECT_EQ(product.dtype(), kBFloat16);
    expectRoundedProduct(product, a, b, /*roundedToBF16=*/true);
    // Traced: compiled for these shapes at once (an eager op's first calls
    // may run its shape-generic kernel, which stays widened).
    Tensor traced =
        ember::function([](const Tensor &x, const Tensor &y) { return matmul(x, y); })(a, b);
    expectRoundedProduct(traced, a, b, /*roundedToBF16=*/true);
  }
  // A convolution (a matmul of its patches, copied in bfloat16) and the
  // transposed products of a gradient, against float32 ones of the same
  // values: within a bfloat16 rounding of the result and float32 summation.
  // On tiles, convolutions of 32k channels read their input in place (one
  // strided tile load per tap); the others copy their patches: rows that
  // end inside a block (14, 40), two blocks of pixels, pairs of rows of at
  // most 16 pixels (an odd number of them: 7), 3x3 and 1x5 windows,
  // VALID and SAME, dilations of 2; strides of 2 along W and 48 channels
  // copy their patches.
  struct Case {
    Shape images, filters;
    std::array<int64_t, 2> strides, dilations;
    const char *padding;
  };
  const Case cases[] = {{{4, 14, 14, 32}, {3, 3, 32, 48}, {1, 1}, {1, 1}, "SAME"},
                        {{2, 9, 40, 64}, {3, 3, 64, 64}, {1, 1}, {1, 1}, "VALID"},
                        {{2, 6, 40, 32}, {1, 5, 32, 32}, {1, 1}, {1, 1}, "SAME"},
                        {{2, 12, 12, 32}, {3, 3, 32, 32}, {2, 2}, {1, 1}, "SAME"},
                        {{2, 12, 12, 32}, {3, 3, 32, 32}, {1, 1}, {2, 2}, "VALID"},
                        {{2, 12, 12, 48}, {3, 3, 48, 32}, {1, 1}, {1, 1}, "SAME"},
                        {{2, 7, 9, 32}, {3, 3, 32, 40}, {1, 1}, {1, 1}, "SAME"}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.images.str() + " * " + c.filters.str() + " " + c.padding);
    Tensor images = cast(random_uniform(c.images, 9) - 0.5f, kBFloat16);
    Tensor filters = cast(random_uniform(c.filters, 10) - 0.5f, kBFloat16);
    auto convolve = [&](const Tensor &x, const Tensor &w) {
      return nn::conv2d(x, w, c.strides, c.padding, c.dilations);
    };
    // Traced: compiled for these shapes at once (an eager op's first calls
    // run its shape-generic kernel, whose matmuls stay widened).
    Tensor convolved = ember::function(convolve)(images, filters);
    EXPECT_EQ(convolved.dtype(), kBFloat16);
    std::vector<float> got = cast(convolved, kFloat32).to_vector<float>();
    std::vector<float> want =
        convolve(cast(images, kFloat32), cast(filters, kFloat32)).to_vector<float>();
    std::vector<float> magnitudes =
        convolve(abs(cast(images, kFloat32)), abs(cast(filters, kFloat32))).to_vector<float>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 0x1p-8 * std::fabs(want[i]) + 0x1p-20 * magnitudes[i]) << i;
  }
  auto gradients = ember::function(
      [](const Tensor &x, const Tensor &w) { return matmul(transpose(x), matmul(x, w)); });
  Tensor x = cast(random_uniform({96, 64}, 11) - 0.5f, kBFloat16);
  Tensor w = cast(random_uniform({64, 80}, 12) - 0.5f, kBFloat16);
  Tensor inner = matmul(x, w);
  expectRoundedProduct(inner, x, w, /*roundedToBF16=*/true);
  Tensor outer = gradients(x, w);
  EXPECT_EQ(outer.dtype(), kBFloat16);
  // (x^T @ inner, inner already rounded: one more rounding.)
  expectRoundedProduct(outer, transpose(x), inner, /*roundedToBF16=*/true);

  // A float32 matmul of bfloat16 values widened inside a traced function:
  // float32 sums, not rounded (tiles stored straight into C).
  auto widened = ember::function([](const Tensor &a, const Tensor &b) {
    return matmul(cast(a, kFloat32), cast(b, kFloat32));
  });
  Tensor a = cast(random_uniform({64, 128}, 7) - 0.5f, kBFloat16);
  Tensor b = cast(random_uniform({128, 96}, 8) - 0.5f, kBFloat16);
  Tensor product = widened(a, b);
  EXPECT_EQ(product.dtype(), kFloat32);
  expectRoundedProduct(product, a, b, /*roundedToBF16=*/false);
}

TEST(Float16, AnUnknownBFloat16InstructionSetIsRefusedByName) {
  // EMBER_BF16_MATMULS is read when code is compiled; put back as it was
  // (ctest runs this suite once with it set).
  const char *before = std::getenv("EMBER_BF16_MATMULS");
  std::string saved = before ? before : "";
  ::setenv("EMBER_BF16_MATMULS", "tiles", 1);
  auto affine = ember::function([](const Tensor &x) { return x * 3.f + 1.f; });
  std::string message = test::errorOf([&] { affine(Tensor({1.f, 2.f, 7.f})); });
  if (before)
    ::setenv("EMBER_BF16_MATMULS", saved.c_str(), 1);
  else
    ::unsetenv("EMBER_BF16_MATMULS");
  EXPECT_NE(message.find("EMBER_BF16_MATMULS=tiles: expected amx, avx512bf16 or none"),
            std::string::npos)
      << message;
}

TEST(Float16, TracedFunctionsAndGradients) {
  auto step = ember::function(
      [](const Tensor &w, const Tensor &x) {
        GradientTape tape;
        tape.watch(w);
        Tensor loss = reduce_sum(matmul(x, w) * matmul(x, w));
        return tape.gradient(loss, {w})[0].value();
      },
      "bf16_gradient");
  Tensor w = cast(random_uniform({8, 4}, 5) - 0.5f, kBFloat16);
  Tensor x = cast(random_uniform({16, 8}, 6), kBFloat16);
  Tensor g = step(w, x);
  EXPECT_EQ(g.dtype(), kBFloat16);
  // d/dw sum((xw)^2) = 2 x^T (x w), from float32 values of the same inputs;
  // bfloat16 keeps 8 bits, and the traced gradient rounds after each op.
  Tensor w32 = cast(w, kFloat32), x32 = cast(x, kFloat32);
  // The error bound: a few bfloat16 units of the terms' magnitudes, which
  // may cancel in the sum.
  Tensor expected = matmul(transpose(x32), matmul(x32, w32)) * 2.f;
  Tensor magnitudes = matmul(transpose(abs(x32)), abs(matmul(x32, w32))) * 2.f;
  std::vector<float> got = cast(g, kFloat32).to_vector<float>();
  std::vector<float> want = expected.to_vector<float>();
  std::vector<float> scale = magnitudes.to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], scale[i] * 0x1p-6f) << i;
}

TEST(Float16, OptimizersUpdateHalfPrecisionVariables) {
  // The learning rate (a float64 number) meets bfloat16 variables: cast in
  // compiled code from float64, rounded once.
  Variable v(cast(Tensor({1.f, 2.f}), kBFloat16));
  optimizers::SGD sgd(0.1);
  GradientTape tape;
  Tensor loss = reduce_sum(v.value() * v.value());
  sgd.apply_gradients(tape.gradient(loss, {v}), {v});
  EXPECT_EQ(v.value().dtype(), kBFloat16);
  // v - 0.1 * 2v, each op rounded to bfloat16: 0.1 is 0.10009765625 there.
  float lr = BFloat16(0.1);
  std::vector<float> expected;
  for (float x : {1.f, 2.f})
    expected.push_back(BFloat16(x - static_cast<float>(BFloat16(lr * static_cast<float>(BFloat16(2 * x))))));
  EXPECT_EQ(v.value().to_vector<float>(), expected);
}

// Keras's mixed precision: layers keep float32 variables and compute in the
// input's 16-bit type; gradients reach the variables as float32.
TEST(Float16, LayersKeepFloat32VariablesAndComputeInHalfPrecision) {
  layers::Dense dense(3, "relu", /*use_bias=*/true, /*seed=*/4);
  layers::Conv2D conv(2, {3, 3}, "linear", {1, 1}, "SAME", /*seed=*/5);
  Tensor images = cast(random_uniform({2, 5, 5, 1}, 6), kBFloat16);
  Tensor x = cast(random_uniform({4, 6}, 7), kBFloat16);
  GradientTape tape;
  Tensor y = dense(x);
  Tensor z = conv(images);
  EXPECT_EQ(y.dtype(), kBFloat16);
  EXPECT_EQ(z.dtype(), kBFloat16);
  for (const Variable &v : dense.trainable_variables())
    EXPECT_EQ(v.dtype(), kFloat32);
  for (const Variable &v : conv.trainable_variables())
    EXPECT_EQ(v.dtype(), kFloat32);
  // The layer's output: the float32 computation with the weights as bfloat16
  // holds them, to bfloat16 precision (the product and the bias add round).
  auto rounded = [](const Variable &v) { return cast(cast(v.value(), kBFloat16), kFloat32); };
  Tensor expected = relu(matmul(cast(x, kFloat32), rounded(dense.trainable_variables()[0])) +
                         rounded(dense.trainable_variables()[1]));
  std::vector<float> got = cast(y, kFloat32).to_vector<float>();
  std::vector<float> want = expected.to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], std::abs(want[i]) * 0x1p-7f + 1e-6f) << i;
  // Losses of 16-bit predictions are float32 (Keras's loss dtype).
  Tensor mse = losses::MeanSquaredError()(zeros({4, 3}), y);
  Tensor crossEntropy = losses::SparseCategoricalCrossentropy(/*from_logits=*/true)(
      Tensor({0, 1, 2, 0}), y);
  EXPECT_EQ(mse.dtype(), kFloat32);
  EXPECT_EQ(crossEntropy.dtype(), kFloat32);
  Tensor loss = mse + crossEntropy + reduce_sum(cast(z, kFloat32));
  std::vector<Variable> variables = dense.trainable_variables();
  for (const Variable &v : conv.trainable_variables())
    variables.push_back(v);
  std::vector<std::optional<Tensor>> grads = tape.gradient(loss, variables);
  optimizers::SGD sgd(0.01);
  for (size_t i = 0; i < grads.size(); ++i) {
    ASSERT_TRUE(grads[i].has_value()) << i;
    EXPECT_EQ(grads[i]->dtype(), kFloat32) << i;
  }
  sgd.apply_gradients(grads, variables);
  EXPECT_EQ(dense.trainable_variables()[0].dtype(), kFloat32);
}

TEST(Float16, PrintsShortestDigitsOfItsOwnType) {
  // numpy: np.array([0.1, 0.2, 1.5], np.float16) prints [0.1 0.2 1.5], not
  // float32's digits of the same values (0.09998, 0.2, 1.5).
  Tensor h = cast(Tensor({0.1f, 0.2f, 1.5f}), kFloat16);
  EXPECT_EQ(h.values_string(), "[0.1 0.2 1.5]");
  EXPECT_EQ(cast(Tensor(0.1f), kFloat16).values_string(), "0.1");
  // numpy 1.24 uses float64's cut-offs for every float dtype (1e8, 1e-4, a
  // ratio of 1e3); bfloat16, which it lacks, follows the same rule.
  EXPECT_EQ(cast(Tensor({1.f, 1000.f}), kFloat16).values_string(), "[   1. 1000.]");
  EXPECT_EQ(cast(Tensor({1.f, 1001.f}), kFloat16).values_string(), "[1.000e+00 1.001e+03]");
  EXPECT_EQ(cast(Tensor({1.1f, 300.f}), kFloat16).values_string(), "[  1.1 300. ]");
  EXPECT_EQ(cast(Tensor({2048.f}), kFloat16).values_string(), "[2048.]");
  EXPECT_EQ(cast(Tensor({65504.f}), kFloat16).values_string(), "[65504.]");
  EXPECT_EQ(cast(Tensor(65504.f), kFloat16).values_string(), "65500.0"); // its shortest digits
  EXPECT_EQ(cast(Tensor({1.1f, 300.f}), kBFloat16).values_string(), "[  1.1 300. ]");
  EXPECT_EQ(cast(Tensor({256.f, 1.f}), kBFloat16).values_string(), "[256.   1.]");
  EXPECT_EQ(cast(Tensor({1.f, 1024.f}), kBFloat16).values_string(), "[1.000e+00 1.024e+03]");
  EXPECT_NE(h.to_string().find("dtype=float16"), std::string::npos);
  EXPECT_NE(cast(h, kBFloat16).to_string().find("dtype=bfloat16"), std::string::npos);
}

TEST(Float16, FilesKeepTheBits) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "ember-float16-test";
  std::filesystem::create_directories(dir);
  Tensor h = cast(random_uniform({3, 5}, 8) * 100.f, kFloat16);
  Tensor b = cast(random_uniform({4}, 9) - 0.5f, kBFloat16);
  auto bits = [](const Tensor &t) {
    std::vector<uint16_t> out(static_cast<size_t>(t.numel()));
    std::memcpy(out.data(), t.data(), t.nbytes());
    return out;
  };
  // .npy: numpy's '<f2'; numpy has no bfloat16, which saving says.
  save_npy((dir / "h.npy").string(), h);
  Tensor loaded = load_npy((dir / "h.npy").string());
  EXPECT_EQ(loaded.dtype(), kFloat16);
  EXPECT_EQ(bits(loaded), bits(h));
  try {
    save_npy((dir / "b.npy").string(), b);
    FAIL() << "bfloat16 saved as .npy";
  } catch (const IOError &e) {
    EXPECT_NE(std::string(e.what()).find("numpy has no bfloat16 dtype"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "b.npy"));
  // safetensors: F16 and BF16.
  std::string path = (dir / "t.safetensors").string();
  safetensors::save_file(path, {{"h", h}, {"b", b}});
  safetensors::File file(path);
  EXPECT_EQ(file.find("h")->dtype, kFloat16);
  EXPECT_EQ(file.find("b")->dtype, kBFloat16);
  EXPECT_EQ(bits(file.tensor(*file.find("h"))), bits(h));
  EXPECT_EQ(bits(file.tensor(*file.find("b"))), bits(b));
  std::filesystem::remove_all(dir);
}

} // namespace
