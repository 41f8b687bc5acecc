//===- MetricsTest.cpp - losses, metrics, progress and plots ------------------===//

#include "ErrorTestUtil.h"

#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace ember;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(Losses, SparseCategoricalCrossentropyAsKeras) {
  Tensor logits = Tensor({{2.f, 1.f, 0.1f}, {0.5f, 2.5f, 0.f}});
  Tensor labels = Tensor({0, 1});
  // By hand: -log(softmax) at the label, averaged over the batch.
  double expected = 0;
  std::vector<float> l = logits.to_vector<float>();
  for (int row = 0; row < 2; ++row) {
    double sum = 0;
    for (int c = 0; c < 3; ++c)
      sum += std::exp(l[row * 3 + c]);
    expected += -(l[row * 3 + row] - std::log(sum)) / 2;
  }
  losses::SparseCategoricalCrossentropy fromLogits(true);
  EXPECT_NEAR(fromLogits(labels, logits).item<float>(), expected, 1e-6);
  losses::SparseCategoricalCrossentropy fromProbabilities;
  EXPECT_NEAR(fromProbabilities(labels, nn::softmax(logits)).item<float>(), expected, 1e-6);
  // Probabilities of 0 are clipped to 1e-7, as Keras: finite.
  EXPECT_NEAR(fromProbabilities(Tensor({1}), Tensor({{1.f, 0.f}})).item<float>(),
              -std::log(1e-7), 1e-2);
  // Differentiable: the gradient of the mean is (softmax - onehot) / batch.
  GradientTape tape;
  tape.watch(logits);
  Tensor loss = fromLogits(labels, logits);
  std::vector<float> grad = tape.gradient(loss, {logits})[0]->to_vector<float>();
  std::vector<float> p = nn::softmax(logits).to_vector<float>();
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(grad[i], (p[i] - (i == 0 || i == 4 ? 1.f : 0.f)) / 2, 1e-6) << i;
  // Labels [batch, 1] are labels [batch], as Keras takes them.
  EXPECT_EQ(fromLogits(Tensor({{0}, {1}}), logits).item<float>(), fromLogits(labels, logits).item<float>());
  EXPECT_EQ(fromProbabilities(Tensor({{0}, {1}}), nn::softmax(logits)).item<float>(),
            fromProbabilities(labels, nn::softmax(logits)).item<float>());
}

// Labels outside [0, classes) are errors from probabilities too (one_hot
// would give a row of zeros, and a loss of 0 for that example), eagerly and
// traced; so are labels of the wrong shape or dtype.
TEST(Losses, SparseCategoricalCrossentropyRefusesBadLabels) {
  Tensor p = nn::softmax(Tensor({{2.f, 1.f, 0.1f}, {0.5f, 2.5f, 0.f}}));
  losses::SparseCategoricalCrossentropy loss;
  test::expectContains(test::errorOf([&] { loss(Tensor({0, 3}), p); }),
                       "'SparseCategoricalCrossentropy' op received a label value of 3 which is "
                       "outside the valid range of [0, 3)");
  test::expectContains(test::errorOf([&] { loss(Tensor({-1, 0}), p); }), "label value of -1");
  test::expectContains(test::errorOf([&] { loss(Tensor({0, 1, 2}), p); }),
                       "labels must have the shape of the scores without their last axis");
  test::expectContains(test::errorOf([&] { loss(Tensor({0.f, 1.f}), p); }),
                       "needs int32 or int64 labels, got float32 tensor of shape (2,)");
  auto traced = function([&](const Tensor &labels) { return loss(labels, p); });
  test::expectContains(test::errorOf([&] { traced(Tensor({0, 3})); }), "'ember.gather' op index");
  test::expectContains(test::errorOf([&] { traced(Tensor({-1, 0})); }), "'ember.gather' op index");
  EXPECT_NEAR(traced(Tensor({0, 1})).item<float>(), loss(Tensor({0, 1}), p).item<float>(), 1e-6);
}

TEST(Losses, MeanSquaredError) {
  losses::MeanSquaredError mse;
  EXPECT_FLOAT_EQ(mse(Tensor({{1.f, 2.f}, {3.f, 4.f}}), Tensor({{1.f, 4.f}, {0.f, 4.f}})).item<float>(),
                  (0 + 4 + 9 + 0) / 4.f);
}

TEST(Metrics, MeanAsStoryC5) {
  metrics::Mean loss("loss");
  EXPECT_EQ(loss.result().item<double>(), 0);
  loss.update_state(0.0);
  loss.update_state(5.0);
  EXPECT_EQ(loss.result().item<double>(), 2.5);
  loss.update_state(Tensor({8.f, 9.f}));
  EXPECT_EQ(loss.result().item<double>(), 5.5);
  loss.reset_state();
  EXPECT_EQ(loss.result().item<double>(), 0);
  EXPECT_EQ(loss.name(), "loss");
}

/// A step's body that updates both metrics from the logits.
auto updatingBoth(metrics::Mean &mean, metrics::SparseCategoricalAccuracy &accuracy) {
  return [&mean, &accuracy](const Tensor &labels, const Tensor &logits) {
    mean.update_state(reduce_max(logits, {1}));
    accuracy.update_state(labels, logits);
    return reduce_sum(logits);
  };
}

TEST(Metrics, UpdatesInsideACompiledStepCount) {
  metrics::Mean mean;
  metrics::SparseCategoricalAccuracy accuracy;
  auto step = function(updatingBoth(mean, accuracy), "metrics_step");
  Tensor logits = Tensor({{0.1f, 0.9f}, {0.8f, 0.2f}, {0.3f, 0.7f}});
  step(Tensor({1, 1, 1}), logits);       // 2 of 3 right
  step(Tensor({1, 0, 1}), logits);       // 3 of 3
  EXPECT_NEAR(accuracy.result().item<double>(), 5.0 / 6, 1e-12);
  EXPECT_NEAR(mean.result().item<double>(), (0.9 + 0.8 + 0.7) / 3, 1e-6);
  EXPECT_EQ(step.concrete_functions().size(), 1u);
  accuracy.reset_state();
  accuracy.update_state(Tensor({0}), Tensor({{0.f, 1.f}}));
  EXPECT_EQ(accuracy.result().item<double>(), 0);
}

// The same step with a None batch: the metrics count each call's elements
// at run time (before, a None dim's element count was -1 and the results
// stayed 0). A None class axis is refused by name.
TEST(Metrics, UpdatesInsideAStepWithANoneBatchCount) {
  metrics::Mean mean;
  metrics::SparseCategoricalAccuracy accuracy;
  auto step = function(updatingBoth(mean, accuracy), "metrics_none_step",
                       {.input_signature = {{{kNone}, DType::Int32}, {{kNone, 2}}}});
  step(Tensor({1, 1, 1}), Tensor({{0.1f, 0.9f}, {0.8f, 0.2f}, {0.3f, 0.7f}})); // 2 of 3
  step(Tensor({0}), Tensor({{0.6f, 0.4f}}));                                   // 1 of 1
  EXPECT_NEAR(accuracy.result().item<double>(), 3.0 / 4, 1e-12);
  EXPECT_NEAR(mean.result().item<double>(), (0.9 + 0.8 + 0.7 + 0.6) / 4, 1e-6);
  EXPECT_EQ(step.concrete_functions().size(), 1u);
  losses::SparseCategoricalCrossentropy loss(/*from_logits=*/true);
  auto classes = function([&](const Tensor &y, const Tensor &x) { return loss(y, x); },
                          "none_classes", {.input_signature = {{{2}, DType::Int32}, {{2, kNone}}}});
  try {
    (void)classes(Tensor({0, 1}), Tensor({{0.f, 1.f}, {1.f, 0.f}}));
    FAIL() << "no error";
  } catch (const OpError &e) {
    EXPECT_NE(std::string(e.what()).find("needs the class axis (the last) of the scores known"),
              std::string::npos)
        << e.what();
  }
}

// Labels [batch, 1] count once each, as Keras squeezes them (compared as
// they were, they broadcast against every prediction: 0.5 here, not 1);
// labels of another shape are an error naming the metric.
TEST(Metrics, SparseCategoricalAccuracyTakesLabelsOfBatchByOne) {
  Tensor logits = Tensor({{2.f, 1.f}, {1.f, 3.f}, {0.f, 5.f}});
  metrics::SparseCategoricalAccuracy accuracy;
  accuracy.update_state(Tensor({{0}, {1}, {0}}), logits);
  EXPECT_NEAR(accuracy.result().item<double>(), 2.0 / 3, 1e-12);
  accuracy.reset_state();
  accuracy.update_state(Tensor({0.f, 1.f, 1.f}), logits); // float labels, as Keras takes them
  EXPECT_EQ(accuracy.result().item<double>(), 1);
  test::expectContains(test::errorOf([&] { accuracy.update_state(Tensor({0, 1}), logits); }),
                       "'SparseCategoricalAccuracy' op labels must have the shape of the "
                       "predictions without their last axis: got int32 tensor of shape (2,) for "
                       "float32 tensor of shape (3, 2)");
}

TEST(Progbar, PlainLinesWhenNotATerminal) {
  std::ostringstream log;
  utils::Progbar bar(4, log, 30, {"accuracy"});
  bar.update(1, {{"loss", 4.0}, {"accuracy", 0.25}});
  bar.update(2, {{"loss", 2.0}, {"accuracy", 0.5}});
  EXPECT_EQ(log.str(), ""); // nothing until the epoch ends
  bar.add(2, {{"loss", 1.0}, {"accuracy", 0.75}});
  // loss: the mean over steps (4 + 2 + 1 * 2) / 4; accuracy: stateful, as given.
  EXPECT_EQ(log.str(), "4/4 - 0s - loss: 2.0000 - accuracy: 0.7500\n");
}

TEST(Progbar, ABarRedrawnInPlaceOnATerminal) {
  std::ostringstream screen;
  utils::Progbar bar(10, screen, 10, {}, /*interactive=*/1);
  bar.update(5, {{"loss", 0.5}});
  EXPECT_NE(screen.str().find("\r 5/10 [====>.....] - ETA: "), std::string::npos) << screen.str();
  bar.update(10, {{"loss", 0.5}});
  std::string text = screen.str();
  EXPECT_NE(text.find("10/10 [==========] - 0s - loss: 0.5000"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(Plot, ALinePlotOfTheLossHistory) {
  std::vector<double> losses = {2.3, 1.7, NAN, 1.2, 0.9};
  std::string svg = plot::line_plot_svg(losses, "Loss <per> batch", "batch", "loss");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("Loss &lt;per&gt; batch"), std::string::npos);
  // The NaN splits the line in two; every y is inside the picture.
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1))
    ++lines;
  EXPECT_EQ(lines, 2u);
  EXPECT_NE(svg.find(">2<"), std::string::npos) << "a tick at 2";
  std::string path = ::testing::TempDir() + "/loss.svg";
  plot::save_line_plot(path, losses, "loss", "batch", "loss");
  EXPECT_EQ(readFile(path), plot::line_plot_svg(losses, "loss", "batch", "loss"));
  EXPECT_THROW(plot::save_line_plot("/nonexistent-dir/x.svg", losses, "", "", ""), IOError);
}

TEST(Plot, SmoothedAsTensorBoardSmoothsScalars) {
  // TensorBoard's debiased moving average: starts at the first value; a
  // non-finite value stays and leaves the average alone.
  std::vector<double> losses = {2.0, 1.0, NAN, 4.0};
  std::vector<double> trend = plot::smoothed(losses, 0.5);
  ASSERT_EQ(trend.size(), 4u);
  EXPECT_DOUBLE_EQ(trend[0], 2.0);
  EXPECT_DOUBLE_EQ(trend[1], (0.5 * 2.0 * 0.5 + 0.5 * 1.0) / (1 - 0.25)); // 4/3
  EXPECT_TRUE(std::isnan(trend[2]));
  EXPECT_DOUBLE_EQ(trend[3], ((0.25 * 2.0 + 0.5 * 1.0) * 0.5 + 0.5 * 4.0) / (1 - 0.125));
  EXPECT_EQ(plot::smoothed(losses, 0)[3], 4.0);
  EXPECT_THROW(plot::smoothed(losses, 1.0), Error);
  // Drawn as TensorBoard does: the values faint, the smoothed line over them
  // (each split by the NaN).
  std::string svg = plot::line_plot_svg(losses, "loss", "batch", "loss", 0.5);
  size_t lines = 0, faint = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1))
    ++lines;
  for (size_t at = svg.find("stroke-opacity"); at != std::string::npos;
       at = svg.find("stroke-opacity", at + 1))
    ++faint;
  EXPECT_EQ(lines, 4u);
  EXPECT_EQ(faint, 2u);
}

} // namespace
