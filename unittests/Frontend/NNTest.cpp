//===- NNTest.cpp - softmax, one_hot, cross-entropy ------------------------===//

#include "ErrorTestUtil.h"

#include "ember/ember.h"
#include "ember/JIT/ModuleCompiler.h"

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

/// conv2d in double by its definition (NHWC, HWIO, explicit padding).
std::vector<double> convolve(const Tensor &input, const Tensor &filters,
                             std::array<int64_t, 2> strides, std::array<int64_t, 4> padding,
                             std::array<int64_t, 2> dilations, Shape &shape) {
  std::vector<double> x = cast(input, DType::Float64).to_vector<double>();
  std::vector<double> w = cast(filters, DType::Float64).to_vector<double>();
  int64_t n = input.shape()[0], h = input.shape()[1], wd = input.shape()[2], c = input.shape()[3];
  int64_t kh = filters.shape()[0], kw = filters.shape()[1], f = filters.shape()[3];
  int64_t oh = (h + padding[0] + padding[1] - (kh - 1) * dilations[0] - 1) / strides[0] + 1;
  int64_t ow = (wd + padding[2] + padding[3] - (kw - 1) * dilations[1] - 1) / strides[1] + 1;
  shape = Shape({n, oh, ow, f});
  std::vector<double> y(n * oh * ow * f, 0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t o = 0; o < f; ++o) {
          double sum = 0;
          for (int64_t p = 0; p < kh; ++p)
            for (int64_t q = 0; q < kw; ++q) {
              int64_t r = i * strides[0] + p * dilations[0] - padding[0];
              int64_t s = j * strides[1] + q * dilations[1] - padding[2];
              if (r < 0 || r >= h || s < 0 || s >= wd)
                continue;
              for (int64_t k = 0; k < c; ++k)
                sum += x[((b * h + r) * wd + s) * c + k] * w[((p * kw + q) * c + k) * f + o];
            }
          y[((b * oh + i) * ow + j) * f + o] = sum;
        }
  return y;
}

TEST(NN, Conv2DMatchesItsDefinition) {
  Tensor input = random_uniform({2, 7, 6, 3}, 21, -1, 1);
  Tensor filters = random_uniform({3, 2, 3, 4}, 22, -1, 1);
  struct Case {
    std::array<int64_t, 2> strides;
    const char *padding;
    std::array<int64_t, 2> dilations;
    std::array<int64_t, 4> pads; // what the padding means for this input
  };
  const Case cases[] = {{{1, 1}, "VALID", {1, 1}, {0, 0, 0, 0}},
                        {{1, 1}, "SAME", {1, 1}, {1, 1, 0, 1}},
                        {{2, 2}, "SAME", {1, 1}, {1, 1, 0, 0}},
                        {{1, 2}, "SAME", {2, 1}, {2, 2, 0, 0}},
                        {{2, 1}, "VALID", {2, 2}, {0, 0, 0, 0}}};
  auto traced = function(
      [](const Tensor &x, const Tensor &w) { return nn::conv2d(x, w, {2, 2}, "SAME"); },
      "conv2d");
  for (const Case &c : cases) {
    Shape shape;
    std::vector<double> expected = convolve(input, filters, c.strides, c.pads, c.dilations, shape);
    Tensor y = nn::conv2d(input, filters, c.strides, c.padding, c.dilations);
    ASSERT_EQ(y.shape(), shape) << c.padding << " " << c.strides[0] << "x" << c.strides[1];
    std::vector<float> got = y.to_vector<float>();
    for (size_t i = 0; i < expected.size(); ++i)
      ASSERT_NEAR(got[i], expected[i], 1e-5) << c.padding << " element " << i;
  }
  Shape shape;
  std::vector<double> expected = convolve(input, filters, {2, 2}, {1, 1, 0, 0}, {1, 1}, shape);
  std::vector<float> got = traced(input, filters).to_vector<float>();
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], 1e-5) << "traced element " << i;
}

TEST(NN, WideConvolutionsMatchTheirDefinitionWithAvx512) {
  // 96 filters at 512 bits: the patches' matmul takes panels of three
  // vectors in blocks of 8 rows, A read through the patch gather.
  jit::setVectorBits(512);
  Tensor input = random_uniform({2, 12, 11, 5}, 23, -1, 1);
  Tensor filters = random_uniform({3, 3, 5, 96}, 24, -1, 1);
  Shape shape;
  std::vector<double> expected = convolve(input, filters, {1, 1}, {1, 1, 1, 1}, {1, 1}, shape);
  auto traced = function(
      [](const Tensor &x, const Tensor &w) { return nn::conv2d(x, w, {1, 1}, "SAME"); }, "conv");
  std::vector<float> got = traced(input, filters).to_vector<float>();
  std::string ir = traced.ir_stages(input, filters).linalg;
  jit::setVectorBits(0);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], 1e-4) << "element " << i;
  EXPECT_NE(ir.find("vector<8x48xf32>"), std::string::npos) << ir;
}

/// Max or average pooling by its definition, in double ("SAME" padding not
/// counted, -inf for max).
std::vector<double> pool(const Tensor &input, bool max, std::array<int64_t, 2> k,
                         std::array<int64_t, 2> strides, std::array<int64_t, 4> padding,
                         Shape &shape) {
  std::vector<double> x = input.to_vector<double>();
  int64_t n = input.shape()[0], h = input.shape()[1], wd = input.shape()[2],
          c = input.shape()[3];
  int64_t oh = (h + padding[0] + padding[1] - k[0]) / strides[0] + 1;
  int64_t ow = (wd + padding[2] + padding[3] - k[1]) / strides[1] + 1;
  shape = Shape({n, oh, ow, c});
  std::vector<double> y;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t ch = 0; ch < c; ++ch) {
          double acc = max ? -INFINITY : 0;
          int count = 0;
          for (int64_t p = 0; p < k[0]; ++p)
            for (int64_t q = 0; q < k[1]; ++q) {
              int64_t r = i * strides[0] + p - padding[0], s = j * strides[1] + q - padding[2];
              if (r < 0 || r >= h || s < 0 || s >= wd)
                continue;
              double v = x[((b * h + r) * wd + s) * c + ch];
              acc = max ? std::max(acc, v) : acc + v;
              ++count;
            }
          y.push_back(max ? acc : acc / count);
        }
  return y;
}

TEST(NN, PoolingMatchesItsDefinition) {
  Tensor input = random_uniform({2, 7, 6, 3}, 23, -1, 1);
  struct Case {
    std::array<int64_t, 2> k, strides;
    const char *padding;
    std::array<int64_t, 4> pads; // what the padding means for this input
  };
  const Case cases[] = {{{2, 2}, {2, 2}, "VALID", {0, 0, 0, 0}},
                        {{2, 2}, {2, 2}, "SAME", {0, 1, 0, 0}},
                        {{3, 3}, {1, 1}, "SAME", {1, 1, 1, 1}},
                        {{3, 2}, {2, 1}, "SAME", {1, 1, 0, 1}},
                        {{3, 3}, {2, 3}, "VALID", {0, 0, 0, 0}}};
  for (bool max : {true, false})
    for (const Case &c : cases) {
      Shape shape;
      std::vector<double> expected = pool(input, max, c.k, c.strides, c.pads, shape);
      Tensor y = max ? nn::max_pool2d(input, c.k, c.strides, c.padding)
                     : nn::avg_pool2d(input, c.k, c.strides, c.padding);
      std::string what = std::string(max ? "max " : "avg ") + c.padding + " " +
                         std::to_string(c.k[0]) + "x" + std::to_string(c.k[1]);
      ASSERT_EQ(y.shape(), shape) << what;
      std::vector<float> got = y.to_vector<float>();
      for (size_t i = 0; i < expected.size(); ++i)
        ASSERT_NEAR(got[i], expected[i], 1e-6) << what << " element " << i;
    }
  auto traced = function([](const Tensor &x) { return nn::max_pool2d(x, {2, 2}, {2, 2}); },
                         "max_pool2d");
  Shape shape;
  std::vector<double> expected = pool(input, true, {2, 2}, {2, 2}, {0, 0, 0, 0}, shape);
  std::vector<float> got = traced(input).to_vector<float>();
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], 1e-6) << "traced element " << i;
}

TEST(NN, MaxPoolGradientGoesToTheFirstMaximum) {
  // Ties (as relu's zeros make): TensorFlow gives each window's gradient to
  // its first largest element, row by row.
  Tensor x = Tensor({{{{1.f}, {3.f}, {3.f}, {0.f}},
                      {{3.f}, {2.f}, {0.f}, {0.f}}}}); // [1, 2, 4, 1]
  auto grad = [](const Tensor &x) {
    GradientTape tape;
    tape.watch(x);
    Tensor y = nn::max_pool2d(x, {2, 2}, {2, 2});
    return tape.gradient(reduce_sum(y * Tensor({{{{10.f}, {20.f}}}})), {x})[0];
  };
  std::vector<float> expected = {0, 10, 20, 0, 0, 0, 0, 0};
  EXPECT_EQ(grad(x)->to_vector<float>(), expected);
}

TEST(NN, BadInputsNameTheFunctionAndTheShapes) {
  Tensor logits = Tensor({{2.f, 1.f, 0.1f}, {0.5f, 2.5f, 0.f}});
  int line = __LINE__ + 1;
  std::string message = test::errorOf([&] { nn::softmax(Tensor({1, 2})); });
  test::expectContains(message, test::fileLine(__FILE__, line));
  test::expectContains(message, "'nn.softmax' op needs floating-point logits, got int32 tensor of shape (2,)");
  EXPECT_OP_ERROR(nn::softmax(logits, 2), "'nn.softmax' op axis 2 is out of range for float32 tensor of shape (2, 3)");
  EXPECT_OP_ERROR(nn::sparse_softmax_cross_entropy_with_logits(Tensor({0, 1, 2}), logits),
                  "labels must have the shape of the scores without their last axis: got "
                  "int32 tensor of shape (3,) for float32 tensor of shape (2, 3)");
  EXPECT_OP_ERROR(nn::one_hot(Tensor({0.5f}), 2), "'nn.one_hot' op needs int32 or int64 indices");
  Tensor images = zeros({1, 5, 5, 3}), kernel = zeros({3, 3, 2, 8});
  EXPECT_OP_ERROR(nn::conv2d(images, kernel),
                  "'ember.conv2d' op the input has 3 channels but the filter expects 2");
  EXPECT_OP_ERROR(nn::conv2d(images, zeros({3, 3, 3, 8}), {1, 1}, "same"),
                  "'nn.conv2d' op padding must be \"SAME\" or \"VALID\", got \"same\"");
  EXPECT_OP_ERROR(nn::conv2d(images, zeros({7, 3, 3, 8})),
                  "'ember.conv2d' op the filter's height (7 with its dilation) exceeds the padded "
                  "input's (5)");
  EXPECT_OP_ERROR(nn::max_pool2d(zeros({5, 5, 3}), {2, 2}, {2, 2}),
                  "'nn.max_pool2d' op needs an NHWC input (rank 4), got float32 tensor of shape "
                  "(5, 5, 3)");
  EXPECT_OP_ERROR(nn::avg_pool2d(images, {6, 2}, {1, 1}),
                  "'ember.avg_pool2d' op the window's height (6) exceeds the padded input's (5)");
  EXPECT_OP_ERROR(nn::max_pool2d(Tensor({{{{1}}}}), {1, 1}, {1, 1}),
                  "'ember.max_pool2d' op needs an NHWC float input (rank 4), got "
                  "'tensor<1x1x1x1xi32>'");
  // A label out of range, at this line (TensorFlow's message); negative
  // ones too (a gather would take -1 as the last class).
  line = __LINE__ + 1;
  message = test::errorOf([&] { nn::sparse_softmax_cross_entropy_with_logits(Tensor({0, 3}), logits); });
  test::expectContains(message, test::fileLine(__FILE__, line));
  test::expectContains(message, "'nn.sparse_softmax_cross_entropy_with_logits' op received a label "
                                "value of 3 which is outside the valid range of [0, 3)");
  EXPECT_OP_ERROR(nn::sparse_softmax_cross_entropy_with_logits(Tensor({0, -1}), logits),
                  "received a label value of -1 which is outside the valid range of [0, 3)");
  // Traced, the compiled code reports it when it runs.
  auto traced = function(
      [](const Tensor &labels, const Tensor &x) {
        return nn::sparse_softmax_cross_entropy_with_logits(labels, x);
      },
      "cross_entropy");
  EXPECT_OP_ERROR(traced(Tensor({-7, 0}), logits), "'ember.gather' op index");
  EXPECT_OP_ERROR(traced(Tensor({-1, 0}), logits), "'ember.gather' op index");
  EXPECT_OP_ERROR(traced(Tensor({2, 3}), logits), "'ember.gather' op index");
  EXPECT_NEAR(traced(Tensor({2, 1}), logits).to_vector<float>()[1],
              nn::sparse_softmax_cross_entropy_with_logits(Tensor({2, 1}), logits).to_vector<float>()[1],
              1e-6);
}

} // namespace
