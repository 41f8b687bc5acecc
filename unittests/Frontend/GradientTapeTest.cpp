// GradientTape: gradients of eager code through ember-autodiff.
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

using namespace ember;

TEST(GradientTape, StoryB1) {
  Variable w(Tensor({{1.f}}), "w");
  GradientTape tape;
  Tensor loss = w * w;
  std::vector<Tensor> grads = tape.gradient(loss, std::vector<Variable>{w});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(grads[0].shape(), (Shape{1, 1}));
  EXPECT_EQ(grads[0].to_vector<float>(), (std::vector<float>{2.f}));
  // A non-persistent tape answers once.
  try {
    tape.gradient(loss, std::vector<Variable>{w});
    FAIL() << "expected an error";
  } catch (const OpError &e) {
    EXPECT_NE(std::string(e.what()).find("non-persistent GradientTape answers one gradient() call"),
              std::string::npos)
        << e.what();
  }
}

TEST(GradientTape, PersistentTapesAnswerManyAndTensorsAreSources) {
  Tensor x = {3.f, 4.f};
  GradientTape tape(/*persistent=*/true);
  tape.watch(x);
  Tensor y = x * x;      // dy/dx = 2x
  Tensor z = y * y;      // dz/dx = 4x^3
  EXPECT_EQ(tape.gradient(reduce_sum(y), {x})[0].to_vector<float>(), (std::vector<float>{6, 8}));
  EXPECT_EQ(tape.gradient(reduce_sum(z), {x})[0].to_vector<float>(), (std::vector<float>{108, 256}));
  EXPECT_EQ(tape.gradient(reduce_sum(z), {y})[0].to_vector<float>(), (std::vector<float>{18, 32}));
}

TEST(GradientTape, StopGradientAndUnrelatedSources) {
  Tensor x = {2.f}, unrelated = {5.f};
  GradientTape tape;
  Tensor y = x * stop_gradient(x); // only the first factor carries a gradient
  std::vector<Tensor> grads = tape.gradient(y, {x, unrelated});
  EXPECT_EQ(grads[0].to_vector<float>(), (std::vector<float>{2.f}));
  EXPECT_EQ(grads[1].to_vector<float>(), (std::vector<float>{0.f}));
}

TEST(GradientTape, TrainingLoopCompilesItsBackwardOnce) {
  Variable w(Tensor({{0.f}, {0.f}}), "w");
  Variable b(Tensor({0.f}), "b");
  Tensor x = random_uniform({16, 2}, 1), yTrue = matmul(x, Tensor({{2.f}, {-1.f}})) + 0.5f;
  auto step = [&] {
    GradientTape tape;
    Tensor error = matmul(x, w) + b - yTrue;
    Tensor loss = reduce_mean(error * error);
    std::vector<Tensor> grads = tape.gradient(loss, std::vector<Variable>{w, b});
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
  EXPECT_EQ(after.misses, before.misses) << "no eager kernel compiled after the first step";
  EXPECT_EQ(after.tape_compiles, before.tape_compiles) << "the backward compiled once";
  EXPECT_LT(last, first * 1e-3);
  std::vector<float> fitted = w.value().to_vector<float>();
  EXPECT_NEAR(fitted[0], 2.f, 1e-2);
  EXPECT_NEAR(fitted[1], -1.f, 1e-2);
  EXPECT_NEAR(b.value().item<float>(), 0.5f, 1e-2);
}

TEST(GradientTape, CustomGradientsApplyOnTapes) {
  auto log1pexp = custom_gradient([](const Tensor &x) {
    Tensor e = exp(x);
    return WithGradient{log(1.f + e), [e](const Tensor &upstream) {
                          return std::vector<Tensor>{upstream * (1.f - 1.f / (1.f + e))};
                        }};
  });
  Variable x(Tensor(100.f), "x");
  GradientTape tape(/*persistent=*/true);
  Tensor y = log1pexp(x.value());
  EXPECT_EQ(tape.gradient(y, std::vector<Variable>{x})[0].item<float>(), 1.f);
  Tensor plain = log(1.f + exp(x.value()));
  EXPECT_TRUE(std::isnan(tape.gradient(plain, std::vector<Variable>{x})[0].item<float>()));
  // At 0 both agree; the same recording structure reuses the compiled rule.
  x.assign(Tensor(0.f));
  GradientTape again;
  Tensor z = log1pexp(x.value());
  EXPECT_FLOAT_EQ(again.gradient(z, std::vector<Variable>{x})[0].item<float>(), 0.5f);
}

TEST(GradientTape, DerivativeTakesTheRecordedForwardValues) {
  // The derivative does not recompute the forward ops: it is given what the
  // tape recorded. Seen in the dumped IR of the derivative (its own shape,
  // so it is compiled here, not found in the cache).
  std::string dir = (std::filesystem::temp_directory_path() / "ember-tape-forward-values").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ::setenv("EMBER_DUMP_DIR", dir.c_str(), 1);
  Variable x(full({7, 3}, 0.5f), "x");
  GradientTape tape;
  Tensor y = tanh(x);
  Tensor loss = reduce_sum(y * y);
  std::vector<Tensor> grads = tape.gradient(loss, std::vector<Variable>{x});
  ::unsetenv("EMBER_DUMP_DIR");
  float t = std::tanh(0.5f);
  for (float g : grads[0].to_vector<float>())
    EXPECT_NEAR(g, 2 * t * (1 - t * t), 1e-6);
  std::string optimized;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().starts_with("ember_tape") &&
        entry.path().string().ends_with("-optimized.mlir")) {
      std::ifstream in(entry.path());
      optimized.assign(std::istreambuf_iterator<char>(in), {});
    }
  std::filesystem::remove_all(dir);
  size_t vjp = optimized.find("@ember_tape_vjp(");
  ASSERT_NE(vjp, std::string::npos) << optimized;
  std::string body = optimized.substr(vjp);
  EXPECT_EQ(body.find("ember.tanh"), std::string::npos) << body;
  // Arguments: x, the cotangent, then the recorded tanh(x) (%arg2), y * y
  // and the loss; 1 - tanh^2 is computed from the recorded tanh.
  EXPECT_NE(body.find("ember.mul %arg2, %arg2"), std::string::npos) << body;
}

TEST(GradientTape, GradientsOfGradientsWithNestedTapes) {
  // As in TensorFlow: the outer tape records the inner tape's gradient.
  Variable x(Tensor({1.f, 2.f}), "x");
  GradientTape outer;
  std::vector<Tensor> first;
  {
    GradientTape inner;
    Tensor y = x * x * x;
    first = inner.gradient(reduce_sum(y), std::vector<Variable>{x}); // 3x^2
  }
  EXPECT_EQ(first[0].to_vector<float>(), (std::vector<float>{3, 12}));
  std::vector<Tensor> second = outer.gradient(reduce_sum(first[0]), std::vector<Variable>{x});
  EXPECT_EQ(second[0].to_vector<float>(), (std::vector<float>{6, 12})); // 6x
}

TEST(GradientTape, HessianVectorProductThroughMatmulMatchesTheTracedOne) {
  Tensor x = random_uniform({5, 4}, 71, -1, 1, DType::Float64);
  Tensor v = random_uniform({4, 3}, 72, -1, 1, DType::Float64);
  Tensor w0 = random_uniform({4, 3}, 73, -1, 1, DType::Float64);
  auto loss = [](const Tensor &w, const Tensor &x) { return reduce_sum(tanh(matmul(x, w))); };
  Variable w(w0, "w");
  GradientTape outer;
  std::vector<Tensor> g;
  {
    GradientTape inner;
    g = inner.gradient(loss(w.value(), x), std::vector<Variable>{w});
  }
  std::vector<Tensor> hvp = outer.gradient(reduce_sum(g[0] * v), std::vector<Variable>{w});
  auto gradient = grad(loss, Argnums{0});
  auto traced = grad([&](const Tensor &w, const Tensor &x) { return reduce_sum(gradient(w, x)[0] * v); },
                     Argnums{0});
  std::vector<double> expected = traced(w0, x)[0].to_vector<double>(), got = hvp[0].to_vector<double>();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-12) << i;
}

TEST(GradientTape, RecordedValuesOfOpsFoldedAwayAreStillAccepted) {
  // reshape(reshape(x)) folds to one reshape before differentiation: the
  // value recorded for the inner one is given to the derivative and unused.
  Variable x(Tensor({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}}), "x");
  GradientTape tape;
  Tensor y = reshape(reshape(x, {6}), {3, 2});
  Tensor t = transpose(transpose(y));
  std::vector<Tensor> grads = tape.gradient(reduce_sum(t * t), std::vector<Variable>{x});
  EXPECT_EQ(grads[0].to_vector<float>(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
}
