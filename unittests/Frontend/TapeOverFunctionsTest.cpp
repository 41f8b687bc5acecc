// GradientTape around calls of compiled ember::functions: the tape records
// each call as one op and differentiates through it, as TensorFlow's tape
// does through a tf.function (before, the call was invisible to the tape:
// its gradient was None, or silently wrong when composed with eager ops).
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

using namespace ember;

namespace {
/// Central differences of the scalar `loss` at `x` (float64), per element.
std::vector<double> finiteDifferences(const std::function<Tensor(const Tensor &)> &loss,
                                      const Tensor &x) {
  std::vector<double> values = x.to_vector<double>(), gradients;
  const double h = 1e-6;
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<double> plus = values, minus = values;
    plus[i] += h;
    minus[i] -= h;
    double up = loss(Tensor::from_vector(plus, x.shape(), DType::Float64)).item<double>();
    double down = loss(Tensor::from_vector(minus, x.shape(), DType::Float64)).item<double>();
    gradients.push_back((up - down) / (2 * h));
  }
  return gradients;
}

void expectNear(const std::vector<double> &actual, const std::vector<double> &expected,
                double tolerance = 1e-5) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], tolerance * (1 + std::abs(expected[i]))) << "element " << i;
}
} // namespace

TEST(TapeOverFunctions, GradientOfACallIsNotNone) {
  auto f = function([](const Tensor &x) { return x * x * x; }, "cube");
  Tensor x({1.0, 2.0, -3.0}, DType::Float64);
  GradientTape tape;
  tape.watch(x);
  Tensor loss = reduce_sum(f(x));
  std::optional<Tensor> gradient = tape.gradient(loss, {x})[0];
  ASSERT_TRUE(gradient) << "the tape recorded the compiled call";
  expectNear(gradient->to_vector<double>(), {3, 12, 27}); // 3x^2
}

TEST(TapeOverFunctions, CallsComposedWithEagerOpsMatchFiniteDifferences) {
  // The program: the call's part of the gradient was once dropped.
  auto f = function([](const Tensor &x) { return x * x + sin(x); }, "f");
  auto loss = [&](const Tensor &x) {
    return reduce_sum(square(f(x * 3.0) + slice(x, {0}, {1})));
  };
  Tensor x({0.5, -1.25, 2.0}, DType::Float64);
  GradientTape tape;
  tape.watch(x);
  Tensor value = loss(x);
  std::optional<Tensor> gradient = tape.gradient(value, {x})[0];
  ASSERT_TRUE(gradient);
  expectNear(gradient->to_vector<double>(), finiteDifferences(loss, x));
  // The same program with the function's body run eagerly (op by op) agrees.
  run_functions_eagerly(true);
  GradientTape eagerTape;
  eagerTape.watch(x);
  std::optional<Tensor> eager = eagerTape.gradient(loss(x), {x})[0];
  run_functions_eagerly(false);
  expectNear(gradient->to_vector<double>(), eager->to_vector<double>(), 1e-12);
}

TEST(TapeOverFunctions, VariablesTheFunctionReadsGetGradients) {
  Variable w(Tensor({{1.0, -2.0}, {0.5, 3.0}}, DType::Float64), "w");
  Variable b(Tensor({0.25, -0.5}, DType::Float64), "b");
  auto dense = function([&](const Tensor &x) { return tanh(matmul(x, w) + b); }, "dense");
  Tensor x({{1.0, 2.0}, {-1.0, 0.5}}, DType::Float64);
  GradientTape tape;
  Tensor loss = reduce_sum(square(dense(x)));
  std::vector<std::optional<Tensor>> grads = tape.gradient(loss, {w, b});
  ASSERT_TRUE(grads[0] && grads[1]) << "variables read inside the function are watched";
  Tensor w0 = w.value(), b0 = b.value();
  auto lossOfW = [&](const Tensor &value) {
    return reduce_sum(square(tanh(matmul(x, value) + b0)));
  };
  auto lossOfB = [&](const Tensor &value) {
    return reduce_sum(square(tanh(matmul(x, w0) + value)));
  };
  expectNear(grads[0]->to_vector<double>(), finiteDifferences(lossOfW, w0));
  expectNear(grads[1]->to_vector<double>(), finiteDifferences(lossOfB, b0));
}

TEST(TapeOverFunctions, VariablesTheFunctionAssignsCarryTheGradient) {
  // The call's assigned value is one of its outputs: a later read of the
  // variable depends on the call's inputs.
  Variable state(Tensor({1.0, 1.0}, DType::Float64), "state");
  auto update = function([&](const Tensor &x) { state.assign(state.value() * x); }, "update");
  Tensor x({2.0, -3.0}, DType::Float64);
  GradientTape tape;
  tape.watch(x);
  update(x);
  Tensor loss = reduce_sum(state.value() * x); // x^2 per element
  std::optional<Tensor> gradient = tape.gradient(loss, {x})[0];
  ASSERT_TRUE(gradient);
  expectNear(gradient->to_vector<double>(), {4, -6});
  EXPECT_EQ(state.value().to_vector<double>(), (std::vector<double>{2, -3}));
}

TEST(TapeOverFunctions, HostArgumentsAndAFunctionGoneBeforeTheGradient) {
  Tensor x({1.0, 2.0}, DType::Float64);
  GradientTape tape;
  tape.watch(x);
  Tensor loss;
  {
    // The tape keeps the function and copies of its arguments, C strings
    // included, for as long as it needs them.
    std::string mode = "square";
    auto f = function(
        [](const Tensor &v, double scale, const char *how) {
          return std::string(how) == "square" ? v * v * scale : v * scale;
        },
        "scaled");
    loss = reduce_sum(f(x, 2.5, mode.c_str()));
    mode = "linear-now";
  }
  std::optional<Tensor> gradient = tape.gradient(loss, {x})[0];
  ASSERT_TRUE(gradient);
  expectNear(gradient->to_vector<double>(), {5, 10}); // 5x
}

TEST(TapeOverFunctions, PersistentAndNestedTapes) {
  auto f = function([](const Tensor &x) { return x * x * x; }, "cube");
  Tensor x({1.0, 2.0}, DType::Float64);
  // Persistent: two gradients from one recording.
  GradientTape persistent(/*persistent=*/true);
  persistent.watch(x);
  Tensor y = f(x);
  expectNear(persistent.gradient(reduce_sum(y), {x})[0]->to_vector<double>(), {3, 12});
  expectNear(persistent.gradient(reduce_sum(y * y), {x})[0]->to_vector<double>(),
             {6, 192}); // 6x^5
  // Nested: the outer tape differentiates the inner tape's gradient.
  GradientTape outer;
  outer.watch(x);
  std::optional<Tensor> first;
  {
    GradientTape inner;
    inner.watch(x);
    first = inner.gradient(reduce_sum(f(x)), {x})[0]; // 3x^2
  }
  ASSERT_TRUE(first);
  std::optional<Tensor> second = outer.gradient(reduce_sum(*first), {x})[0];
  ASSERT_TRUE(second);
  expectNear(second->to_vector<double>(), {6, 12}); // 6x
}

TEST(TapeOverFunctions, ATapeOverACompiledGradientGivesSecondDerivatives) {
  auto df = grad([](const Tensor &x) { return reduce_sum(x * x * x); }, "cube_sum");
  Tensor x({1.0, -2.0}, DType::Float64);
  GradientTape tape;
  tape.watch(x);
  Tensor first = df(x); // 3x^2, by a compiled value_and_grad
  expectNear(first.to_vector<double>(), {3, 12});
  std::optional<Tensor> second = tape.gradient(reduce_sum(first), {x})[0];
  ASSERT_TRUE(second);
  expectNear(second->to_vector<double>(), {6, -12}); // 6x
}

TEST(TapeOverFunctions, ATrainingLoopCompilesTheTapesDerivativeOnce) {
  Variable w(Tensor({{0.f}, {0.f}}), "w");
  Variable b(Tensor({0.f}), "b");
  auto predict = function([&](const Tensor &x) { return matmul(x, w) + b; }, "predict");
  Tensor x = random_uniform({16, 2}, 3), yTrue = matmul(x, Tensor({{2.f}, {-1.f}})) + 0.5f;
  auto step = [&] {
    GradientTape tape;
    Tensor error = predict(x) - yTrue;
    Tensor loss = reduce_mean(error * error);
    std::vector<Tensor> grads = tape.gradient(loss, {w, b}, UnconnectedGradients::Zero);
    w.assign_sub(grads[0] * 0.5f);
    b.assign_sub(grads[1] * 0.5f);
    return loss.item<float>();
  };
  float first = step();
  KernelCacheStats before = kernel_cache_stats();
  float last = first;
  for (int i = 0; i < 200; ++i)
    last = step();
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.tape_compiles, before.tape_compiles) << "the backward compiled once";
  EXPECT_LT(last, first * 1e-3);
  std::vector<float> fitted = w.value().to_vector<float>();
  EXPECT_NEAR(fitted[0], 2.f, 1e-2);
  EXPECT_NEAR(fitted[1], -1.f, 1e-2);
  EXPECT_NEAR(b.value().item<float>(), 0.5f, 1e-2);
}

TEST(TapeOverFunctions, ACallWithManyResultsIsTracedOnceInTheDerivative) {
  auto both = function([](const Tensor &x) { return std::make_pair(x * x, exp(x)); }, "both");
  Tensor x({0.5, 1.5}, DType::Float64);
  GradientTape tape;
  tape.watch(x);
  auto [square, exponential] = both(x);
  Tensor loss = reduce_sum(square * 2.0 + exponential);
  std::optional<Tensor> gradient = tape.gradient(loss, {x})[0];
  ASSERT_TRUE(gradient);
  expectNear(gradient->to_vector<double>(), {4 * 0.5 + std::exp(0.5), 4 * 1.5 + std::exp(1.5)});
}
