// Every eager op computes what numpy computes, through the real JIT.
#include "ember/ember.h"
#include "ember/JIT/ModuleCompiler.h"

#include "ErrorTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <regex>
#include <string>
#include <tuple>

using namespace ember;
using ember::test::errorOf;
using ember::test::expectContains;

namespace {
std::vector<float> floats(const Tensor &t) { return t.to_vector<float>(); }
std::vector<int> ints(const Tensor &t) { return t.to_vector<int>(); }

void expectNear(const std::vector<float> &actual, const std::vector<float> &expected,
                float tolerance = 1e-5f) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(actual[i])) << i;
    else
      EXPECT_NEAR(actual[i], expected[i], tolerance * std::max(1.f, std::fabs(expected[i]))) << i;
  }
}
} // namespace

TEST(Ops, Arithmetic) {
  Tensor a = {1.f, -2.f, 3.5f}, b = {2.f, 4.f, -0.5f};
  EXPECT_EQ(floats(a + b), (std::vector<float>{3, 2, 3}));
  EXPECT_EQ(floats(a - b), (std::vector<float>{-1, -6, 4}));
  EXPECT_EQ(floats(a * b), (std::vector<float>{2, -8, -1.75f}));
  EXPECT_EQ(floats(a / b), (std::vector<float>{0.5f, -0.5f, -7}));
  expectNear(floats(pow(Tensor({2.f, 9.f}), Tensor({3.f, 0.5f}))), {8, 3});
  EXPECT_EQ(floats(maximum(a, b)), (std::vector<float>{2, 4, 3.5f}));
  EXPECT_EQ(floats(minimum(a, b)), (std::vector<float>{1, -2, -0.5f}));
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(floats(maximum(Tensor({nan}), Tensor({1.f})))[0]));
}

// numpy's maximum and minimum: NaN on either side propagates; of equal
// operands (-0 and +0) the first is the result. Compiled code (eager, and
// traced on values only known at run time) and the folder (traced on
// constants) agree.
TEST(Ops, MaximumAndMinimumPropagateNaNAndKeepTheFirstOfEqualOperands) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor a = {nan, 1.f, 0.f, -0.f, 2.f}, b = {1.f, nan, -0.f, 0.f, 2.f};
  auto check = [&](const std::vector<float> &max, const std::vector<float> &min,
                   const char *where) {
    for (int i : {0, 1}) {
      EXPECT_TRUE(std::isnan(max[i])) << where << " maximum " << i;
      EXPECT_TRUE(std::isnan(min[i])) << where << " minimum " << i;
    }
    EXPECT_FALSE(std::signbit(max[2])) << where; // maximum(+0, -0) = +0
    EXPECT_TRUE(std::signbit(max[3])) << where;  // maximum(-0, +0) = -0
    EXPECT_FALSE(std::signbit(min[2])) << where;
    EXPECT_TRUE(std::signbit(min[3])) << where;
    EXPECT_EQ(max[4], 2.f) << where;
  };
  check(floats(maximum(a, b)), floats(minimum(a, b)), "eager");
  auto traced = function([](const Tensor &x, const Tensor &y) {
    return std::make_tuple(maximum(x, y), minimum(x, y));
  }, "extrema");
  auto [max, min] = traced(a, b);
  check(floats(max), floats(min), "traced");
  auto folded = function([&](const Tensor &) {
    return std::make_tuple(maximum(a, b), minimum(a, b));
  }, "folded_extrema");
  auto [fmax, fmin] = folded(Tensor(0.f));
  check(floats(fmax), floats(fmin), "folded");
}

TEST(Ops, Float32TranscendentalsMatchLibmOverTheirRange) {
  // exp, log, log1p, tanh and sigmoid on float32 run as polynomial
  // approximations (ember-approximate-math): within a few ulp of libm over
  // the range, and the same special values.
  float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x;
  for (float v = -100.f; v <= 100.f; v += 0.37f)
    x.push_back(v);
  for (float v : {0.f, -0.f, 1e-30f, -1e-30f, 1e-6f, 88.f, 89.f, -87.f, -104.f, inf, -inf, nan})
    x.push_back(v);
  Tensor t = Tensor::from_vector(x, {static_cast<int64_t>(x.size())});
  Tensor positive = abs(t);
  auto check = [&](const char *name, const Tensor &got, const Tensor &input, auto reference) {
    std::vector<float> values = got.to_vector<float>(), inputs = input.to_vector<float>();
    for (size_t i = 0; i < values.size(); ++i) {
      float expected = reference(inputs[i]);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(values[i])) << name << "(" << inputs[i] << ") = " << values[i];
      } else if (std::isinf(expected) || expected == 0) {
        EXPECT_EQ(values[i], expected) << name << "(" << inputs[i] << ")";
      } else {
        EXPECT_NEAR(values[i], expected, 4e-6f * std::fabs(expected) + 1e-37f)
            << name << "(" << inputs[i] << ")";
      }
    }
  };
  check("exp", exp(t), t, [](float v) { return std::exp(v); });
  check("log", log(positive), positive, [](float v) { return std::log(v); });
  check("log1p", log1p(positive), positive, [](float v) { return std::log1p(v); });
  check("erf", erf(t), t, [](float v) { return std::erf(v); });
  check("atan", atan(t), t, [](float v) { return std::atan(v); });
  check("asin", asin(t), t, [](float v) { return std::asin(v); }); // NaN outside [-1, 1]
  check("acos", acos(t), t, [](float v) { return std::acos(v); });
  check("tanh", tanh(t), t, [](float v) { return std::tanh(v); });
  check("sigmoid", sigmoid(t), t, [](float v) { return 1 / (1 + std::exp(-v)); });
}

TEST(Ops, BatchesOfLargeMatmulsMatchALoopInDoublePrecision) {
  // [3, 64, 48] x [3, 48, 80]: each matmul large enough to be blocked for the
  // registers, one after the other over the batch (float64 and float32).
  for (DType dtype : {DType::Float64, DType::Float32}) {
    Tensor a = cast(random_normal({3, 64, 48}, 31), dtype),
           b = cast(random_normal({3, 48, 80}, 32), dtype);
    std::vector<double> av = cast(a, DType::Float64).to_vector<double>(),
                        bv = cast(b, DType::Float64).to_vector<double>();
    // Traced: static sizes (an eager op's generic kernel takes any).
    auto product = function([](const Tensor &x, const Tensor &y) { return matmul(x, y); });
    std::vector<double> got = cast(product(a, b), DType::Float64).to_vector<double>();
    ASSERT_EQ(got.size(), size_t(3 * 64 * 80));
    for (int64_t n = 0; n < 3; ++n)
      for (int64_t i = 0; i < 64; ++i)
        for (int64_t j = 0; j < 80; ++j) {
          double sum = 0;
          for (int64_t k = 0; k < 48; ++k)
            sum += av[(n * 64 + i) * 48 + k] * bv[(n * 48 + k) * 80 + j];
          ASSERT_NEAR(got[(n * 64 + i) * 80 + j], sum, dtype == DType::Float64 ? 1e-12 : 1e-4)
              << describe(a) << " batch " << n << " [" << i << ", " << j << "]";
        }
  }
}

TEST(Ops, IntegerDivisionFollowsCppAndNumpy) {
  Tensor a = {7, -7, 7, -7}, b = {2, 2, -2, -2};
  EXPECT_EQ(ints(a / b), (std::vector<int>{3, -3, -3, 3}));       // truncates (C++)
  EXPECT_EQ(ints(floordiv(a, b)), (std::vector<int>{3, -4, -4, 3})); // numpy //
  EXPECT_EQ(ints(a % b), (std::vector<int>{1, 1, -1, -1}));       // numpy %
  Tensor f = {7.f, -7.f, 7.f, -7.f}, g = {2.f, 2.f, -2.f, -2.f};
  EXPECT_EQ(floats(floordiv(f, g)), (std::vector<float>{3, -4, -4, 3}));
  EXPECT_EQ(floats(mod(f, g)), (std::vector<float>{1, 1, -1, -1}));
  EXPECT_EQ(ints(pow(Tensor({2, -3, 5}), Tensor({10, 3, 0}))), (std::vector<int>{1024, -27, 1}));
}

TEST(Ops, UnaryMath) {
  std::vector<float> x = {0.25f, 1.f, 2.5f};
  Tensor t = Tensor::from_vector(x, {3});
  auto apply = [&](float (*f)(float)) {
    std::vector<float> out;
    for (float v : x)
      out.push_back(f(v));
    return out;
  };
  expectNear(floats(exp(t)), apply([](float v) { return std::exp(v); }));
  expectNear(floats(log(t)), apply([](float v) { return std::log(v); }));
  expectNear(floats(log1p(t)), apply([](float v) { return std::log1p(v); }));
  expectNear(floats(sqrt(t)), apply([](float v) { return std::sqrt(v); }));
  expectNear(floats(rsqrt(t)), apply([](float v) { return 1 / std::sqrt(v); }));
  expectNear(floats(tanh(t)), apply([](float v) { return std::tanh(v); }));
  expectNear(floats(sigmoid(t)), apply([](float v) { return 1 / (1 + std::exp(-v)); }));
  expectNear(floats(sin(t)), apply([](float v) { return std::sin(v); }));
  expectNear(floats(cos(t)), apply([](float v) { return std::cos(v); }));
  Tensor s = {-2.f, 0.f, 3.f};
  EXPECT_EQ(floats(neg(s)), (std::vector<float>{2, -0.f, -3}));
  EXPECT_EQ(floats(-s), (std::vector<float>{2, -0.f, -3}));
  EXPECT_EQ(floats(abs(s)), (std::vector<float>{2, 0, 3}));
  EXPECT_EQ(floats(relu(s)), (std::vector<float>{0, 0, 3}));
  EXPECT_EQ(floats(square(s)), (std::vector<float>{4, 0, 9}));
  EXPECT_EQ(floats(sign(s)), (std::vector<float>{-1, 0, 1}));
  EXPECT_EQ(ints(abs(Tensor({-3, 4}))), (std::vector<int>{3, 4}));
  EXPECT_EQ(ints(sign(Tensor({-3, 0, 4}))), (std::vector<int>{-1, 0, 1}));
}

TEST(Ops, ComparisonsAndLogic) {
  Tensor a = {1, 2, 3}, b = {3, 2, 1};
  EXPECT_EQ((a == b).to_vector<int>(), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ((a != b).to_vector<int>(), (std::vector<int>{1, 0, 1}));
  EXPECT_EQ((a < b).to_vector<int>(), (std::vector<int>{1, 0, 0}));
  EXPECT_EQ((a <= b).to_vector<int>(), (std::vector<int>{1, 1, 0}));
  EXPECT_EQ((a > b).to_vector<int>(), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ((a >= b).to_vector<int>(), (std::vector<int>{0, 1, 1}));
  EXPECT_EQ((a > b).dtype(), DType::Bool);
  Tensor p = {true, true, false}, q = {true, false, false};
  EXPECT_EQ((p & q).to_vector<int>(), (std::vector<int>{1, 0, 0}));
  EXPECT_EQ((p | q).to_vector<int>(), (std::vector<int>{1, 1, 0}));
  EXPECT_EQ((~p).to_vector<int>(), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(ints(Tensor({6, 5}) & Tensor({3, 3})), (std::vector<int>{2, 1}));
  EXPECT_EQ(ints(logical_not(Tensor({0}))), (std::vector<int>{-1}));
  EXPECT_EQ(ints(where(a > 1, a, Tensor(0))), (std::vector<int>{0, 2, 3}));
  float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor n = {nan};
  EXPECT_FALSE(bool(n == n));
  EXPECT_TRUE(bool(n != n));
}

TEST(Ops, Cast) {
  Tensor f = {-2.7f, 0.f, 3.9f};
  EXPECT_EQ(ints(cast(f, DType::Int32)), (std::vector<int>{-2, 0, 3}));
  EXPECT_EQ(cast(f, DType::Bool).to_vector<int>(), (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(floats(cast(Tensor({true, false}), DType::Float32)), (std::vector<float>{1, 0}));
  EXPECT_EQ(cast(Tensor({1, 2}), DType::Int64).to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(cast(Tensor({1.5}), DType::Float64).to_vector<double>(), (std::vector<double>{1.5}));
}

TEST(Ops, BroadcastingAndScalars) {
  Tensor a = {{1, 2}, {3, 4}};
  EXPECT_EQ(ints(a + 1), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(ints(10 - a), (std::vector<int>{9, 8, 7, 6}));
  EXPECT_EQ(ints(a * Tensor({10, 100})), (std::vector<int>{10, 200, 30, 400}));
  EXPECT_EQ(ints(a + Tensor({{10}, {20}})), (std::vector<int>{11, 12, 23, 24}));
  Tensor f = {1.f, 2.f};
  EXPECT_EQ((f * 2.5).dtype(), DType::Float32);
  EXPECT_EQ((a * 2).dtype(), DType::Int32); // the scalar takes the tensor's dtype
  EXPECT_THROW(a * 2.5, OpError);            // ... but a float never truncates silently
  Tensor b = broadcast_to(Tensor({1, 2, 3}), {2, 3});
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  EXPECT_EQ(ints(b), (std::vector<int>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(ints(broadcast_to(Tensor(5), {2})), (std::vector<int>{5, 5}));
}

TEST(Ops, Shapes) {
  Tensor x = arange(0, 6);
  Tensor r = reshape(x, {2, -1});
  EXPECT_EQ(r.shape(), (Shape{2, 3}));
  EXPECT_EQ(reshape(Tensor({7}), {}).shape(), Shape{});
  Tensor t = transpose(r);
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(ints(t), (std::vector<int>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(ints(transpose(reshape(arange(0, 24), {2, 3, 4}), {1, 0, 2})).size(), 24u);
  EXPECT_EQ(ints(slice(arange(0, 10), {1}, {9}, {3})), (std::vector<int>{1, 4, 7}));
  EXPECT_EQ(ints(slice(r, {0, 1}, {2, 3})), (std::vector<int>{1, 2, 4, 5}));
  EXPECT_EQ(ints(concat({Tensor({1, 2}), Tensor({3})})), (std::vector<int>{1, 2, 3}));
  Tensor c = concat({r, r}, -1);
  EXPECT_EQ(c.shape(), (Shape{2, 6}));
  EXPECT_EQ(ints(c), (std::vector<int>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  EXPECT_EQ(ints(gather(Tensor({10, 20, 30}), Tensor({2, -1, 0}))), (std::vector<int>{30, 30, 10}));
  Tensor g = gather(r, Tensor({{1}, {0}}, DType::Int64), 1);
  EXPECT_EQ(g.shape(), (Shape{2, 2, 1}));
  EXPECT_EQ(ints(g), (std::vector<int>{1, 0, 4, 3}));
}

// scatter_* put gather's shape of updates back along an axis; x is unchanged.
TEST(Ops, ScatterPutsUpdatesAlongAnAxis) {
  Tensor x = {1.f, 2.f, 3.f, 4.f};
  Tensor at = Tensor({1, 3, 1, -4}, DType::Int64), u = {10.f, 20.f, 30.f, 40.f};
  EXPECT_EQ(floats(scatter_update(x, at, u)), (std::vector<float>{40, 30, 3, 20})); // last wins
  EXPECT_EQ(floats(scatter_add(x, at, u)), (std::vector<float>{41, 42, 3, 24}));
  EXPECT_EQ(floats(scatter_mul(x, at, u)), (std::vector<float>{40, 600, 3, 80}));
  EXPECT_EQ(floats(scatter_max(x, Tensor({0, 0}), Tensor({-1.f, 0.5f}))),
            (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(floats(scatter_min(x, Tensor({0, 0}), Tensor({-1.f, 0.5f}))),
            (std::vector<float>{-1, 2, 3, 4}));
  EXPECT_EQ(floats(x), (std::vector<float>{1, 2, 3, 4}));
  // Along axis 1 of [2, 3], with indices [2, 1]: updates [2, 2, 1].
  Tensor r = reshape(arange(0, 6), {2, 3});
  Tensor columns = Tensor({{2}, {0}}, DType::Int32);
  Tensor put = scatter_add(r, columns, Tensor({{{100}, {200}}, {{300}, {400}}}), 1);
  EXPECT_EQ(put.shape(), (Shape{2, 3}));
  EXPECT_EQ(ints(put), (std::vector<int>{200, 1, 102, 403, 4, 305}));
  // Traced, with a None batch of updates: the same answers.
  auto rows = function(
      [](const Tensor &t, const Tensor &i, const Tensor &v) { return scatter_update(t, i, v, 0); },
      "rows", {.input_signature = {{{4, 2}}, {{kNone}, DType::Int64}, {{kNone, 2}}}});
  Tensor table = zeros({4, 2});
  EXPECT_EQ(floats(rows(table, Tensor({3, 0}, DType::Int64), Tensor({{1.f, 2.f}, {3.f, 4.f}}))),
            (std::vector<float>{3, 4, 0, 0, 0, 0, 1, 2}));
  EXPECT_EQ(floats(rows(table, Tensor({2}, DType::Int64), Tensor({{5.f, 6.f}}))),
            (std::vector<float>{0, 0, 0, 0, 5, 6, 0, 0}));
  EXPECT_EQ(rows.concrete_functions().size(), 1u);
}

TEST(Ops, Reductions) {
  Tensor x = {{1.f, 5.f, 3.f}, {4.f, 2.f, 6.f}};
  EXPECT_EQ(floats(reduce_sum(x)), (std::vector<float>{21}));
  EXPECT_EQ(reduce_sum(x).rank(), 0);
  EXPECT_EQ(floats(reduce_sum(x, {0})), (std::vector<float>{5, 7, 9}));
  Tensor kept = reduce_sum(x, {-1}, true);
  EXPECT_EQ(kept.shape(), (Shape{2, 1}));
  EXPECT_EQ(floats(kept), (std::vector<float>{9, 12}));
  EXPECT_EQ(floats(reduce_max(x, {1})), (std::vector<float>{5, 6}));
  EXPECT_EQ(floats(reduce_min(x, {1})), (std::vector<float>{1, 2}));
  EXPECT_EQ(floats(reduce_prod(x, {0})), (std::vector<float>{4, 10, 18}));
  EXPECT_EQ(floats(reduce_mean(x, {1})), (std::vector<float>{3, 4}));
  EXPECT_EQ(ints(reduce_sum(Tensor({{1, 2}, {3, 4}}), {0, 1}, true)), (std::vector<int>{10}));
  EXPECT_EQ(ints(reduce_max(Tensor({-5, -9}))), (std::vector<int>{-5}));
  Tensor am = argmax(Tensor({{1, 7, 7}, {9, 2, 9}}), 1);
  EXPECT_EQ(am.dtype(), DType::Int64);
  EXPECT_EQ(am.to_vector<int64_t>(), (std::vector<int64_t>{1, 0})); // first maximum wins
  EXPECT_EQ(argmax(x, 0, true).shape(), (Shape{1, 3}));
  // The integer mean of no elements names reduce_mean (it said 'ember.div'),
  // eagerly and traced; the float one is NaN, as in numpy and TensorFlow.
  Tensor none = zeros({0, 3}, DType::Int32);
  auto traced = function([](const Tensor &t) { return reduce_mean(t, {0}); });
  for (auto mean : std::vector<std::function<Tensor()>>{
           [&] { return reduce_mean(none, {0}); }, [&] { return traced(none); }}) {
    try {
      mean();
      ADD_FAILURE() << "no error";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("'ember.reduce_mean' op the integer mean of no "
                                           "elements (int32 tensor of shape (0, 3))"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_TRUE(std::isnan(reduce_mean(zeros({0, 3}), {0}).to_vector<float>()[0]));
}

TEST(Ops, Matmul) {
  EXPECT_EQ(floats(matmul({{2.}}, {{2.}})), (std::vector<float>{4}));
  Tensor a = {{1, 2, 3}, {4, 5, 6}}, b = {{1, 0}, {0, 1}, {1, 1}};
  EXPECT_EQ(ints(matmul(a, b)), (std::vector<int>{4, 5, 10, 11}));
  // Batched against per-batch products.
  Tensor x = random_uniform({2, 3, 4, 5}, 1), y = random_uniform({2, 3, 5, 2}, 2);
  Tensor z = matmul(x, y);
  ASSERT_EQ(z.shape(), (Shape{2, 3, 4, 2}));
  std::vector<float> xv = floats(x), yv = floats(y), zv = floats(z);
  for (int batch = 0; batch < 6; ++batch)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 2; ++j) {
        float sum = 0;
        for (int k = 0; k < 5; ++k)
          sum += xv[batch * 20 + i * 5 + k] * yv[batch * 10 + k * 2 + j];
        EXPECT_NEAR(zv[batch * 8 + i * 2 + j], sum, 1e-5) << batch << " " << i << " " << j;
      }
}

TEST(Ops, DTypesF64AndI64) {
  Tensor d({1.5, 2.5}, DType::Float64);
  EXPECT_EQ((d * d).to_vector<double>(), (std::vector<double>{2.25, 6.25}));
  Tensor l({int64_t(1) << 40, int64_t(3)});
  EXPECT_EQ((l + l).to_vector<int64_t>(), (std::vector<int64_t>{int64_t(1) << 41, 6}));
  EXPECT_EQ(reduce_sum(l).item<int64_t>(), (int64_t(1) << 40) + 3);
}

TEST(Ops, ZeroDimensionalAndEmpty) {
  Tensor s = Tensor(2.f) * Tensor(3.f);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(float(s), 6.f);
  Tensor e = zeros({0, 3}) + 1.f;
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
  // Empty pieces in concat and slice, eager and traced (numpy's results;
  // they failed to compile: extract_slice and insert_slice reject offsets
  // in or past an empty dim).
  Tensor a = Tensor({1, 2, 3});
  EXPECT_EQ(concat({a, zeros({0}, kInt32)}).to_vector<int>(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(concat({zeros({0}, kInt32), a, zeros({0}, kInt32)}).to_vector<int>(),
            (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(slice(zeros({5, 0, 2}), {1, 0}, {5, 0}, {2, 1}).shape(), (Shape{2, 0, 2}));
  EXPECT_EQ(slice(Tensor({1.f, 2.f}), {1}, {0}).shape(), (Shape{0}));
  auto joined = function([](const Tensor &x) { return concat({x, slice(x, {2}, {2})}) + 1; });
  EXPECT_EQ(joined(a).to_vector<int>(), (std::vector<int>{2, 3, 4}));
}

/// Checks c == a @ b (each given as stored, and whether it is transposed)
/// against a plain triple loop in double.
static void expectMatmul(const Tensor &c, const Tensor &a, bool aT, const Tensor &b, bool bT,
                         const std::string &what) {
  int64_t m = c.shape()[0], n = c.shape()[1], k = a.shape()[aT ? 0 : 1];
  std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>(), cv = c.to_vector<double>();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += av[aT ? p * m + i : i * k + p] * bv[bT ? j * k + p : p * n + j];
      ASSERT_NEAR(cv[i * n + j], sum, 1e-4) << what << " at " << i << ", " << j;
    }
}

/// `c` is exactly the int32 product of `a` and `b` (a plain loop's).
static void expectExactInt32Matmul(const Tensor &c, const Tensor &a, const Tensor &b) {
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  std::vector<int32_t> av = a.to_vector<int32_t>(), bv = b.to_vector<int32_t>();
  std::vector<int32_t> cv = c.to_vector<int32_t>();
  ASSERT_EQ(cv.size(), static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int32_t sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += av[i * k + p] * bv[p * n + j];
      ASSERT_EQ(cv[i * n + j], sum) << m << "x" << k << "x" << n << " int32 at " << i << ", " << j;
    }
}

TEST(Ops, LargeMatmulsAreBlockedWithMaskedEdges) {
  // Sizes that are and are not multiples of the 6x16 (f32) / 6x8 (f64)
  // blocks: partial panels are packed, whole ones read in place.
  for (DType dtype : {DType::Float32, DType::Float64})
    for (auto [m, k, n] : {std::tuple{37, 53, 29}, {36, 40, 32}, {64, 20, 48}, {8, 300, 32}}) {
      Tensor a = random_uniform({m, k}, 31, -1, 1, dtype), b = random_uniform({k, n}, 32, -1, 1, dtype);
      Tensor c = matmul(a, b);
      ASSERT_EQ(c.shape(), (Shape{m, n}));
      expectMatmul(c, a, false, b, false, std::string(dtypeName(dtype)) + " " + std::to_string(m));
    }
}

/// Compiles what follows for vector registers of `bits` (blocked matmuls are
/// sized to them), whatever the host has; the default comes back after.
struct VectorBitsScope {
  explicit VectorBitsScope(unsigned bits) { jit::setVectorBits(bits); }
  ~VectorBitsScope() { jit::setVectorBits(0); }
};

// A traced function's constant B (captured weights) is packed into panels
// while compiling (ember-cpu-lower-matmuls): whole and partial panels, in
// place of and beside a B read as stored, and splat weights.
TEST(Ops, MatmulsOfConstantWeightsMatchTheirEagerProducts) {
  for (unsigned bits : {256u, 512u}) {
    VectorBitsScope scope(bits);
    for (auto [m, k, n] : {std::tuple{49, 600, 40}, {30, 700, 64}, {12, 300, 29}}) {
      Tensor a = random_uniform({m, k}, 41, -1, 1), w = random_uniform({k, n}, 42, -1, 1);
      Tensor ones = full({k, n}, 0.5f);
      auto traced = function([&](const Tensor &x) {
        return concat({matmul(x, w), matmul(x, ones)}, 1);
      });
      Tensor c = traced(a);
      std::string what = std::to_string(bits) + " bits, " + std::to_string(n) + " columns";
      expectMatmul(slice(c, {0, 0}, {m, n}), a, false, w, false, what);
      expectMatmul(slice(c, {0, n}, {m, 2 * n}), a, false, ones, false, what + ", splat");
    }
  }
}

// Large integer matmuls are register-blocked too (vector multiplies and
// adds); sizes that fill no whole block of rows or panel of columns
// included. Exact against a plain loop.
TEST(Ops, LargeIntegerMatmulsAreExact) {
  for (DType dtype : {DType::Int32, DType::Int64}) {
    const int m = 40, k = 70, n = 50;
    Tensor a = random_uniform({m, k}, 11, -50, 50, dtype), b = random_uniform({k, n}, 12, -50, 50, dtype);
    std::vector<int64_t> av = cast(a, DType::Int64).to_vector<int64_t>();
    std::vector<int64_t> bv = cast(b, DType::Int64).to_vector<int64_t>();
    std::vector<int64_t> c = cast(matmul(a, b), DType::Int64).to_vector<int64_t>();
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        int64_t expected = 0;
        for (int kk = 0; kk < k; ++kk)
          expected += av[i * k + kk] * bv[kk * n + j];
        ASSERT_EQ(c[i * n + j], expected) << dtypeName(dtype) << " at " << i << ", " << j;
      }
  }
}

TEST(Ops, MatmulConsumersFusedIntoTheBlocksComputeWhatEagerOpsDo) {
  // Traced, the bias, the activation and an update run on each block of the
  // product (ember-fuse-matmul-epilogues); eagerly each is its own kernel.
  // At 512 bits a 29-column product is one panel (whose loop folds away).
  auto dense = [](const Tensor &x, const Tensor &w, const Tensor &b, const Tensor &c) {
    return relu(matmul(x, w) + b) - c * 0.5f;
  };
  for (unsigned bits : {256u, 512u}) {
    VectorBitsScope scope(bits);
    auto traced = function(dense, "dense");
    for (auto [m, k, n] : {std::tuple{37, 53, 29}, {36, 40, 32}, {4, 300, 29}}) {
      Tensor x = random_uniform({m, k}, 81, -1, 1), w = random_uniform({k, n}, 82, -1, 1);
      Tensor b = random_uniform({n}, 83, -1, 1), c = random_uniform({m, n}, 84, -1, 1);
      std::vector<float> got = traced(x, w, b, c).to_vector<float>(), expected = dense(x, w, b, c).to_vector<float>();
      ASSERT_EQ(got.size(), expected.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], expected[i], 1e-5) << bits << " bits, " << m << " " << i;
      std::string ir = traced.ir_stages(x, w, b, c).linalg;
      EXPECT_EQ(ir.find("linalg.generic"), std::string::npos) << bits << " bits\n" << ir;
      EXPECT_NE(ir.find(bits == 512 ? "vector<6x32xf32>" : "vector<6x16xf32>"), std::string::npos)
          << bits << " bits\n" << ir;
    }
  }
}

TEST(Ops, BlockedMatmulsAgreeAt256And512Bits) {
  // The same traced functions compiled for AVX2-wide and AVX-512-wide
  // registers (blocks of 16 and 32 f32 columns) give the same results, on
  // any host: plain, transposed operands, fused epilogues, f64, edge sizes.
  auto plain = [](const Tensor &a, const Tensor &b) { return matmul(a, b); };
  auto lhsT = [](const Tensor &a, const Tensor &b) { return matmul(transpose(a), b); };
  auto rhsT = [](const Tensor &a, const Tensor &b) { return matmul(a, transpose(b)); };
  auto epilogue = [](const Tensor &a, const Tensor &b) { return tanh(matmul(a, b)) * 2.0; };
  std::vector<std::function<Tensor(const Tensor &, const Tensor &)>> bodies = {plain, lhsT, rhsT,
                                                                                epilogue};
  for (DType dtype : {DType::Float32, DType::Float64})
    for (auto [m, k, n] : {std::tuple{37, 53, 29}, {64, 20, 48}, {5, 400, 70}, {100, 33, 33}})
      for (size_t f = 0; f < bodies.size(); ++f) {
        bool transposeA = f == 1, transposeB = f == 2;
        Tensor a = random_uniform(transposeA ? Shape{k, m} : Shape{m, k}, 41, -1, 1, dtype);
        Tensor b = random_uniform(transposeB ? Shape{n, k} : Shape{k, n}, 42, -1, 1, dtype);
        std::vector<double> results[2];
        for (unsigned bits : {256u, 512u}) {
          VectorBitsScope scope(bits);
          auto traced = function(bodies[f], "blocked");
          results[bits == 512] = cast(traced(a, b), DType::Float64).to_vector<double>();
        }
        ASSERT_EQ(results[0].size(), static_cast<size_t>(m * n));
        ASSERT_EQ(results[0].size(), results[1].size());
        for (size_t i = 0; i < results[0].size(); ++i)
          ASSERT_NEAR(results[0][i], results[1][i], dtype == DType::Float32 ? 1e-4 : 1e-10)
              << dtypeName(dtype) << " function " << f << " " << m << "x" << k << "x" << n
              << " element " << i;
      }
}

TEST(Ops, EmberCpuNamesTheCpuCodeIsCompiledFor) {
  // EMBER_CPU=x86-64-v3: the AVX2 code a machine without AVX-512 gets
  // (256-bit blocks), on any host that can run it; the same results as the
  // host's own code. A CPU LLVM does not know, or one with features this
  // machine lacks, is refused with the reason.
  auto dense = [](const Tensor &x, const Tensor &w) { return relu(matmul(x, w)) * 0.5f; };
  Tensor x = random_uniform({130, 70}, 61, -1, 1), w = random_uniform({70, 50}, 62, -1, 1);
  std::vector<float> expected = function(dense, "host_cpu")(x, w).to_vector<float>();
  struct RestoreCpu {
    std::optional<std::string> saved;
    RestoreCpu() {
      if (const char *cpu = std::getenv("EMBER_CPU"))
        saved = cpu;
    }
    ~RestoreCpu() {
      if (saved)
        ::setenv("EMBER_CPU", saved->c_str(), 1);
      else
        ::unsetenv("EMBER_CPU");
    }
  } restore;
  ::setenv("EMBER_CPU", "x86-64-v3", 1);
  auto avx2 = function(dense, "avx2_cpu");
  std::vector<float> got;
  try {
    got = avx2(x, w).to_vector<float>();
  } catch (const Error &e) {
    if (std::string(e.what()).find("EMBER_CPU=x86-64-v3") != std::string::npos)
      GTEST_SKIP() << "this host cannot run x86-64-v3 code: " << e.what();
    throw;
  }
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], 1e-5) << i;
  if (!std::getenv("EMBER_VECTOR_BITS")) {
    EXPECT_EQ(jit::vectorBits(), 256u);
    std::string ir = avx2.ir_stages(x, w).linalg;
    EXPECT_NE(ir.find("vector<6x16xf32>"), std::string::npos) << ir;
  }
  ::setenv("EMBER_CPU", "no-such-cpu", 1);
  expectContains(errorOf([&] { function(dense, "unknown_cpu")(x, w); }),
                 "EMBER_CPU=no-such-cpu: not a CPU LLVM knows for");
}

// A B, A B^T and relu(A B) through traced functions, checked against plain
// loops; returns the linalg stage of A B.
static std::string expectMatmulsOfTracedFunctions(const Tensor &a, const Tensor &b,
                                                  const Tensor &bt, const std::string &what) {
  auto plain = function([](const Tensor &x, const Tensor &y) { return matmul(x, y); });
  auto rhsT = function([](const Tensor &x, const Tensor &y) { return matmul(x, transpose(y)); });
  auto fused = function([](const Tensor &x, const Tensor &y) { return relu(matmul(x, y)); });
  Tensor c = plain(a, b);
  expectMatmul(c, a, false, b, false, what + " A B");
  expectMatmul(rhsT(a, bt), a, false, bt, true, what + " A B^T");
  std::vector<float> product = c.to_vector<float>(), activated = fused(a, b).to_vector<float>();
  for (size_t i = 0; i < product.size(); ++i)
    EXPECT_NEAR(activated[i], std::max(product[i], 0.f), 1e-5) << what << " relu " << i;
  return plain.ir_stages(a, b).linalg;
}

TEST(Ops, TallMatmulsRunInRowGroups) {
  // Tall matmuls of several panels run in groups of rows (A's group stays
  // in L2 while every panel passes; B packed once for all groups): the
  // last group partial, packed and in-place panels, B^T, a fused epilogue.
  const int64_t m = 601, k = 512, n = 48;
  Tensor a = random_uniform({m, k}, 51, -1, 1), b = random_uniform({k, n}, 52, -1, 1);
  Tensor bt = random_uniform({n, k}, 53, -1, 1);
  for (unsigned bits : {256u, 512u}) {
    VectorBitsScope scope(bits);
    std::string what = std::to_string(bits) + " bits";
    std::string ir = expectMatmulsOfTracedFunctions(a, b, bt, what);
    EXPECT_NE(ir.find(bits == 512 ? "tensor<2x512x32xf32>" : "tensor<3x512x16xf32>"),
              std::string::npos)
        << what << ": B packed once, panel by panel\n"
        << ir;
  }
  // Functions of 16 or more blocked matmuls outline them: grouped ones too,
  // after their elementwise consumers (the ReLUs) are fused into their
  // blocks (run on vectors), not before.
  auto many = function([](const Tensor &x, const Tensor &y) {
    Tensor sum = relu(matmul(x, y));
    for (int i = 2; i <= 17; ++i)
      sum = sum + relu(matmul(x * float(i), y));
    return sum;
  });
  std::vector<float> expected = (relu(matmul(a, b)) * float(17 * 18 / 2)).to_vector<float>();
  std::vector<float> got = many(a, b).to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], 1e-3f * std::max(1.f, std::fabs(expected[i])))
        << "outlined, element " << i;
  std::string ir = many.ir_stages(a, b).linalg;
  EXPECT_TRUE(std::regex_search(ir, std::regex("arith.maximumf [^\\n]* : vector<")))
      << "ReLUs fused into the grouped matmuls' blocks\n"
      << ir;
  EXPECT_FALSE(std::regex_search(ir, std::regex("arith.maximumf [^\\n]* : f32")))
      << "no ReLU left as a loop of its own\n"
      << ir;
}

TEST(Ops, TallMatmulsTakeThreeVectorPanelsWithAvx512) {
  // 512-bit vectors: panels of three vectors in blocks of 8 rows, where the
  // last panel is nearly full: partial blocks and panels, B^T, a fused
  // ReLU, row groups (k = 512), f64 (24-wide panels) and int32. 256 columns
  // (a third of the last panel idle) keep two-vector panels.
  VectorBitsScope scope(512);
  for (auto [m, k, n] : {std::tuple{203, 300, 1000}, {601, 512, 480}}) {
    std::string what = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    Tensor a = random_uniform({m, k}, 61, -1, 1), b = random_uniform({k, n}, 62, -1, 1);
    Tensor bt = random_uniform({n, k}, 63, -1, 1);
    std::string ir = expectMatmulsOfTracedFunctions(a, b, bt, what);
    EXPECT_NE(ir.find("vector<8x48xf32>"), std::string::npos) << what << "\n" << ir;
    Tensor a64 = cast(a, DType::Float64), b64 = cast(b, DType::Float64);
    auto plain = function([](const Tensor &x, const Tensor &y) { return matmul(x, y); });
    expectMatmul(plain(a64, b64), a64, false, b64, false, what + " f64");
    EXPECT_NE(plain.ir_stages(a64, b64).linalg.find("vector<8x24xf64>"), std::string::npos);
  }
  const int64_t m = 130, k = 70, n = 96;
  Tensor ai = random_uniform({m, k}, 64, -50, 50, DType::Int32);
  Tensor bi = random_uniform({k, n}, 65, -50, 50, DType::Int32);
  expectExactInt32Matmul(matmul(ai, bi), ai, bi);
  Tensor a = random_uniform({128, 64}, 66), b = random_uniform({64, 256}, 67);
  auto plain = function([](const Tensor &x, const Tensor &y) { return matmul(x, y); });
  expectMatmul(plain(a, b), a, false, b, false, "128x64x256");
  EXPECT_NE(plain.ir_stages(a, b).linalg.find("vector<12x32xf32>"), std::string::npos);
}

TEST(Ops, LargeMatmulsRunInPassesOverKWithAvx512) {
  // B over 8 MB, or k of 1024 and more, with 512-bit vectors: passes over k
  // (256 deep here), each block of columns packing its panels' rows for the
  // pass, C's blocks added to after the first one. Partial blocks of rows
  // and panels (130 rows, 4100 columns), f32, f64 and int32, eager and
  // traced, a bias-and-ReLU consumer fused into the last pass, and 2
  // threads giving what 1 gives.
  VectorBitsScope scope(512);
  const int64_t m = 130, k = 512, n = 4100;
  Tensor a = random_uniform({m, k}, 71, -1, 1), b = random_uniform({k, n}, 72, -1, 1);
  auto plain = function([](const Tensor &x, const Tensor &y) { return matmul(x, y); });
  EXPECT_NE(plain.ir_stages(a, b).linalg.find("x256x48xf32>"), std::string::npos)
      << "B's panels packed per pass";
  Tensor c = plain(a, b);
  expectMatmul(c, a, false, b, false, "130x512x4100 traced");
  expectMatmul(matmul(a, b), a, false, b, false, "130x512x4100 eager");
  Tensor bias = random_uniform({n}, 73, -1, 1);
  auto dense = function(
      [](const Tensor &x, const Tensor &y, const Tensor &z) { return relu(matmul(x, y) + z); });
  std::vector<float> got = dense(a, b, bias).to_vector<float>();
  std::vector<float> expected = relu(c + bias).to_vector<float>();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], 1e-5) << "dense at " << i;
  int threads = get_num_threads();
  set_num_threads(1);
  std::vector<float> one = plain(a, b).to_vector<float>();
  set_num_threads(2);
  std::vector<float> two = plain(a, b).to_vector<float>();
  set_num_threads(threads);
  EXPECT_EQ(one, two);

  // k = 1536: three passes of 512 (the middle one in a loop over k), the
  // consumer fused into the last one.
  Tensor a3 = random_uniform({129, 1536}, 77, -1, 1), b3 = random_uniform({1536, 140}, 78, -1, 1);
  Tensor bias3 = random_uniform({140}, 79, -1, 1);
  std::string ir3 = dense.ir_stages(a3, b3, bias3).linalg;
  EXPECT_NE(ir3.find("x512x48xf32>"), std::string::npos) << ir3;
  EXPECT_EQ(ir3.find("linalg.generic"), std::string::npos) << "the epilogue fused\n" << ir3;
  Tensor c3 = plain(a3, b3);
  expectMatmul(c3, a3, false, b3, false, "129x1536x140");
  std::vector<float> got3 = dense(a3, b3, bias3).to_vector<float>();
  std::vector<float> expected3 = relu(c3 + bias3).to_vector<float>();
  for (size_t i = 0; i < got3.size(); ++i)
    ASSERT_NEAR(got3[i], expected3[i], 1e-5) << "dense, three passes, at " << i;

  Tensor a64 = cast(a, DType::Float64), b64 = random_uniform({k, 2100}, 74, -1, 1, DType::Float64);
  EXPECT_NE(plain.ir_stages(a64, b64).linalg.find("x256x24xf64>"), std::string::npos);
  expectMatmul(plain(a64, b64), a64, false, b64, false, "130x512x2100 f64");

  Tensor ai = random_uniform({m, k}, 75, -50, 50, DType::Int32);
  Tensor bi = random_uniform({k, n}, 76, -50, 50, DType::Int32);
  EXPECT_NE(plain.ir_stages(ai, bi).linalg.find("x256x48xi32>"), std::string::npos);
  expectExactInt32Matmul(plain(ai, bi), ai, bi);
}

TEST(Ops, TransposedMatmulOperandsAreReadInPlace) {
  // Traced, a transpose feeding a large matmul folds into it (A^T read in
  // place, B^T packed), as in the backward pass of a dense layer.
  auto lhsT = function([](const Tensor &a, const Tensor &b) { return matmul(transpose(a), b); });
  auto rhsT = function([](const Tensor &a, const Tensor &b) { return matmul(a, transpose(b)); });
  auto bothT = function(
      [](const Tensor &a, const Tensor &b) { return matmul(transpose(a), transpose(b)); });
  for (auto [m, k, n] : {std::tuple{37, 53, 29}, {36, 40, 32}}) {
    Tensor at = random_uniform({k, m}, 33, -1, 1), bt = random_uniform({n, k}, 34, -1, 1);
    Tensor a = random_uniform({m, k}, 35, -1, 1), b = random_uniform({k, n}, 36, -1, 1);
    expectMatmul(lhsT(at, b), at, true, b, false, "A^T B");
    expectMatmul(rhsT(a, bt), a, false, bt, true, "A B^T");
    expectMatmul(bothT(at, bt), at, true, bt, true, "A^T B^T");
  }
  std::string ir = lhsT.ir_stages(random_uniform({53, 37}, 1), random_uniform({53, 29}, 2)).linalg;
  EXPECT_EQ(ir.find("linalg.transpose"), std::string::npos) << ir;
}

TEST(Ops, WhereTakesANumberForEitherBranch) {
  Tensor x = {1.f, -2.f, 3.f};
  EXPECT_EQ(where(x > 0.f, x, 1.0f).to_vector<float>(), (std::vector<float>{1, 1, 3}));
  EXPECT_EQ(where(x > 0.f, 0.5, x).to_vector<float>(), (std::vector<float>{0.5f, -2, 0.5f}));
  auto traced = function([](const Tensor &t) { return where(t > 0.f, t, 1.0f); }, "clip_low");
  EXPECT_EQ(traced(x).to_vector<float>(), (std::vector<float>{1, 1, 3}));
  Tensor ints = {1, -2, 3};
  Tensor picked = where(ints > 0, ints, 7); // the number takes the branch's dtype
  EXPECT_EQ(picked.dtype(), DType::Int32);
  EXPECT_EQ(picked.to_vector<int>(), (std::vector<int>{1, 7, 3}));
  test::expectContains(test::errorOf([&] { (void)where(ints > 0, ints, 1.5); }),
                       "'ember.select' op cannot convert the floating-point scalar 1.5 to int32");
}
