//===- NNTest.cpp - softmax, one_hot, cross-entropy ------------------------===//

#include "ErrorTestUtil.h"

#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ember;

namespace {

/// Expects `call` to throw an ember::Error whose message has `piece`.
#define EXPECT_OP_ERROR(call, piece)                                                               \
  test::expectContains(test::errorOf([&] { (void)(call); }), piece)

/// softmax of `row` in double, the reference.
std::vector<double> softmaxOf(const std::vector<double> &row) {
  double top = *std::max_element(row.begin(), row.end()), sum = 0;
  std::vector<double> out;
  for (double x : row)
    sum += std::exp(x - top);
  for (double x : row)
    out.push_back(std::exp(x - top) / sum);
  return out;
}

TEST(NN, SoftmaxAndLogSoftmaxAreStable) {
  // Logits of 1000 would overflow exp() without the max subtracted.
  Tensor logits = Tensor({{2.f, 1.f, 0.1f}, {1000.f, 1001.f, 999.f}});
  std::vector<float> p = nn::softmax(logits).to_vector<float>();
  std::vector<float> logp = nn::log_softmax(logits).to_vector<float>();
  std::vector<std::vector<double>> rows = {{2, 1, 0.1}, {1000, 1001, 999}};
  for (int r = 0; r < 2; ++r) {
    std::vector<double> expected = softmaxOf(rows[r]);
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(p[r * 3 + c], expected[c], 1e-6) << r << ", " << c;
      EXPECT_NEAR(logp[r * 3 + c], std::log(expected[c]), 1e-5) << r << ", " << c;
    }
  }
  // Along another axis, and traced (one fused function) as eagerly.
  Tensor columns = nn::softmax(logits, 0);
  EXPECT_NEAR(columns.to_vector<float>()[0], 0.f, 1e-6);
  auto traced = function([](const Tensor &x) { return nn::log_softmax(x); }, "log_softmax");
  std::vector<float> tracedLogp = traced(logits).to_vector<float>();
  for (size_t i = 0; i < logp.size(); ++i)
    EXPECT_NEAR(tracedLogp[i], logp[i], 1e-6) << i;
}

TEST(NN, OneHotAsTensorFlow) {
  Tensor y = nn::one_hot(Tensor({0, 2, 5, -1}), 3);
  EXPECT_EQ(y.shape(), Shape({4, 3}));
  EXPECT_EQ(y.dtype(), DType::Float32);
  // Indices outside [0, depth) give rows of zeros.
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
  Tensor z = nn::one_hot(cast(Tensor({{1}, {0}}), DType::Int64), 2, DType::Int32, 5, -1);
  EXPECT_EQ(z.shape(), Shape({2, 1, 2}));
  EXPECT_EQ(z.to_vector<int32_t>(), (std::vector<int32_t>{-1, 5, 5, -1}));
}

TEST(NN, SparseCrossEntropyIsMinusTheLabelsLogProbability) {
  Tensor logits = Tensor({{2.f, 1.f, 0.1f}, {0.5f, 2.5f, 0.f}});
  Tensor labels = Tensor({0, 1});
  std::vector<float> loss =
      nn::sparse_softmax_cross_entropy_with_logits(labels, logits).to_vector<float>();
  ASSERT_EQ(loss.size(), 2u);
  EXPECT_NEAR(loss[0], -std::log(softmaxOf({2, 1, 0.1})[0]), 1e-6);
  EXPECT_NEAR(loss[1], -std::log(softmaxOf({0.5, 2.5, 0})[1]), 1e-6);

  // Its gradient is softmax - one_hot, on a tape and traced.
  Tensor p = nn::softmax(logits);
  Tensor expected = p - nn::one_hot(labels, 3);
  GradientTape tape;
  tape.watch(logits);
  Tensor total = reduce_sum(nn::sparse_softmax_cross_entropy_with_logits(labels, logits));
  std::vector<float> onTape = tape.gradient(total, {logits})[0]->to_vector<float>();
  auto grad = ember::grad([&](const Tensor &x) {
    return reduce_sum(nn::sparse_softmax_cross_entropy_with_logits(labels, x));
  });
  std::vector<float> traced = grad(logits).to_vector<float>();
  std::vector<float> want = expected.to_vector<float>();
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(onTape[i], want[i], 1e-6) << i;
    EXPECT_NEAR(traced[i], want[i], 1e-6) << i;
  }
}

TEST(NN, BadInputsNameTheFunctionAndTheShapes) {
  Tensor logits = Tensor({{2.f, 1.f, 0.1f}, {0.5f, 2.5f, 0.f}});
  int line = __LINE__ + 1;
  std::string message = test::errorOf([&] { nn::softmax(Tensor({1, 2})); });
  test::expectContains(message, test::fileLine(__FILE__, line));
  test::expectContains(message, "'nn.softmax' op needs floating-point logits, got int32 tensor of shape (2,)");
  EXPECT_OP_ERROR(nn::softmax(logits, 2), "'nn.softmax' op axis 2 is out of range for float32 tensor of shape (2, 3)");
  EXPECT_OP_ERROR(nn::sparse_softmax_cross_entropy_with_logits(Tensor({0, 1, 2}), logits),
                  "labels must have the shape of the logits without their last axis: got "
                  "int32 tensor of shape (3,) for logits float32 tensor of shape (2, 3)");
  EXPECT_OP_ERROR(nn::one_hot(Tensor({0.5f}), 2), "'nn.one_hot' op needs int32 or int64 indices");
  // A label out of range: the gather that reads it faults, at this line.
  line = __LINE__ + 1;
  message = test::errorOf([&] { nn::sparse_softmax_cross_entropy_with_logits(Tensor({0, 3}), logits); });
  test::expectContains(message, test::fileLine(__FILE__, line));
  test::expectContains(message, "'ember.gather' op index 3 is out of range for axis 0 of size 3");
  auto traced = function(
      [](const Tensor &labels, const Tensor &x) {
        return nn::sparse_softmax_cross_entropy_with_logits(labels, x);
      },
      "cross_entropy");
  EXPECT_OP_ERROR(traced(Tensor({-7, 0}), logits), "'ember.gather' op index");
}

} // namespace
