// Bad op calls throw OpError naming the op, the shapes or dtypes and the
// caller's file and line (story A7).
#include "ember/ember.h"

#include "ErrorTestUtil.h"

#include <gtest/gtest.h>

#include <string>

using namespace ember;
using ember::test::errorOf;
using ember::test::expectContains;

namespace {
std::string here(int line) { return test::fileLine(__FILE__, line); }

} // namespace

TEST(Errors, MatmulShapeMismatchNamesOpShapesAndLine) {
  Tensor a = zeros({2, 3}), b = zeros({4, 5});
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { matmul(a, b); });
  expectContains(message, here(line));
  expectContains(message, "'ember.matmul' op");
  expectContains(message, "tensor<2x3xf32>");
  expectContains(message, "tensor<4x5xf32>");
}

TEST(Errors, MixedDTypesNeedACast) {
  Tensor f = {1.f, 2.f}, i = {1, 2};
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { (void)(f + i); });
  expectContains(message, here(line));
  expectContains(message, "'ember.add' op");
  expectContains(message, "float32");
  expectContains(message, "int32");
  expectContains(message, "cast");
  EXPECT_EQ((f + cast(i, DType::Float32)).to_vector<float>(), (std::vector<float>{2, 4}));
}

TEST(Errors, GatherOutOfRange) {
  Tensor x = {10, 20, 30};
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { gather(x, Tensor({0, 3})); });
  expectContains(message, here(line));
  expectContains(message, "'ember.gather' op index 3 is out of range");
}

TEST(Errors, ScatterNamesTheIndexAndTheShapes) {
  Tensor x = {10, 20, 30};
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { scatter_add(x, Tensor({0, -4}), Tensor({1, 2})); });
  expectContains(message, here(line));
  expectContains(message, "'ember.scatter' op index -4 is out of range for axis 0 of size 3");
  expectContains(errorOf([&] {
                   scatter_update(x, Tensor({0, 1}), Tensor({1, 2, 3}));
                 }),
                 "'ember.scatter' op updates int32 tensor of shape (3,) must have the shape (2,)");
  expectContains(errorOf([&] { scatter_update(x, Tensor({0}), Tensor({1.f})); }),
                 "'ember.scatter' op updates float32 tensor of shape (1,) differ in dtype");
  expectContains(errorOf([&] { scatter_update(x, Tensor({0.f}), Tensor({1})); }),
                 "'ember.scatter' op indices must be int32 or int64");
  Tensor flags = Tensor({true, false});
  expectContains(errorOf([&] { scatter_add(flags, Tensor({0}), Tensor({true})); }),
                 "'ember.scatter' op requires numeric (f32, f64, f16, bf16, i32 or i64) elements");
}

TEST(Errors, BroadcastIncompatible) {
  Tensor a = zeros({2, 3}), b = zeros({4});
  std::string message = errorOf([&] { (void)(a * b); });
  expectContains(message, "'ember.mul' op cannot broadcast shapes (2, 3) and (4,)");
}

TEST(Errors, VerifierMessagesSurfaceAsExceptions) {
  Tensor i = {1, 2};
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { exp(i); });
  expectContains(message, here(line));
  expectContains(message, "'ember.exp' op requires floating-point");
  expectContains(message, "tensor<2xi32>");

  expectContains(errorOf([&] { reshape(zeros({2, 3}), {4, 2}); }), "'ember.reshape' op cannot reshape");
  expectContains(errorOf([&] { reshape(zeros({2, 3}), {4, -1}); }), "'ember.reshape' op");
  expectContains(errorOf([&] { transpose(zeros({2, 3}), {0, 0}); }),
                 "'ember.transpose' op permutation [0, 0]");
  expectContains(errorOf([&] { slice(zeros({4}), {1}, {9}, {0}); }),
                 "'ember.slice' op dim 0: slice step cannot be zero");
  expectContains(errorOf([&] { reduce_sum(zeros({2}), {3}); }), "'ember.reduce_sum' op axis 3");
  expectContains(errorOf([&] { reduce_mean(Tensor({true, false})); }),
                 "'ember.reduce_mean' op requires");
  expectContains(errorOf([&] { concat({zeros({2, 2}), zeros({3, 3})}, 0); }), "'ember.concat' op");
  expectContains(errorOf([&] { where(Tensor({1, 0}), Tensor({1}), Tensor({2})); }),
                 "'ember.select' op condition must be a bool tensor");
}

// An integer scalar beyond an int32 tensor's range is refused (numpy and JAX
// raise OverflowError) rather than wrapped; within it, any C++ type is fine.
TEST(Errors, IntegerScalarsOutOfTheTensorsRangeAreRefused) {
  Tensor a = Tensor({1, 2});
  expectContains(errorOf([&] { (void)(a + 3000000000LL); }),
                 "'ember.add' op cannot convert the integer scalar 3000000000 to int32 to combine "
                 "it with an int32 tensor of shape (2,) (it is out of int32's range");
  expectContains(errorOf([&] { (void)(int64_t(-3000000000LL) * a); }), "integer scalar -3000000000");
  EXPECT_EQ((a + int64_t{5}).to_vector<int>(), (std::vector<int>{6, 7}));
  EXPECT_EQ((cast(a, DType::Int64) + 3000000000LL).to_vector<int64_t>(),
            (std::vector<int64_t>{3000000001, 3000000002}));
}

TEST(Errors, RefusedCallsAreReportedEveryTime) {
  Tensor a = zeros({2, 3}), b = zeros({4, 5});
  std::string first = errorOf([&] { matmul(a, b); });
  std::string second = errorOf([&] { matmul(a, b); });
  EXPECT_FALSE(first.empty());
  EXPECT_FALSE(second.empty());
}

TEST(Errors, OperatorsReportTheCallersLine) {
  Tensor a = zeros({3}), b = zeros({2});
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { (void)(a - b); });
  expectContains(message, here(line));
  expectContains(message, "'ember.sub' op");
}
