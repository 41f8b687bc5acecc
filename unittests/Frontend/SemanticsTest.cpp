// Semantics TensorFlow and PyTorch users rely on (issue 8 item 11): true
// division, float scalars with integer tensors, integer means, argmax of an
// empty axis, Python slices, variables assigned in branches and loops, and
// the line a C++ `if` on a traced tensor names.
#include "ember/ember.h"

#include "ErrorTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace ember;
using ember::test::errorOf;
using ember::test::expectContains;

namespace {
std::string here(int line) { return test::fileLine(__FILE__, line); }

std::vector<int> ints(const Tensor &t) { return t.to_vector<int>(); }
// grad(f) of one argument: a Tensor, or a vector of one (either API).
[[maybe_unused]] std::vector<float> floats(const Tensor &t) { return t.to_vector<float>(); }
[[maybe_unused]] std::vector<float> floats(const std::vector<Tensor> &t) { return t.at(0).to_vector<float>(); }
} // namespace

//===----------------------------------------------------------------------===//
// Division
//===----------------------------------------------------------------------===//

TEST(Semantics, SlashOnIntegersIsTrueDivisionToFloat64) {
  Tensor a = {1, 2, -7}, b = {2, 4, 2};
  Tensor q = a / b;
  EXPECT_EQ(q.dtype(), DType::Float64);
  EXPECT_EQ(q.to_vector<double>(), (std::vector<double>{0.5, 0.5, -3.5}));
  EXPECT_EQ((a / 2).to_vector<double>(), (std::vector<double>{0.5, 1, -3.5}));
  EXPECT_EQ((Tensor({3}, DType::Int64) / Tensor({2}, DType::Int64)).dtype(), DType::Float64);
  EXPECT_EQ((7 / Tensor({2})).to_vector<double>(), (std::vector<double>{3.5}));
  // Floats keep their dtype.
  EXPECT_EQ((Tensor({1.f}) / Tensor({4.f})).dtype(), DType::Float32);
  // Integers by zero follow the float rules (no error), as TensorFlow's truediv.
  std::vector<double> byZero = (Tensor({1, -1}) / Tensor({0, 0})).to_vector<double>();
  EXPECT_TRUE(std::isinf(byZero[0]) && byZero[0] > 0 && std::isinf(byZero[1]) && byZero[1] < 0);
  // div and floordiv keep the integer meaning (and the error by zero).
  EXPECT_EQ(div(a, b).dtype(), DType::Int32);
  EXPECT_EQ(ints(div(a, b)), (std::vector<int>{0, 0, -3}));
  EXPECT_EQ(ints(floordiv(a, b)), (std::vector<int>{0, 0, -4}));
  expectContains(errorOf([&] { div(a, Tensor({0, 1, 1})); }), "integer division by zero");
  // Traced and eager agree.
  auto f = function([](const Tensor &x, const Tensor &y) { return x / y; });
  EXPECT_EQ(f(a, b).dtype(), DType::Float64);
  EXPECT_EQ(f(a, b).to_vector<double>(), (std::vector<double>{0.5, 0.5, -3.5}));
}

//===----------------------------------------------------------------------===//
// C++ scalars
//===----------------------------------------------------------------------===//

TEST(Semantics, FloatScalarWithIntegerTensorIsRefused) {
  Tensor a = {1, 2};
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { a + 1.5; });
  expectContains(message, here(line));
  expectContains(message, "'ember.add' op cannot convert the floating-point scalar 1.5 to int32");
  // Even an integral double, as TensorFlow.
  expectContains(errorOf([&] { a * 2.0; }), "'ember.mul' op cannot convert the floating-point scalar 2.0");
  expectContains(errorOf([&] { 0.5 - a; }), "'ember.sub' op");
  expectContains(errorOf([&] { (void)(a < 1.5); }), "'ember.compare' op");
  expectContains(errorOf([&] { Tensor({true}) + 1.f; }), "to bool");
  // Integers, and floats with float tensors, are fine.
  EXPECT_EQ(ints(a + 1), (std::vector<int>{2, 3}));
  EXPECT_EQ((Tensor({1.f}) + 2.5).to_vector<float>(), (std::vector<float>{3.5f}));
  EXPECT_EQ((Tensor({1.0}, DType::Float64) * 2).dtype(), DType::Float64);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST(Semantics, ReduceMeanOfIntegersTruncates) {
  Tensor a = {{1, 2}, {4, 8}};
  Tensor mean = reduce_mean(a);
  EXPECT_EQ(mean.dtype(), DType::Int32);
  EXPECT_EQ(mean.item<int>(), 3); // 15 / 4
  EXPECT_EQ(ints(reduce_mean(a, {1})), (std::vector<int>{1, 6}));
  EXPECT_EQ(ints(reduce_mean(a, {0}, true)), (std::vector<int>{2, 5}));
  EXPECT_EQ(ints(reduce_mean(Tensor({-1, -2}))), (std::vector<int>{-1})); // toward zero
  EXPECT_EQ(reduce_mean(Tensor({1, 2}, DType::Int64)).dtype(), DType::Int64);
  auto f = function([](const Tensor &x) { return reduce_mean(x, {-1}); });
  EXPECT_EQ(ints(f(a)), (std::vector<int>{1, 6}));
}

TEST(Semantics, ArgmaxOfAnEmptyAxisRaises) {
  Tensor empty = zeros({2, 0});
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { argmax(empty, 1); });
  expectContains(message, here(line));
  expectContains(message, "'ember.argmax' op axis 1 of float32 tensor of shape (2, 0) is empty");
  EXPECT_EQ(argmax(empty, 0).shape(), (Shape{0})); // reducing a non-empty axis is fine
  auto f = function([](const Tensor &x) { return argmax(x, -1); });
  expectContains(errorOf([&] { f(empty); }), "'ember.argmax' op");
}

//===----------------------------------------------------------------------===//
// Slices
//===----------------------------------------------------------------------===//

TEST(Semantics, SlicesFollowPython) {
  Tensor x = arange(0, 6); // [0 1 2 3 4 5]
  EXPECT_EQ(ints(slice(x, {-3}, {kNone})), (std::vector<int>{3, 4, 5}));         // x[-3:]
  EXPECT_EQ(ints(slice(x, {kNone}, {-2})), (std::vector<int>{0, 1, 2, 3}));      // x[:-2]
  EXPECT_EQ(ints(slice(x, {kNone}, {kNone}, {-1})), (std::vector<int>{5, 4, 3, 2, 1, 0})); // x[::-1]
  EXPECT_EQ(ints(slice(x, {kNone}, {kNone}, {-2})), (std::vector<int>{5, 3, 1}));          // x[::-2]
  EXPECT_EQ(ints(slice(x, {4}, {1}, {-1})), (std::vector<int>{4, 3, 2}));                  // x[4:1:-1]
  EXPECT_EQ(ints(slice(x, {-2}, {kNone}, {-3})), (std::vector<int>{4, 1}));                // x[-2::-3]
  EXPECT_EQ(ints(slice(x, {1}, {100})), (std::vector<int>{1, 2, 3, 4, 5}));              // clamps
  EXPECT_EQ(slice(x, {4}, {2}).shape(), (Shape{0}));                                     // empty
  EXPECT_EQ(slice(x, {2}, {4}, {-1}).shape(), (Shape{0}));
  EXPECT_EQ(ints(slice(x, {-100}, {2})), (std::vector<int>{0, 1}));
  // Several dims, fewer entries than dims.
  Tensor m = reshape(arange(0, 12), {3, 4});
  EXPECT_EQ(ints(slice(m, {kNone, kNone}, {kNone, kNone}, {-1, -1})),
            (std::vector<int>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(ints(slice(m, {-1}, {kNone})), (std::vector<int>{8, 9, 10, 11})); // m[-1:]
  EXPECT_EQ(ints(slice(m, {1, -1}, {kNone, 0}, {1, -2})), (std::vector<int>{7, 5, 11, 9}));
  // Traced and eager agree, and gradients flow through reversed slices.
  auto f = function([](const Tensor &v) {
    return std::make_tuple(slice(v, {kNone, 3}, {kNone, kNone}, {-1, -1}), slice(v, {-2}, {kNone}));
  });
  auto [reversed, last] = f(m);
  EXPECT_EQ(ints(reversed), ints(slice(m, {kNone, 3}, {kNone, kNone}, {-1, -1})));
  EXPECT_EQ(ints(last), (std::vector<int>{4, 5, 6, 7, 8, 9, 10, 11}));
  auto g = grad([](const Tensor &v) {
    return reduce_sum(slice(v, {kNone}, {kNone}, {-2}) * Tensor({1.f, 2.f, 3.f}));
  });
  EXPECT_EQ(floats(g(Tensor({0.f, 0.f, 0.f, 0.f, 0.f, 0.f}))),
            (std::vector<float>{0, 3, 0, 2, 0, 1}));
}

//===----------------------------------------------------------------------===//
// Variables in branches and loops
//===----------------------------------------------------------------------===//

TEST(Semantics, VariablesAssignedInCondBranches) {
  Variable v(Tensor(0.f), "v"), w(Tensor(10.f), "w");
  auto step = [&](const Tensor &x) {
    Tensor y = cond(x > 0.f, [&] {
      v.assign_add(x);
      return x * 2.f;
    }, [&] {
      w.assign(v.value() + x);
      return -x;
    });
    return y + v.value();
  };
  auto f = function(step, "cond_assigns");
  EXPECT_FLOAT_EQ(f(Tensor(3.f)).item<float>(), 9.f); // v = 3, y = 6
  EXPECT_FLOAT_EQ(v.value().item<float>(), 3.f);
  EXPECT_FLOAT_EQ(w.value().item<float>(), 10.f);
  EXPECT_FLOAT_EQ(f(Tensor(-1.f)).item<float>(), 4.f); // w = 3 - 1, y = 1
  EXPECT_FLOAT_EQ(v.value().item<float>(), 3.f);
  EXPECT_FLOAT_EQ(w.value().item<float>(), 2.f);
  // Eagerly, the same.
  EXPECT_FLOAT_EQ(step(Tensor(2.f)).item<float>(), 9.f);
  EXPECT_FLOAT_EQ(v.value().item<float>(), 5.f);
}

TEST(Semantics, VariablesAssignedInLoopBodies) {
  Variable total(Tensor(0), "total"), count(Tensor(0), "count");
  auto f = function([&](const Tensor &n) {
    fori_loop(0, 4, [&](const Tensor &i, const std::vector<Tensor> &vars) {
      total.assign_add(cast(i, DType::Int32));
      return vars;
    }, {});
    auto rest = while_loop([&](const std::vector<Tensor> &vars) { return vars[0] < n; },
                           [&](const std::vector<Tensor> &vars) {
                             count.assign(count.value() + 1);
                             // A nested cond assigns too.
                             cond(vars[0] % 2 == 0, [&] {
                               total.assign_add(Tensor(100));
                               return Tensor(0);
                             }, [&] { return Tensor(0); });
                             return std::vector<Tensor>{vars[0] + 1};
                           },
                           {Tensor(0)});
    return rest[0] + total.value();
  }, "loop_assigns");
  EXPECT_EQ(f(Tensor(3)).item<int>(), 3 + 6 + 200);
  EXPECT_EQ(total.value().item<int>(), 206);
  EXPECT_EQ(count.value().item<int>(), 3);
  EXPECT_EQ(f(Tensor(1)).item<int>(), 1 + 206 + 6 + 100);
  EXPECT_EQ(total.value().item<int>(), 312);
  EXPECT_EQ(count.value().item<int>(), 4);
}

TEST(Semantics, AssigningInALoopConditionIsRefused) {
  Variable v(Tensor(0), "v");
  auto f = function([&](const Tensor &n) {
    return while_loop([&](const std::vector<Tensor> &vars) {
      v.assign(vars[0]);
      return vars[0] < n;
    }, [](const std::vector<Tensor> &vars) { return std::vector<Tensor>{vars[0] + 1}; },
                      {Tensor(0)})[0];
  });
  expectContains(errorOf([&] { f(Tensor(3)); }), "variable 'v' is assigned in the loop condition");
}

//===----------------------------------------------------------------------===//
// A C++ `if` on a traced tensor
//===----------------------------------------------------------------------===//

TEST(Semantics, CxxIfOnATracedTensorNamesTheUsersLine) {
  static int line = 0;
  auto f = function([](const Tensor &x) {
    line = __LINE__ + 1;
    if (x > 0.f)
      return x;
    return -x;
  });
  std::string message = errorOf([&] { f(Tensor(1.f)); });
  expectContains(message, here(line));
  expectContains(message, "symbolic tensor");
  expectContains(message, "ember::cond");
}
