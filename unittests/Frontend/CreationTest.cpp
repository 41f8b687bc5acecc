// Creating tensors, reading values back, conversions to C++ values.
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace ember;

TEST(Creation, NestedListsInferTensorFlowDTypes) {
  Tensor i = {{1, 2}, {3, 4}};
  EXPECT_EQ(i.dtype(), DType::Int32);
  EXPECT_EQ(i.shape(), (Shape{2, 2}));
  EXPECT_EQ(i.to_vector<int>(), (std::vector<int>{1, 2, 3, 4}));

  Tensor f = {{2.}};
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(f.shape(), (Shape{1, 1}));

  Tensor b = {true, false};
  EXPECT_EQ(b.dtype(), DType::Bool);

  Tensor wide = {int64_t(1) << 40, int64_t(2)};
  EXPECT_EQ(wide.dtype(), DType::Int64);
  EXPECT_EQ(wide.to_vector<int64_t>()[0], int64_t(1) << 40);

  Tensor mixed = {1, 2.5};
  EXPECT_EQ(mixed.dtype(), DType::Float32);
  EXPECT_EQ(mixed.to_vector<float>(), (std::vector<float>{1.f, 2.5f}));

  Tensor three = {{{1, 2}}, {{3, 4}}, {{5, 6}}};
  EXPECT_EQ(three.shape(), (Shape{3, 1, 2}));
}

TEST(Creation, ExplicitDTypeConverts) {
  Tensor d({1, 2, 3}, DType::Float64);
  EXPECT_EQ(d.dtype(), DType::Float64);
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{1, 2, 3}));
  Tensor t({0.0, 2.5, -3.7}, DType::Int32); // float -> int truncates toward zero
  EXPECT_EQ(t.to_vector<int>(), (std::vector<int>{0, 2, -3}));
  Tensor b({0, 3, -1}, DType::Bool);
  EXPECT_EQ(b.to_vector<int>(), (std::vector<int>{0, 1, 1}));
}

// NaN, infinities and values beyond the integer type (undefined behavior
// for the C++ cast, which the sanitizer build caught): they saturate at the
// type's limits and NaN gives 0, on the host and in compiled code alike
// (XLA's rule; x86's own conversion gives the minimum, ARM's and NVIDIA's
// saturate). Traced code whose constants were cast out of range computed
// arbitrary values (LLVM folds such conversions to poison).
TEST(Creation, FloatsOutOfIntegerRangeSaturate) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr int32_t min32 = std::numeric_limits<int32_t>::min();
  constexpr int32_t max32 = std::numeric_limits<int32_t>::max();
  constexpr int64_t min64 = std::numeric_limits<int64_t>::min();
  constexpr int64_t max64 = std::numeric_limits<int64_t>::max();
  Tensor t({nan, inf, -inf, 3e9, -3e9, 2147483647.0, -2147483648.0, -2.5}, DType::Int32);
  EXPECT_EQ(t.to_vector<int>(), (std::vector<int>{0, max32, min32, max32, min32, 2147483647,
                                                   min32, -2}));
  Tensor f = Tensor({float(nan), 1e30f, -1e30f, 0x1p62f, -0x1p63f, 7.9f, 0x1p63f}, DType::Float32);
  EXPECT_EQ(f.to_vector<int64_t>(), (std::vector<int64_t>{0, max64, min64, int64_t(1) << 62,
                                                          min64, 7, max64}));
  EXPECT_EQ(Tensor(float(nan)).item<int>(), 0);
  EXPECT_EQ(cast(f, DType::Int64).to_vector<int64_t>(), f.to_vector<int64_t>());
  Tensor g = Tensor({float(nan), 1e30f, -1e30f, 3e9f, -2.5f, -0x1p31f, 0x1p31f});
  std::vector<int> expected = {0, max32, min32, max32, -2, min32, max32};
  EXPECT_EQ(cast(g, DType::Int32).to_vector<int>(), expected);
  EXPECT_EQ(g.to_vector<int>(), expected);
  // Compiled (vectorized) and traced with the values as constants, which
  // the folder converts.
  EXPECT_EQ(cast(broadcast_to(g, {9, 7}), DType::Int32).to_vector<int>()[7 * 8 + 1], max32);
  auto traced = function([&](const Tensor &x) { return cast(g, DType::Int32) + x; });
  EXPECT_EQ(traced(Tensor(0)).to_vector<int>(), expected);
  auto computed = function([](const Tensor &x) { return cast(x * 2.f, DType::Int32); });
  EXPECT_EQ(computed(g).to_vector<int>(), (std::vector<int>{0, max32, min32, max32, -5, min32, max32}));
  for (DType half : {kFloat16, kBFloat16})
    EXPECT_EQ(cast(cast(Tensor({-INFINITY, INFINITY, NAN, -3.5f}), half), DType::Int32).to_vector<int>(),
              (std::vector<int>{min32, max32, 0, -3}));
}

// Element counts past 2^60 are refused: 2^40 x 2^40 wrapped to 0 elements,
// and printing the "empty" tensor read past its buffer.
TEST(Creation, ShapesOfMoreThan2To60ElementsAreRefused) {
  std::string message;
  try {
    zeros({int64_t(1) << 40, int64_t(1) << 40});
  } catch (const Error &e) {
    message = e.what();
  }
  EXPECT_NE(message.find("more than 2^60 elements: (1099511627776, 1099511627776"), std::string::npos)
      << message;
  EXPECT_THROW(eye(int64_t(1) << 31), Error);
  EXPECT_THROW(reshape(zeros({0}), {0, int64_t(1) << 62, 8}), Error);
  EXPECT_EQ(zeros({0, int64_t(1) << 30, int64_t(1) << 30}).numel(), 0); // 2^60: allowed
}

TEST(Creation, RaggedListsAreRefused) {
  EXPECT_THROW((Tensor{{1, 2}, {3}}), Error);
}

TEST(Creation, Scalars) {
  Tensor s(3);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.dtype(), DType::Int32);
  EXPECT_EQ(int(s), 3);
  Tensor zero(0); // not a null pointer
  EXPECT_TRUE(zero.defined());
  EXPECT_EQ(Tensor(2.5).dtype(), DType::Float32);
  EXPECT_DOUBLE_EQ(double(Tensor(2.5)), 2.5);
  EXPECT_TRUE(bool(Tensor(true)));
  EXPECT_EQ(Tensor(7, DType::Int64).dtype(), DType::Int64);
  // A 64-bit C++ integer is int64, as in lists (it was int32, wrapped).
  Tensor wide(int64_t(1) << 40);
  EXPECT_EQ(wide.dtype(), DType::Int64);
  EXPECT_EQ(wide.item<int64_t>(), int64_t(1) << 40);
  EXPECT_EQ(Tensor(int64_t{7}).dtype(), Tensor({int64_t{7}}).dtype());
}

TEST(Creation, ItemNeedsOneElement) {
  Tensor v = {1, 2};
  try {
    (void)v.item<int>();
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("(2,)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Tensor({5}).item<int>(), 5);
}

TEST(Creation, Fills) {
  EXPECT_EQ(zeros({2, 3}).to_vector<float>(), std::vector<float>(6, 0.f));
  EXPECT_EQ(ones({2}, DType::Int64).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  Tensor f = full({2, 2}, 7.5, DType::Float64);
  EXPECT_EQ(f.dtype(), DType::Float64);
  EXPECT_EQ(f.to_vector<double>(), std::vector<double>(4, 7.5));
}

TEST(Creation, Arange) {
  EXPECT_EQ(arange(0, 5).to_vector<int>(), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(5, 0, -2).to_vector<int>(), (std::vector<int>{5, 3, 1}));
  EXPECT_EQ(arange(0, 1, 0.25, DType::Float32).to_vector<float>(),
            (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  EXPECT_THROW(arange(0, 1, 0), Error);
  // Counts an int64 cannot hold (the conversion was undefined behavior).
  EXPECT_THROW(arange(0, 1e30, 1e-30, DType::Float32), Error);
  EXPECT_THROW(arange(0, NAN, 1, DType::Float32), Error);
  EXPECT_THROW(arange(0, INFINITY, 1, DType::Float32), Error);
}

TEST(Creation, RandomIsSeededAndInRange) {
  Tensor a = random_uniform({1000}, 42, -1, 1);
  Tensor b = random_uniform({1000}, 42, -1, 1);
  Tensor c = random_uniform({1000}, 43, -1, 1);
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  EXPECT_NE(a.to_vector<float>(), c.to_vector<float>());
  for (float v : a.to_vector<float>()) {
    EXPECT_GE(v, -1.f);
    EXPECT_LT(v, 1.f);
  }
  Tensor n = random_normal({20000}, 7, 3.0, 2.0, DType::Float64);
  std::vector<double> values = n.to_vector<double>();
  double mean = 0, var = 0;
  for (double v : values)
    mean += v / values.size();
  for (double v : values)
    var += (v - mean) * (v - mean) / values.size();
  EXPECT_NEAR(mean, 3.0, 0.05);
  EXPECT_NEAR(var, 4.0, 0.15);
  EXPECT_EQ(random_normal({5}, 7).to_vector<float>(), random_normal({5}, 7).to_vector<float>());
}

// Samples never reach maxval once rounded to a narrow dtype: in bfloat16,
// one sample of [0, 1) in 500 came out as 1.0 (the double sample rounded up).
TEST(Creation, RandomUniformStaysBelowMaxvalInEveryFloatType) {
  for (DType dtype : {DType::BFloat16, DType::Float16, DType::Float32, DType::Float64}) {
    for (auto [low, high] : {std::pair{0.0, 1.0}, {-1.0, 0.0}, {-3.0, 0.1}}) {
      SCOPED_TRACE(std::string(dtypeName(dtype)) + " [" + std::to_string(low) + ", " +
                   std::to_string(high) + ")");
      std::vector<double> values =
          cast(random_uniform({1 << 18}, 11, low, high, dtype), DType::Float64).to_vector<double>();
      double largest = *std::max_element(values.begin(), values.end());
      double smallest = *std::min_element(values.begin(), values.end());
      EXPECT_LT(largest, high);
      EXPECT_GE(smallest, low);
      // Spread over the range, not piled up below maxval.
      EXPECT_GT(largest, high - (high - low) * 0.01);
      EXPECT_LT(smallest, low + (high - low) * 0.01);
    }
  }
  // Bounds the dtype cannot hold: an error, not infinite samples.
  EXPECT_THROW(random_uniform({4}, 1, 0, 1e6, DType::Float16), Error);
  EXPECT_THROW(random_uniform({4}, 1, 0, 1e39, DType::Float32), Error);
  EXPECT_THROW(random_uniform({4}, 1, 0, INFINITY, DType::Float64), Error);
}

// Integers as tf.random.uniform: uniform in [minval, maxval), rounding down
// (truncation made 0 twice as likely as any other value in [-5, 5) and
// never gave -5).
TEST(Creation, RandomUniformIntegersAreUniform) {
  std::vector<int> counts(10);
  for (int v : random_uniform({100000}, 3, -5, 5, DType::Int32).to_vector<int>()) {
    ASSERT_GE(v, -5);
    ASSERT_LT(v, 5);
    ++counts[v + 5];
  }
  for (int count : counts)
    EXPECT_NEAR(count, 10000, 500);
  std::vector<int64_t> wide =
      random_uniform({1000}, 4, -0x1p40, 0x1p40, DType::Int64).to_vector<int64_t>();
  EXPECT_LT(*std::min_element(wide.begin(), wide.end()), -(int64_t(1) << 38));
  EXPECT_GT(*std::max_element(wide.begin(), wide.end()), int64_t(1) << 38);
  EXPECT_THROW(random_uniform({4}, 1, 0.5, 3, DType::Int32), Error);    // not whole
  EXPECT_THROW(random_uniform({4}, 1, 3, 3, DType::Int64), Error);      // empty range
  EXPECT_THROW(random_uniform({4}, 1, 0, 0x1p32, DType::Int32), Error); // past int32
  EXPECT_THROW(random_uniform({4}, 1, 0, 1, DType::Bool), Error);
  // Normal samples are floats only (tf.random.normal refuses integer types).
  EXPECT_THROW(random_normal({4}, 1, 0, 1, DType::Int32), Error);
}

TEST(Creation, FromVector) {
  Tensor t = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.data_ptr<float>()[5], 6.f);
  EXPECT_THROW(t.data_ptr<double>(), Error);
  EXPECT_THROW(Tensor::from_vector(std::vector<float>{1, 2}, {3}), Error);
  Tensor b = Tensor::from_vector(std::vector<bool>{true, false}, {2});
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.to_vector<int>(), (std::vector<int>{1, 0}));
  Tensor l = Tensor::from_vector(std::vector<long>{1, 2}, {2});
  EXPECT_EQ(l.to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
}

TEST(Creation, Printing) {
  Tensor a = {{1, 2}, {3, 4}};
  EXPECT_EQ(a.to_string(), "ember.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)");
  EXPECT_EQ(Tensor({1, 2, 3}).to_string(), "ember.Tensor([1 2 3], shape=(3,), dtype=int32)");
  EXPECT_EQ(Shape{}.str(), "()");
}

TEST(Creation, EagerIsTheDefault) { EXPECT_TRUE(executing_eagerly()); }
