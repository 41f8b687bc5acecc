//===- OptimizersTest.cpp - SGD and Adam against their formulas -----------===//

#include "ErrorTestUtil.h"

#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ember;
using namespace ember::optimizers;

namespace {

std::vector<double> values(const Variable &v) {
  return cast(v.value(), DType::Float64).to_vector<double>();
}

TEST(Optimizers, SgdWithAndWithoutMomentum) {
  Variable w(Tensor({1.f, -2.f}), "w");
  SGD plain(0.1);
  plain.apply_gradients({Tensor({0.5f, 1.f})}, {w});
  EXPECT_NEAR(values(w)[0], 0.95, 1e-6);
  EXPECT_NEAR(values(w)[1], -2.1, 1e-6);
  EXPECT_EQ(plain.iterations().value().item<int64_t>(), 1);

  // Keras: m = 0.9 m - lr g; w += m (Nesterov: w += 0.9 m - lr g).
  for (bool nesterov : {false, true}) {
    Variable x(Tensor({1.0}, DType::Float64), "x");
    SGD sgd(0.1, 0.9, nesterov);
    double reference = 1, m = 0;
    for (int step = 0; step < 3; ++step) {
      double g = 2 * reference; // d(x^2)/dx
      GradientTape tape;
      Tensor loss = reduce_sum(square(x.value()));
      sgd.apply_gradients(tape.gradient(loss, {x}), {x});
      m = 0.9 * m - 0.1 * g;
      reference += nesterov ? 0.9 * m - 0.1 * g : m;
      EXPECT_NEAR(values(x)[0], reference, 1e-12) << "step " << step << " nesterov " << nesterov;
    }
  }
}

TEST(Optimizers, AdamAsKeras) {
  Variable w(Tensor({0.5, -1.5, 3.0}, DType::Float64), "w");
  Adam adam(0.01);
  std::vector<double> x = {0.5, -1.5, 3.0}, m(3, 0), v(3, 0);
  for (int t = 1; t <= 4; ++t) {
    // loss = sum(w^3): g = 3 w^2
    GradientTape tape;
    Tensor loss = reduce_sum(w.value() * w.value() * w.value());
    adam.apply_gradients(tape.gradient(loss, {w}), {w});
    double alpha = 0.01 * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
    for (int i = 0; i < 3; ++i) {
      double g = 3 * x[i] * x[i];
      m[i] += (g - m[i]) * (1 - 0.9);
      v[i] += (g * g - v[i]) * (1 - 0.999);
      x[i] -= m[i] * alpha / (std::sqrt(v[i]) + 1e-7);
      EXPECT_NEAR(values(w)[i], x[i], 1e-12) << "step " << t << " element " << i;
    }
  }
  // Its variables: the step counter and the slots, named after the variable.
  std::vector<std::string> names;
  for (const auto &[name, variable] : adam.variables())
    names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"iterations", "w/m", "w/v"}));
  EXPECT_EQ(adam.iterations().value().item<int64_t>(), 4);
}

// The whole training step compiled (loss, gradients, Adam) computes what
// the eager steps compute; a learning rate held in a Variable changes
// between calls without a retrace; a schedule sees the step.
TEST(Optimizers, TracedStepsMatchEagerOnes) {
  Tensor x = random_uniform({8, 3}, 5), y = random_uniform({8, 1}, 6);
  auto train = [&](bool traced) {
    Variable w(random_uniform({3, 1}, 7), "w"), b(zeros({1}), "b");
    Variable rate(Tensor(0.05f), "rate");
    Adam adam(rate);
    auto step = [&](const Tensor &inputs, const Tensor &targets) {
      GradientTape tape;
      Tensor loss = reduce_mean(square(matmul(inputs, w.value()) + b.value() - targets));
      adam.apply_gradients(tape.gradient(loss, {w, b}), {w, b});
      return loss;
    };
    auto compiled = function(step, "adam_step");
    std::vector<float> losses;
    for (int i = 0; i < 5; ++i) {
      if (i == 3)
        rate.assign(Tensor(0.01f));
      losses.push_back((traced ? compiled(x, y) : step(x, y)).item<float>());
    }
    if (traced)
      EXPECT_EQ(compiled.concrete_functions().size(), 1u);
    EXPECT_EQ(adam.iterations().value().item<int64_t>(), 5);
    losses.push_back(w.value().to_vector<float>()[0]);
    return losses;
  };
  std::vector<float> eager = train(false), traced = train(true);
  ASSERT_EQ(eager.size(), traced.size());
  for (size_t i = 0; i < eager.size(); ++i)
    EXPECT_NEAR(traced[i], eager[i], 1e-6) << i;
  EXPECT_LT(eager[4], eager[0]); // it learns

  // A schedule: the rate halves every step.
  Variable z(Tensor({1.f}), "z");
  SGD halving([](const Tensor &step) {
    return Tensor(0.5f) * pow(Tensor(0.5f), cast(step, DType::Float32) - Tensor(1.f));
  });
  halving.apply_gradients({Tensor({1.f})}, {z}); // -0.5
  halving.apply_gradients({Tensor({1.f})}, {z}); // -0.25
  EXPECT_NEAR(z.value().to_vector<float>()[0], 0.25f, 1e-6);
}

TEST(Optimizers, MismatchesAreErrors) {
  Variable w(Tensor({1.f, 2.f}), "w");
  SGD sgd;
  test::expectContains(test::errorOf([&] { sgd.apply_gradients({Tensor({1.f, 2.f, 3.f})}, {w}); }),
                       "'optimizers.SGD.apply_gradients' op the gradient of variable 'w' "
                       "(float32 tensor of shape (2,)) is a float32 tensor of shape (3,)");
  test::expectContains(test::errorOf([&] { sgd.apply_gradients(std::vector<Tensor>{}, {w}); }),
                       "got 0 gradients for 1 variables");
  Variable iw(Tensor({1, 2}), "iw"); // an integer variable has no gradient to apply
  test::expectContains(test::errorOf([&] { sgd.apply_gradients({Tensor({1, 1})}, {iw}); }),
                       "variable 'iw' (int32 tensor of shape (2,)) is not trainable: only "
                       "floating-point variables have gradients");
  EXPECT_EQ(sgd.iterations().value().item<int64_t>(), 0); // nothing applied
}

} // namespace
