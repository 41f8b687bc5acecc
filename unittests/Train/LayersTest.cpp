//===- LayersTest.cpp - modules, layers, and a model that trains -----------===//

#include "ErrorTestUtil.h"

#include "ember/ember.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace ember;
using namespace ember::layers;

namespace {

TEST(Layers, ASequentialModelOwnsItsWeightsByPath) {
  Sequential model({std::make_shared<Conv2D>(4, std::array<int64_t, 2>{3, 3}, "relu",
                                             std::array<int64_t, 2>{1, 1}, "SAME", 0, "conv"),
                    std::make_shared<GlobalAveragePooling2D>(),
                    std::make_shared<Dense>(10, "linear", true, 0, "head")},
                   "classifier");
  Tensor logits = model(zeros({2, 8, 8, 3}));
  EXPECT_EQ(logits.shape(), Shape({2, 10}));
  std::vector<std::pair<std::string, Shape>> seen;
  for (const auto &[path, variable] : model.named_variables())
    seen.emplace_back(path, variable.shape());
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, Shape>>{
                      {"classifier/conv/kernel", Shape({3, 3, 3, 4})},
                      {"classifier/conv/bias", Shape({4})},
                      {"classifier/head/kernel", Shape({4, 10})},
                      {"classifier/head/bias", Shape({10})}}));
  EXPECT_EQ(model.trainable_variables().size(), 4u);
  // Glorot-uniform kernels within sqrt(6 / (fan_in + fan_out)), zero biases.
  std::vector<float> kernel = model.trainable_variables()[0].value().to_vector<float>();
  double limit = std::sqrt(6.0 / (27 + 36));
  double largest = 0;
  for (float w : kernel)
    largest = std::max(largest, std::fabs(static_cast<double>(w)));
  EXPECT_LE(largest, limit);
  EXPECT_GT(largest, limit / 2);
  EXPECT_EQ(model.trainable_variables()[1].value().to_vector<float>(), std::vector<float>(4, 0.f));
}

TEST(Layers, NamesAreUniqueAsKerasMakesThem) {
  Dense a(3), b(3);
  EXPECT_EQ(a.name().rfind("dense", 0), 0u);
  EXPECT_NE(a.name(), b.name());
  Flatten flatten;
  EXPECT_EQ(flatten(zeros({2, 3, 4})).shape(), Shape({2, 12}));
}

// A small classifier trained by a traced step (weights made inside the
// first trace, Adam's update compiled in) learns a separable problem.
TEST(Layers, ATracedTrainingStepLearns) {
  Tensor x = random_uniform({64, 2}, 1, -1, 1);
  std::vector<float> points = x.to_vector<float>();
  std::vector<int32_t> classes;
  for (int i = 0; i < 64; ++i)
    classes.push_back(points[2 * i] + points[2 * i + 1] > 0 ? 1 : 0);
  Tensor labels = Tensor::from_vector(classes, {64});
  Sequential model({std::make_shared<Dense>(16, "relu", true, 11),
                    std::make_shared<Dense>(2, "linear", true, 12)});
  optimizers::Adam adam(0.05);
  auto step = function(
      [&](const Tensor &inputs, const Tensor &targets) {
        GradientTape tape;
        Tensor loss = reduce_mean(nn::sparse_softmax_cross_entropy_with_logits(targets, model(inputs)));
        std::vector<Variable> weights = model.trainable_variables();
        adam.apply_gradients(tape.gradient(loss, weights), weights);
        return loss;
      },
      "train_step");
  float first = step(x, labels).item<float>();
  float last = first;
  for (int i = 0; i < 60; ++i)
    last = step(x, labels).item<float>();
  EXPECT_LT(last, first * 0.3f) << "from " << first << " to " << last;
  EXPECT_EQ(step.concrete_functions().size(), 1u);
  EXPECT_EQ(model.trainable_variables().size(), 4u);
}

TEST(Layers, PoolingLayersAsKeras) {
  Tensor x = random_uniform({2, 6, 5, 3}, 7, -1, 1);
  MaxPooling2D pool; // 2x2, strides = the window, VALID
  Tensor y = pool(x);
  EXPECT_EQ(y.shape(), Shape({2, 3, 2, 3}));
  EXPECT_EQ(y.to_vector<float>(), nn::max_pool2d(x, {2, 2}, {2, 2}).to_vector<float>());
  AveragePooling2D average({3, 3}, std::array<int64_t, 2>{1, 1}, "SAME");
  EXPECT_EQ(average(x).to_vector<float>(),
            nn::avg_pool2d(x, {3, 3}, {1, 1}, "SAME").to_vector<float>());
  EXPECT_TRUE(pool.variables().empty());
}

TEST(Layers, DropoutDropsInTrainingOnly) {
  Dropout dropout(0.25, /*seed=*/3);
  Tensor x = ones({100, 100});
  EXPECT_EQ(dropout(x).to_vector<float>(), x.to_vector<float>()); // inference: identity
  EXPECT_EQ(dropout.trainable_variables().size(), 0u);
  ASSERT_EQ(dropout.non_trainable_variables().size(), 1u);

  std::vector<float> first = dropout(x, /*training=*/true).to_vector<float>();
  std::vector<float> second = dropout(x, true).to_vector<float>();
  int64_t dropped = 0;
  for (float v : first) {
    ASSERT_TRUE(v == 0.f || std::fabs(v - 1 / 0.75f) < 1e-6f) << v;
    dropped += v == 0.f;
  }
  EXPECT_NEAR(dropped / 10000.0, 0.25, 0.02); // 4.5 standard deviations
  EXPECT_NE(first, second) << "each step draws a new mask";
  // No lattice: the mask's rows are not shifts of each other.
  std::vector<float> row0(first.begin(), first.begin() + 100);
  std::vector<float> row1(first.begin() + 100, first.begin() + 200);
  EXPECT_NE(row0, row1);

  // A seeded layer repeats its masks; a traced step draws a new one per call.
  Dropout again(0.25, 3);
  EXPECT_EQ(again(x, true).to_vector<float>(), first);
  auto step = function([&](const Tensor &t) { return again(t, true); }, "dropout_step");
  EXPECT_EQ(step(x).to_vector<float>(), second);
  std::vector<float> third = step(x).to_vector<float>();
  EXPECT_NE(third, second);
  EXPECT_EQ(step.concrete_functions().size(), 1u);
}

TEST(Layers, StoryC3ATrunkSharedByTwoHeads) {
  // One trunk, two heads: train trunk + head 1, fine-tune head 2 alone,
  // export the trunk alone.
  auto trunk = std::make_shared<Sequential>(
      std::vector<std::shared_ptr<Layer>>{std::make_shared<Dense>(8, "relu", true, 11)}, "trunk");
  auto head1 = std::make_shared<Dense>(1, "linear", true, 12, "head1");
  auto head2 = std::make_shared<Dense>(1, "linear", true, 13, "head2");
  Sequential model1({trunk, head1}), model2({trunk, head2});
  Tensor x = random_uniform({32, 4}, 5), y1 = reduce_sum(x, {1}, true), y2 = -y1;
  EXPECT_EQ(model1(x).shape(), Shape({32, 1}));
  EXPECT_EQ(model2(x).shape(), Shape({32, 1}));
  EXPECT_EQ(model1.trainable_variables().size(), 4u); // trunk's 2 + head 1's 2
  EXPECT_EQ(trunk->trainable_variables().size(), 2u);

  auto train = [&](Sequential &model, const std::vector<Variable> &weights, const Tensor &target,
                   int steps) {
    optimizers::Adam adam(0.05);
    losses::MeanSquaredError mse;
    float first = 0, last = 0;
    for (int i = 0; i < steps; ++i) {
      GradientTape tape;
      Tensor loss = mse(target, model(x));
      (i == 0 ? first : last) = loss.item<float>();
      adam.apply_gradients(tape.gradient(loss, weights), weights);
    }
    return std::make_pair(first, last);
  };
  auto [before1, after1] = train(model1, model1.trainable_variables(), y1, 100);
  EXPECT_LT(after1, before1 / 10);

  std::vector<std::vector<float>> trunkBefore;
  for (const Variable &v : trunk->trainable_variables())
    trunkBefore.push_back(v.value().to_vector<float>());
  auto [before2, after2] = train(model2, head2->trainable_variables(), y2, 100);
  EXPECT_LT(after2, before2);
  std::vector<std::vector<float>> trunkAfter;
  for (const Variable &v : trunk->trainable_variables())
    trunkAfter.push_back(v.value().to_vector<float>());
  EXPECT_EQ(trunkAfter, trunkBefore) << "fine-tuning head 2 left the trunk alone";

  std::string path = ::testing::TempDir() + "/trunk.safetensors";
  trunk->save_weights(path);
  Sequential reused({std::make_shared<Dense>(8, "relu", true, 99)}, "reused_trunk");
  reused(x);
  reused.load_weights(path);
  EXPECT_EQ(reused(x).to_vector<float>(), (*trunk)(x).to_vector<float>());
}

// Keras's conventions: Dense applies its kernel along the last axis of any
// input of rank 2 or more; padding is "same" / "valid" in any case; Flatten
// keeps an empty batch's other dims.
TEST(Layers, KerasShapesAndSpellings) {
  Dense dense(4, "tanh", true, 7);
  Tensor x = random_uniform({2, 3, 5}, 1);
  Tensor y = dense(x);
  ASSERT_EQ(y.shape(), (Shape{2, 3, 4}));
  Tensor rows = dense(reshape(x, {6, 5}));
  EXPECT_EQ(reshape(y, {6, 4}).to_vector<float>(), rows.to_vector<float>());
  EXPECT_EQ(dense(zeros({0, 2, 5})).shape(), (Shape{0, 2, 4}));
  Tensor images = random_uniform({1, 6, 6, 2}, 2);
  Conv2D lower(3, {3, 3}, "linear", {2, 2}, "same", 5), upper(3, {3, 3}, "linear", {2, 2}, "SAME", 5);
  EXPECT_EQ(lower(images).to_vector<float>(), upper(images).to_vector<float>());
  EXPECT_EQ(lower(images).shape(), (Shape{1, 3, 3, 3}));
  EXPECT_EQ(MaxPooling2D({4, 4}, std::nullopt, "same")(images).shape(), (Shape{1, 2, 2, 2}));
  EXPECT_EQ(Flatten()(zeros({0, 3, 2})).shape(), (Shape{0, 6}));
  // A classifier's head (its construction threw: the activation's name was
  // checked by applying it to a scalar, which softmax refuses).
  Dense head(3, "softmax");
  std::vector<float> sums = reduce_sum(head(x), {-1}).to_vector<float>();
  for (float sum : sums)
    EXPECT_NEAR(sum, 1.f, 1e-6);
}

/// A user's own layer: a matmul with a fixed [2, 2] matrix, then a Dense
/// (given the product flattened to rank 1 when `flatten`, which it refuses).
class MixThenDense : public Layer {
public:
  MixThenDense() : Layer("mix", "mix_then_dense") {}
  static int matmulLine;
  bool flatten = false;

protected:
  Tensor call(const Tensor &x, bool) override {
    matmulLine = __LINE__ + 1;
    Tensor mixed = matmul(x, Tensor({{1.f, 0.f}, {0.f, 1.f}}));
    return dense_(flatten ? reshape(mixed, {-1}) : mixed);
  }

private:
  Dense dense_{3, "relu", true, 1, "inner"};
};
int MixThenDense::matmulLine = 0;

TEST(Layers, ErrorsInsideAUsersOwnLayerNameTheUsersLines) {
  // Without extra code: an op the user's call() runs names that line of
  // theirs; what ember's own layers inside it find names the line that
  // called the user's layer.
  MixThenDense layer;
  std::string message = test::errorOf([&] { layer(zeros({2, 3})); });
  test::expectContains(message, test::fileLine(__FILE__, MixThenDense::matmulLine));
  test::expectContains(message, "'ember.matmul' op");
  layer(zeros({4, 2}));
  layer.flatten = true;
  int line = __LINE__ + 1;
  message = test::errorOf([&] { layer(zeros({4, 2})); });
  test::expectContains(message, test::fileLine(__FILE__, line));
  test::expectContains(message, "layer 'inner' needs an input of rank 2 or more");
}

TEST(Layers, BadInputsAreErrors) {
  Dense dense(3, "linear", true, 0, "fc");
  dense(zeros({2, 4}));
  test::expectContains(test::errorOf([&] { dense(zeros({2, 5})); }),
                       "layer 'fc' was built for inputs of 4 features, got float32 tensor of shape (2, 5)");
  test::expectContains(test::errorOf([&] { dense(Tensor(1.f)); }),
                       "layer 'fc' needs an input of rank 2 or more, got float32 tensor of shape ()");
  test::expectContains(test::errorOf([&] { dense(zeros({4})); }),
                       "layer 'fc' needs an input of rank 2 or more, got float32 tensor of shape (4,)");
  // Dropout scales: floats only (tf.nn.dropout).
  Dropout dropout(0.5, 0, "drop");
  test::expectContains(test::errorOf([&] { dropout(Tensor({1, 2}), true); }),
                       "layer 'drop' needs a floating-point input, got int32 tensor of shape (2,)");
  test::expectContains(test::errorOf([&] { Conv2D(2, {3, 3}, "linear", {1, 1}, "full"); }),
                       "Conv2D: padding must be \"valid\" or \"same\", got \"full\"");
  Conv2D conv(2, {3, 3}, "linear", {1, 1}, "VALID", 0, "c");
  test::expectContains(test::errorOf([&] { conv(zeros({8, 8, 3})); }),
                       "layer 'c' needs an input of rank 4, got float32 tensor of shape (8, 8, 3)");
  test::expectContains(test::errorOf([&] { Dense(3, "gelu"); }), "unknown activation \"gelu\"");
  // Errors name the line that called the model, also from its sub-layers
  // and from the ops inside them.
  Sequential model({std::make_shared<Conv2D>(2, std::array<int64_t, 2>{3, 3}),
                    std::make_shared<Flatten>()});
  int line = __LINE__ + 1;
  std::string message = test::errorOf([&] { model(zeros({1, 5, 5})); });
  test::expectContains(message, test::fileLine(__FILE__, line));
  test::expectContains(message, "needs an input of rank 4, got float32 tensor of shape (1, 5, 5)");
  model(zeros({1, 5, 5, 3}));
  line = __LINE__ + 1;
  message = test::errorOf([&] { model(zeros({1, 5, 5, 4})); });
  test::expectContains(message, test::fileLine(__FILE__, line));
  test::expectContains(message, "'ember.conv2d' op the input has 4 channels but the filter expects 3");
}

} // namespace

// `model` (weights built) traced once with a None batch of `item`s: at each
// of `batches` it agrees with the eager model and gives [batch, units].
static void expectOneTraceServesEveryBatch(ember::layers::Sequential &model, const char *name,
                                           std::vector<int64_t> item, int64_t units,
                                           std::initializer_list<int64_t> batches) {
  std::vector<int64_t> signature = item;
  signature.insert(signature.begin(), ember::kNone);
  auto predict = ember::function([&](const ember::Tensor &x) { return model(x); }, name,
                                 {.input_signature = {{signature}}});
  for (int64_t batch : batches) {
    std::vector<int64_t> dims = item;
    dims.insert(dims.begin(), batch);
    ember::Tensor x = ember::random_uniform(ember::Shape(std::span<const int64_t>(dims)),
                                            static_cast<uint64_t>(batch));
    ember::Tensor traced = predict(x), eager = model(x);
    ASSERT_EQ(traced.shape(), ember::Shape({batch, units}));
    std::vector<float> a = traced.to_vector<float>(), b = eager.to_vector<float>();
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(a[i], b[i], 1e-5) << "batch " << batch << " element " << i;
  }
  EXPECT_EQ(predict.concrete_functions().size(), 1u);
}

// Issue 25: Flatten and Dense on a None batch, one trace for every batch size.
TEST(Layers, FlattenAndDenseOnANoneBatch) {
  ember::layers::Sequential model({std::make_shared<ember::layers::Flatten>(),
                                   std::make_shared<ember::layers::Dense>(8, "relu"),
                                   std::make_shared<ember::layers::Dense>(2)});
  (void)model(ember::zeros({1, 4, 3})); // builds the weights
  expectOneTraceServesEveryBatch(model, "predict", {4, 3}, 2, {3, 10, 1});
}

// Dense on a sequence [None, steps, features]: its rows are the batch times
// the steps, -1 for the reshape (before, the None batch multiplied by an
// even number of steps overflowed to 0 rows). Flatten refuses a None dim
// after the batch by name.
TEST(Layers, DenseOnASequenceWithANoneBatch) {
  for (int64_t steps : {4, 3}) {
    auto dense = std::make_shared<ember::layers::Dense>(5);
    (void)(*dense)(ember::zeros({1, steps, 6}));
    auto predict =
        ember::function([&](const ember::Tensor &x) { return (*dense)(x); }, "dense_sequence",
                        {.input_signature = {{{ember::kNone, steps, 6}}}});
    for (int64_t batch : {2, 5}) {
      ember::Tensor x = ember::random_uniform({batch, steps, 6}, static_cast<uint64_t>(batch));
      ember::Tensor traced = predict(x), eager = (*dense)(x);
      ASSERT_EQ(traced.shape(), ember::Shape({batch, steps, 5}));
      std::vector<float> a = traced.to_vector<float>(), b = eager.to_vector<float>();
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], 1e-5) << "steps " << steps << " batch " << batch;
    }
    EXPECT_EQ(predict.concrete_functions().size(), 1u);
  }
  auto flatten = std::make_shared<ember::layers::Flatten>();
  auto f = ember::function([&](const ember::Tensor &x) { return (*flatten)(x); }, "flatten_none",
                           {.input_signature = {{{2, ember::kNone, 3}}}});
  try {
    (void)f(ember::zeros({2, 4, 3}));
    FAIL() << "no error";
  } catch (const ember::OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("flattens the dims after the batch, which must be known: dim 1 of "
                           "float32 tensor of shape (2, None, 3) is None"),
              std::string::npos)
        << message;
  }
}

// Dense on a None batch of None steps: B * T rows through the kernel, split
// back with x's sizes. One trace for every (batch, steps), values and the
// kernel's gradient as the eager layer's.
TEST(Layers, DenseOnANoneBatchOfNoneSteps) {
  auto dense = std::make_shared<ember::layers::Dense>(5, "tanh");
  (void)(*dense)(ember::zeros({1, 1, 6}));
  auto lossOf = [&](const ember::Tensor &x) {
    ember::GradientTape tape;
    ember::Tensor y = (*dense)(x);
    ember::Tensor loss = ember::reduce_sum(ember::square(y));
    return std::vector<ember::Tensor>{y, *tape.gradient(loss, dense->trainable_variables())[0]};
  };
  auto step = ember::function(lossOf, "dense_none_steps",
                              {.input_signature = {{{ember::kNone, ember::kNone, 6}}}});
  for (auto [batch, steps] : {std::pair<int64_t, int64_t>{2, 3}, {4, 1}, {1, 5}, {3, 3}}) {
    ember::Tensor x =
        ember::random_uniform({batch, steps, 6}, static_cast<uint64_t>(batch + steps));
    std::vector<ember::Tensor> traced = step(x), eager = lossOf(x);
    ASSERT_EQ(traced[0].shape(), ember::Shape({batch, steps, 5}));
    for (size_t r = 0; r < 2; ++r) {
      std::vector<float> a = traced[r].to_vector<float>(), b = eager[r].to_vector<float>();
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], 1e-4) << "batch " << batch << " steps " << steps << " result " << r;
    }
  }
  EXPECT_EQ(step.concrete_functions().size(), 1u);
}

// Dropout's training mask hashes each element's row-major number: traced
// with None dims (the batch, and the steps after it), it numbers the
// elements at run time and draws exactly the mask of the known shape, one
// trace for every size; every row gets its own mask.
TEST(Layers, DropoutInTrainingOnNoneDimsDrawsTheKnownShapesMask) {
  for (std::vector<int64_t> item :
       {std::vector<int64_t>{6}, std::vector<int64_t>{ember::kNone, 4}}) {
    auto generic = std::make_shared<ember::layers::Dropout>(0.5, 7);
    auto specialized = std::make_shared<ember::layers::Dropout>(0.5, 7);
    std::vector<int64_t> signature = item;
    signature.insert(signature.begin(), ember::kNone);
    auto f = ember::function([&](const ember::Tensor &x) { return (*generic)(x, true); },
                             "dropout_none", {.input_signature = {{signature}}});
    auto g = ember::function([&](const ember::Tensor &x) { return (*specialized)(x, true); },
                             "dropout_static");
    for (int64_t batch : {3, 8, 1}) {
      std::vector<int64_t> dims = {batch, item[0] == ember::kNone ? batch + 2 : 6};
      if (item.size() > 1)
        dims.push_back(4);
      ember::Tensor x = ember::ones(ember::Shape(std::span<const int64_t>(dims)));
      std::vector<float> a = f(x).to_vector<float>(), b = g(x).to_vector<float>();
      ASSERT_EQ(a, b) << "batch " << batch; // the same mask, at the same step
      size_t kept = std::count(a.begin(), a.end(), 2.0f);
      EXPECT_EQ(kept + std::count(a.begin(), a.end(), 0.0f), a.size());
      if (batch == 8) { // 48 or 320 draws: about half kept, rows unlike
        EXPECT_GT(kept, a.size() / 4);
        EXPECT_LT(kept, a.size() * 3 / 4);
        size_t row = a.size() / static_cast<size_t>(batch);
        EXPECT_FALSE(std::equal(a.begin(), a.begin() + row, a.begin() + row));
      }
    }
    EXPECT_EQ(f.concrete_functions().size(), 1u);
  }
  // Its gradient in a step traced on a None batch: the mask, scaled.
  auto generic = std::make_shared<ember::layers::Dropout>(0.25, 3);
  auto specialized = std::make_shared<ember::layers::Dropout>(0.25, 3);
  ember::Variable w(ember::Tensor(1.5f), "w"), v(ember::Tensor(1.5f), "v");
  auto stepOf = [](std::shared_ptr<ember::layers::Dropout> dropout, ember::Variable &weight) {
    return [dropout, &weight](const ember::Tensor &x) {
      ember::GradientTape tape;
      ember::Tensor loss = ember::reduce_sum(ember::square((*dropout)(x * weight.value(), true)));
      return *tape.gradient(loss, {weight})[0];
    };
  };
  auto step = ember::function(stepOf(generic, w), "dropout_grad_none",
                              {.input_signature = {{{ember::kNone, 5}}}});
  auto perShape = ember::function(stepOf(specialized, v), "dropout_grad_static");
  for (int64_t batch : {4, 7}) {
    ember::Tensor x = ember::random_uniform({batch, 5}, static_cast<uint64_t>(batch));
    EXPECT_NEAR(step(x).item<float>(), perShape(x).item<float>(), 1e-4) << "batch " << batch;
  }
  EXPECT_EQ(step.concrete_functions().size(), 1u);
}

// A None dim the layers cannot take is refused by name.
TEST(Layers, ConvolutionsRefuseNoneChannelsByName) {
  // Conv2D builds its kernel from the channels: a None there is refused.
  auto conv = std::make_shared<ember::layers::Conv2D>(2, std::array<int64_t, 2>{3, 3});
  auto g = ember::function([&](const ember::Tensor &x) { return (*conv)(x); }, "conv_none",
                           {.input_signature = {{{1, 5, 5, ember::kNone}}}});
  try {
    (void)g(ember::ones({1, 5, 5, 2}));
    FAIL() << "no error";
  } catch (const ember::OpError &e) {
    EXPECT_NE(std::string(e.what()).find("needs its inputs' channels (the last dim) known"),
              std::string::npos)
        << e.what();
  }
}

// A convolutional classifier (Conv2D, pooling, Flatten, Dense) on a None
// batch: one trace, agreeing with the eager model at each batch size.
TEST(Layers, ConvolutionsAndPoolingOnANoneBatch) {
  ember::layers::Sequential model(
      {std::make_shared<ember::layers::Conv2D>(4, std::array<int64_t, 2>{3, 3}, "relu",
                                               std::array<int64_t, 2>{1, 1}, "SAME", 3),
       std::make_shared<ember::layers::MaxPooling2D>(), std::make_shared<ember::layers::Flatten>(),
       std::make_shared<ember::layers::Dense>(3)});
  (void)model(ember::zeros({1, 6, 6, 2})); // builds the weights
  expectOneTraceServesEveryBatch(model, "predict_cnn", {6, 6, 2}, 3, {2, 7, 1});
}
