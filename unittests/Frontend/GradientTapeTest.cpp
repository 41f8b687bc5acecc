// GradientTape: gradients of eager code through ember-autodiff.
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <latch>
#include <optional>
#include <string>
#include <thread>

using namespace ember;

TEST(GradientTape, StoryB1) {
  Variable w(Tensor({{1.f}}), "w");
  GradientTape tape;
  Tensor loss = w * w;
  std::vector<std::optional<Tensor>> grads = tape.gradient(loss, {w});
  ASSERT_EQ(grads.size(), 1u);
  ASSERT_TRUE(grads[0]);
  EXPECT_EQ(grads[0]->shape(), (Shape{1, 1}));
  EXPECT_EQ(grads[0]->to_vector<float>(), (std::vector<float>{2.f}));
  // A non-persistent tape answers once.
  try {
    tape.gradient(loss, {w});
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
  EXPECT_EQ(tape.gradient(reduce_sum(y), {x})[0]->to_vector<float>(), (std::vector<float>{6, 8}));
  EXPECT_EQ(tape.gradient(reduce_sum(z), {x})[0]->to_vector<float>(), (std::vector<float>{108, 256}));
  EXPECT_EQ(tape.gradient(reduce_sum(z), {y})[0]->to_vector<float>(), (std::vector<float>{18, 32}));
}

TEST(GradientTape, StopGradientAndUnrelatedSources) {
  Tensor x = {2.f}, unrelated = {5.f};
  GradientTape tape(/*persistent=*/true);
  Tensor y = x * stop_gradient(x); // only the first factor carries a gradient
  // As TensorFlow: no gradient (std::nullopt) for a source y does not depend on...
  std::vector<std::optional<Tensor>> grads = tape.gradient(y, {x, unrelated});
  ASSERT_EQ(grads.size(), 2u);
  ASSERT_TRUE(grads[0]);
  EXPECT_EQ(grads[0]->to_vector<float>(), (std::vector<float>{2.f}));
  EXPECT_FALSE(grads[1]);
  EXPECT_FALSE(tape.gradient(y, {unrelated}, UnconnectedGradients::None)[0]);
  // ... or zeros, asked for as tf.UnconnectedGradients.ZERO.
  std::vector<Tensor> zeroed = tape.gradient(y, {x, unrelated}, UnconnectedGradients::Zero);
  EXPECT_EQ(zeroed[0].to_vector<float>(), (std::vector<float>{2.f}));
  EXPECT_EQ(zeroed[1].to_vector<float>(), (std::vector<float>{0.f}));
}

TEST(GradientTape, UnconnectedSourcesHaveNoGradient) {
  // Sources given as a braced list of Tensors and Variables (what the
  // header's example does), or as a std::vector of either.
  Variable w(Tensor({1.f, 2.f}), "w"), idle(Tensor({{3.f}}), "idle");
  Tensor x = {4.f, 5.f}, count = {1, 2}, only = {6.f};
  GradientTape tape(/*persistent=*/true);
  Tensor loss = reduce_sum(w * x) + reduce_sum(cast(count, DType::Float32));
  auto grads = tape.gradient(loss, {w, x, idle, count, only});
  ASSERT_EQ(grads.size(), 5u);
  EXPECT_EQ(grads[0]->to_vector<float>(), (std::vector<float>{4, 5}));
  EXPECT_EQ(grads[1]->to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_FALSE(grads[2]); // a variable not read on the tape
  EXPECT_FALSE(grads[3]); // an integer tensor: no gradient, as TensorFlow
  EXPECT_FALSE(grads[4]); // a tensor never used
  std::vector<Tensor> zeros = tape.gradient(loss, {w, x, idle, count, only}, UnconnectedGradients::Zero);
  EXPECT_EQ(zeros[2].shape(), (Shape{1, 1}));
  EXPECT_EQ(zeros[2].to_vector<float>(), (std::vector<float>{0}));
  EXPECT_EQ(zeros[3].dtype(), DType::Int32);
  EXPECT_EQ(zeros[3].to_vector<int>(), (std::vector<int>{0, 0}));
  EXPECT_EQ(zeros[4].to_vector<float>(), (std::vector<float>{0}));
  std::vector<Variable> variables{w, idle};
  std::vector<Tensor> tensors{x, only};
  auto fromVariables = tape.gradient(loss, variables);
  EXPECT_TRUE(fromVariables[0]);
  EXPECT_FALSE(fromVariables[1]);
  auto fromTensors = tape.gradient(loss, tensors);
  EXPECT_TRUE(fromTensors[0]);
  EXPECT_FALSE(fromTensors[1]);
  // An integer target has no gradients (TensorFlow's None; ember gave zeros).
  EXPECT_FALSE(tape.gradient(cast(w * x, DType::Int32), {w})[0]);
  EXPECT_EQ(tape.gradient(cast(w * x, DType::Int32), {w}, UnconnectedGradients::Zero)[0].to_vector<float>(),
            (std::vector<float>{0, 0}));
  // A target no recorded op produced depends on no source; itself, on itself.
  EXPECT_FALSE(tape.gradient(Tensor(1.f), {w})[0]);
  EXPECT_EQ(tape.gradient(x, {x})[0]->to_vector<float>(), (std::vector<float>{1, 1}));
}

// A variable assigned between two reads on the tape was two values: its
// gradient sums both reads' (TensorFlow's), where ember took the last read
// alone. Eagerly and inside a traced function.
TEST(GradientTape, AVariableAssignedBetweenReadsSumsBothReadsGradients) {
  auto run = [](Variable &v) {
    GradientTape tape;
    Tensor a = reduce_sum(v.value() * 3.0);
    v.assign(v.value() * 0.0 + 5.0);
    Tensor b = reduce_sum(v.value() * v.value());
    return *tape.gradient(a + b, {v})[0];
  };
  Variable eager(Tensor({1.0, 2.0}, DType::Float64), "eager");
  EXPECT_EQ(run(eager).to_vector<double>(), (std::vector<double>{13, 13})); // 3 + 2 * 5
  Variable traced(Tensor({1.0, 2.0}, DType::Float64), "traced");
  auto step = function([&](const Tensor &) { return run(traced); });
  EXPECT_EQ(step(Tensor(0)).to_vector<double>(), (std::vector<double>{13, 13}));
  // Read twice, unassigned: one value, counted once.
  Variable once(Tensor({1.0, 2.0}, DType::Float64), "once");
  GradientTape tape;
  Tensor loss = reduce_sum(once.value() * 2.0) + reduce_sum(once.value());
  EXPECT_EQ(tape.gradient(loss, {once})[0]->to_vector<double>(), (std::vector<double>{3, 3}));
}

TEST(GradientTape, TrainingLoopCompilesItsBackwardOnce) {
  Variable w(Tensor({{0.f}, {0.f}}), "w");
  Variable b(Tensor({0.f}), "b");
  Tensor x = random_uniform({16, 2}, 1), yTrue = matmul(x, Tensor({{2.f}, {-1.f}})) + 0.5f;
  auto step = [&] {
    GradientTape tape;
    Tensor error = matmul(x, w) + b - yTrue;
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
  EXPECT_EQ(after.misses, before.misses) << "no eager kernel compiled after the first step";
  EXPECT_EQ(after.tape_compiles, before.tape_compiles) << "the backward compiled once";
  EXPECT_LT(last, first * 1e-3);
  std::vector<float> fitted = w.value().to_vector<float>();
  EXPECT_NEAR(fitted[0], 2.f, 1e-2);
  EXPECT_NEAR(fitted[1], -1.f, 1e-2);
  EXPECT_NEAR(b.value().item<float>(), 0.5f, 1e-2);
}

TEST(GradientTape, ThreadsMissingOnOneStructureCompileItOnce) {
  // Four threads' tapes record the same new computation and ask for its
  // gradient at the same moment: one compiles, the others wait and share it.
  constexpr int kThreads = 4;
  std::latch ready(kThreads);
  std::vector<float> grads(kThreads);
  KernelCacheStats before = kernel_cache_stats();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Variable w(full({7, 13}, float(t + 1)), "w");
      GradientTape tape;
      Tensor loss = reduce_sum(tanh(w.value()) * w.value());
      ready.arrive_and_wait();
      std::vector<Tensor> g = tape.gradient(loss, {w}, UnconnectedGradients::Zero);
      grads[t] = g[0].to_vector<float>()[0];
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(kernel_cache_stats().tape_compiles, before.tape_compiles + 1);
  for (int t = 0; t < kThreads; ++t) { // d/dw (w tanh w) = tanh w + w (1 - tanh^2 w)
    double w = t + 1, th = std::tanh(w);
    EXPECT_NEAR(grads[t], th + w * (1 - th * th), 1e-5) << t;
  }
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
  EXPECT_EQ(tape.gradient(y, {x})[0]->item<float>(), 1.f);
  Tensor plain = log(1.f + exp(x.value()));
  EXPECT_TRUE(std::isnan(tape.gradient(plain, {x})[0]->item<float>()));
  // At 0 both agree; the same recording structure reuses the compiled rule.
  x.assign(Tensor(0.f));
  GradientTape again;
  Tensor z = log1pexp(x.value());
  EXPECT_FLOAT_EQ(again.gradient(z, {x})[0]->item<float>(), 0.5f);
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
  std::vector<Tensor> grads = tape.gradient(loss, {x}, UnconnectedGradients::Zero);
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
  std::vector<std::optional<Tensor>> first;
  {
    GradientTape inner;
    Tensor y = x * x * x;
    first = inner.gradient(reduce_sum(y), {x}); // 3x^2
  }
  EXPECT_EQ(first[0]->to_vector<float>(), (std::vector<float>{3, 12}));
  std::vector<std::optional<Tensor>> second = outer.gradient(reduce_sum(*first[0]), {x});
  EXPECT_EQ(second[0]->to_vector<float>(), (std::vector<float>{6, 12})); // 6x
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
    g = inner.gradient(loss(w.value(), x), {w}, UnconnectedGradients::Zero);
  }
  std::vector<Tensor> hvp = outer.gradient(reduce_sum(g[0] * v), {w}, UnconnectedGradients::Zero);
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
  std::vector<std::optional<Tensor>> grads = tape.gradient(reduce_sum(t * t), {x});
  EXPECT_EQ(grads[0]->to_vector<float>(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
}

//===----------------------------------------------------------------------===//
// Tapes inside ember::function: the gradient is part of the traced function.
//===----------------------------------------------------------------------===//

namespace {
/// The first result of a loop (a vector or a tuple of tensors).
template <typename R>
Tensor firstOf(const R &results) {
  if constexpr (requires { results[0]; })
    return results[0];
  else
    return std::get<0>(results);
}

Tensor mse(const Tensor &prediction, const Tensor &target) {
  Tensor error = prediction - target;
  return reduce_mean(error * error);
}
} // namespace

TEST(GradientTape, TrainingStepInsideAFunctionIsOneCompiledFunction) {
  // The Effective-TF2 step: tape, loss, gradient, update, all in one
  // ember::function; the same numbers as the same loop run eagerly.
  Tensor x = random_uniform({32, 3}, 81, -1, 1);
  Tensor y = matmul(x, Tensor({{1.5f}, {-2.f}, {0.5f}})) + 0.25f;
  Tensor w0 = random_uniform({3, 1}, 82, -1, 1), b0 = Tensor({0.f});
  const float lr = 0.1f;
  auto makeStep = [&](Variable &w, Variable &b) {
    return [&w, &b, lr](const Tensor &x, const Tensor &y) {
      GradientTape tape;
      Tensor loss = mse(matmul(x, w) + b, y);
      std::vector<std::optional<Tensor>> g = tape.gradient(loss, {w, b});
      w.assign_sub(lr * *g[0]);
      b.assign_sub(lr * *g[1]);
      return loss;
    };
  };
  Variable we(w0, "w"), be(b0, "b"), wt(w0, "w"), bt(b0, "b");
  auto eagerStep = makeStep(we, be);
  auto step = function(makeStep(wt, bt), "train_step");
  std::vector<float> eagerLosses, tracedLosses;
  for (int i = 0; i < 5; ++i) {
    eagerLosses.push_back(eagerStep(x, y).item<float>());
    tracedLosses.push_back(step(x, y).item<float>());
  }
  // Later steps: no eager kernel compiled, no tape derivative compiled, no
  // new trace: the whole step is the compiled function.
  KernelCacheStats before = kernel_cache_stats();
  for (int i = 0; i < 20; ++i) {
    eagerLosses.push_back(eagerStep(x, y).item<float>());
    tracedLosses.push_back(step(x, y).item<float>());
  }
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_EQ(after.tape_compiles, before.tape_compiles);
  for (size_t i = 0; i < eagerLosses.size(); ++i)
    EXPECT_NEAR(tracedLosses[i], eagerLosses[i], 1e-5f * std::max(1.f, eagerLosses[i])) << i;
  for (size_t i = 1; i < tracedLosses.size(); ++i)
    EXPECT_LT(tracedLosses[i], tracedLosses[i - 1]) << i;
  EXPECT_LT(tracedLosses.back(), tracedLosses.front() * 0.1f);
  std::vector<float> we1 = we.value().to_vector<float>(), wt1 = wt.value().to_vector<float>();
  for (size_t i = 0; i < we1.size(); ++i)
    EXPECT_NEAR(wt1[i], we1[i], 1e-5f) << i;
  EXPECT_NEAR(bt.value().item<float>(), be.value().item<float>(), 1e-5f);

  ASSERT_EQ(step.concrete_functions().size(), 1u);
  EXPECT_EQ(step.concrete_functions()[0].signature,
            "train_step(arg0: float32[32, 3], arg1: float32[32, 1]) -> float32[]");
  // The derivative is in the traced function, differentiated by
  // ember-autodiff and inlined into the step.
  IRStages stages = step.ir_stages(x, y);
  EXPECT_NE(stages.traced.find("ember.differentiate"), std::string::npos) << stages.traced;
  EXPECT_NE(stages.traced.find("_vjp("), std::string::npos) << stages.traced;
  EXPECT_NE(stages.traced.find("GradientTapeTest.cpp"), std::string::npos);
  EXPECT_EQ(stages.optimized.find("func.call"), std::string::npos) << stages.optimized;
  EXPECT_NE(stages.optimized.find("ember.matmul"), std::string::npos) << stages.optimized;
}

TEST(GradientTape, GradientInsideAFunctionMatchesFiniteDifferences) {
  Tensor x = random_uniform({4, 3}, 91, -1, 1, DType::Float64);
  Tensor w0 = random_uniform({3, 2}, 92, -1, 1, DType::Float64);
  Tensor v0 = random_uniform({2}, 93, -1, 1, DType::Float64);
  auto loss = [](const Tensor &w, const Tensor &v, const Tensor &x) {
    Tensor h = tanh(matmul(x, w)) * exp(v);
    return reduce_sum(h * h * 0.5) + reduce_sum(sin(w));
  };
  auto gradients = function(
      [&](const Tensor &w, const Tensor &v, const Tensor &x) {
        GradientTape tape;
        tape.watch(w);
        tape.watch(v);
        Tensor value = loss(w, v, x);
        std::vector<std::optional<Tensor>> g = tape.gradient(value, {w, v});
        return std::make_tuple(value, *g[0], *g[1]);
      },
      "loss_gradients");
  auto [value, gw, gv] = gradients(w0, v0, x);
  EXPECT_NEAR(value.item<double>(), loss(w0, v0, x).item<double>(), 1e-12);
  const double h = 1e-6;
  auto check = [&](const Tensor &at, const Tensor &analytic, auto lossOf) {
    std::vector<double> p = at.to_vector<double>(), g = analytic.to_vector<double>();
    ASSERT_EQ(g.size(), p.size());
    for (size_t k = 0; k < p.size(); ++k) {
      auto moved = [&](double delta) {
        std::vector<double> q = p;
        q[k] += delta;
        return lossOf(Tensor::from_vector(q, at.shape(), DType::Float64)).template item<double>();
      };
      double numeric = (moved(h) - moved(-h)) / (2 * h);
      EXPECT_NEAR(g[k], numeric, 1e-6 * std::max(1.0, std::fabs(numeric))) << k;
    }
  };
  check(w0, gw, [&](const Tensor &w) { return loss(w, v0, x); });
  check(v0, gv, [&](const Tensor &v) { return loss(w0, v, x); });
  EXPECT_EQ(gradients.concrete_functions().size(), 1u);
}

TEST(GradientTape, TapesInsideFunctionsKeepTheirSemantics) {
  // Traced as run eagerly: persistent tapes, watched tensors and
  // intermediate values as sources (cut out of the recording, as eagerly),
  // variables read on the tape, values computed before the tape.
  Variable w(Tensor({1.f, 2.f}), "w");
  auto body = [&](const Tensor &x) {
    Tensor before = x * 3.f; // computed before the tape: a constant to it
    GradientTape tape(/*persistent=*/true);
    tape.watch(x);
    Tensor y = x * x;                      // dy/dx = 2x
    Tensor z = reduce_sum(y * y + before); // dz/dx = 4x^3, dz/dy = 2y
    Tensor q = reduce_sum(before * w);     // only w (read here) reaches it
    auto zero = UnconnectedGradients::Zero; // zeros where nothing reaches a source
    std::vector<Tensor> a = tape.gradient(reduce_sum(y), {x}, zero);
    std::vector<Tensor> b = tape.gradient(z, {x}, zero);
    std::vector<Tensor> c = tape.gradient(z, {y, before}, zero);
    std::vector<Tensor> d = tape.gradient(z, {x, y}, zero); // y cut out: nothing reaches x
    std::vector<Tensor> e = tape.gradient(q, {w}, zero);
    std::vector<Tensor> f = tape.gradient(q, {x}, zero);
    // Sources as given, a non-float one with no gradient.
    std::vector<std::optional<Tensor>> g = tape.gradient(z, {x, Tensor(1), x});
    EXPECT_FALSE(g[1]);
    // By default (as TensorFlow) no gradient where the target does not depend
    // on a source, traced as eagerly.
    EXPECT_FALSE(tape.gradient(z, {x, y})[0]);
    EXPECT_FALSE(tape.gradient(q, {x})[0]);
    EXPECT_TRUE(tape.gradient(q, {w})[0]);
    EXPECT_TRUE(tape.gradient(z, {y, before})[1]);
    return std::vector<Tensor>{a[0], b[0], c[0], c[1], d[0], d[1], e[0], f[0], *g[0], *g[2]};
  };
  auto traced = function(body, "persistent");
  std::vector<Tensor> r = traced(Tensor({1.f, -2.f}));
  std::vector<std::vector<float>> expected = {{2, -4}, {4, -32}, {2, 8}, {1, 1}, {0, 0},
                                              {2, 8},  {3, -6},  {0, 0}, {4, -32}, {4, -32}};
  ASSERT_EQ(r.size(), expected.size());
  std::vector<Tensor> eager = body(Tensor({1.f, -2.f}));
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].to_vector<float>(), expected[i]) << i;
    EXPECT_EQ(eager[i].to_vector<float>(), expected[i]) << i;
  }

  // A non-persistent tape answers once, traced as eagerly.
  auto once = function(
      [](const Tensor &x) {
        GradientTape tape;
        Tensor y = reduce_sum(x * x);
        Tensor g = *tape.gradient(y, {x})[0];
        EXPECT_THROW(tape.gradient(y, {x}), OpError);
        return g;
      },
      "once");
  EXPECT_EQ(once(Tensor({3.f})).to_vector<float>(), (std::vector<float>{6}));
  // Ops after stop_recording() are not on the tape.
  auto stopped = [](const Tensor &x) {
    GradientTape tape;
    Tensor y = x * x;
    Tensor s = reduce_sum(y);
    tape.stop_recording();
    Tensor z = reduce_sum(y * x); // not recorded: a constant to the tape
    std::vector<std::optional<Tensor>> g = tape.gradient(s, {x});
    return std::make_pair(*g[0], tape.gradient(z, {x}, UnconnectedGradients::Zero)[0]);
  };
  EXPECT_THROW(stopped(Tensor({3.f})), OpError); // non-persistent, eagerly too
  auto stoppedPersistent = function(
      [](const Tensor &x) {
        GradientTape tape(/*persistent=*/true);
        Tensor y = x * x;
        Tensor s = reduce_sum(y);
        tape.stop_recording();
        Tensor z = reduce_sum(y * x);
        return std::make_pair(*tape.gradient(s, {x})[0],
                              tape.gradient(z, {x}, UnconnectedGradients::Zero)[0]);
      },
      "stopped");
  auto [gs, gz] = stoppedPersistent(Tensor({3.f}));
  EXPECT_EQ(gs.to_vector<float>(), (std::vector<float>{6}));
  EXPECT_EQ(gz.to_vector<float>(), (std::vector<float>{0}));
}

TEST(GradientTape, TapesInsideFunctionsThroughControlFlow) {
  auto f = function(
      [](const Tensor &x) {
        GradientTape tape;
        // A branch and a loop on the tape: y = x^3 or -x, p = x^3.
        Tensor y = cond(reduce_sum(x) > 0.f, [&] { return x * x * x; }, [&] { return -x; });
        Tensor p = firstOf(fori_loop(
            0, 2, [&](const Tensor &, const std::vector<Tensor> &v) {
              return std::vector<Tensor>{v[0] * x};
            },
            {x}));
        return *tape.gradient(reduce_sum(y) + reduce_sum(p), {x})[0];
      },
      "control_flow");
  EXPECT_EQ(f(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{6, 24}));  // 6x^2
  EXPECT_EQ(f(Tensor({-1.f, -2.f})).to_vector<float>(), (std::vector<float>{2, 11})); // 3x^2 - 1
  // A tape inside a branch, its gradient taken there.
  auto g = function(
      [](const Tensor &x) {
        return cond(reduce_sum(x) > 0.f, [&] {
          GradientTape tape;
          tape.watch(x);
          return *tape.gradient(reduce_sum(x * x), {x})[0];
        }, [&] { return x; });
      },
      "tape_in_branch");
  EXPECT_EQ(g(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(g(Tensor({-1.f, -2.f})).to_vector<float>(), (std::vector<float>{-1, -2}));
  // Custom gradients (stop_gradient is one) on a traced tape.
  auto h = function(
      [](const Tensor &x) {
        GradientTape tape;
        tape.watch(x);
        return *tape.gradient(reduce_sum(x * stop_gradient(x)), {x})[0];
      },
      "stop_gradient");
  EXPECT_EQ(h(Tensor({3.f, -2.f})).to_vector<float>(), (std::vector<float>{3, -2})); // not 2x
}

TEST(GradientTape, NestedTapesInsideAFunctionGiveGradientsOfGradients) {
  // As eagerly: the outer tape records the inner tape's gradient.
  Variable x(Tensor({1.f, 2.f}), "x");
  auto f = function(
      [&]() {
        GradientTape outer;
        Tensor first;
        {
          GradientTape inner;
          Tensor y = cond(reduce_sum(x) > 0.f, [&] { return x * x * x; }, [&] { return -x; });
          first = *inner.gradient(reduce_sum(y), {x})[0]; // 3x^2
        }
        Tensor second = *outer.gradient(reduce_sum(first), {x})[0]; // 6x
        return std::make_pair(first, second);
      },
      "nested");
  auto [first, second] = f();
  EXPECT_EQ(first.to_vector<float>(), (std::vector<float>{3, 12}));
  EXPECT_EQ(second.to_vector<float>(), (std::vector<float>{6, 12}));
}

TEST(GradientTape, TapeFromOutsideAFunctionNamesTheUsersLine) {
  GradientTape tape;
  auto f = function(
      [&](const Tensor &x) {
        Tensor y = x * x;
        return *tape.gradient(reduce_sum(y), {x})[0]; // line of the error
      },
      "outside");
  int line = __LINE__ - 3;
  try {
    f(Tensor({1.f}));
    FAIL() << "expected an error";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("GradientTapeTest.cpp:" + std::to_string(line) + ":"), std::string::npos)
        << message;
    EXPECT_NE(message.find("created outside the ember::function being traced ('ember_fn_outside')"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("create the tape inside the function"), std::string::npos) << message;
    EXPECT_EQ(message.find("cannot read the values of a symbolic tensor"), std::string::npos)
        << message;
  }
}

// A loop that assigns a variable is traced twice; the first trace's values
// are not read by a later tape (valgrind: no invalid read).
TEST(GradientTape, TapeAfterALoopThatAssignsAVariable) {
  Variable count(Tensor(0.f), "count");
  auto f = function(
      [&](const Tensor &x) {
        (void)fori_loop(0, 3,
                        [&](const Tensor &, const std::vector<Tensor> &v) {
                          count.assign(count.value() + 1.f);
                          return v;
                        },
                        {x});
        GradientTape tape;
        tape.watch(x);
        return *tape.gradient(reduce_sum(x * x * x), {x})[0];
      },
      "loop_then_tape");
  EXPECT_EQ(f(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{3, 12}));
}

// Recordings that differ only in sizes share one derivative, compiled with
// `?` dims: a training loop whose batches change size (a partial last
// batch) compiles its backward once. The gradients agree with the ones a
// traced function takes per shape, and with finite differences.
TEST(GradientTape, RecordingsThatDifferOnlyInSizesShareOneDerivative) {
  Tensor w = random_uniform({6, 3}, 3, -1, 1), b = random_uniform({3}, 4, -1, 1);
  auto loss = [](const Tensor &weights, const Tensor &bias, const Tensor &x) {
    Tensor h = tanh(matmul(x, weights) + bias);
    return reduce_mean(h * h) + reduce_sum(exp(x * 0.1f)) * 0.01f;
  };
  auto perShape = value_and_grad(loss, Argnums{0, 1, 2}, "tape_reference");
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t batch : {5, 9, 2, 5}) {
    Tensor x = random_uniform({batch, 6}, static_cast<uint64_t>(batch), -1, 1);
    GradientTape tape;
    tape.watch(w);
    tape.watch(b);
    tape.watch(x);
    Tensor value = loss(w, b, x);
    std::vector<Tensor> grads = tape.gradient(value, {w, b, x}, UnconnectedGradients::Zero);
    auto [expectedValue, expected] = perShape(w, b, x);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-5) << "batch " << batch;
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_EQ(grads[i].shape(), expected[i].shape()) << "batch " << batch;
      std::vector<float> got = grads[i].to_vector<float>(), want = expected[i].to_vector<float>();
      for (size_t e = 0; e < got.size(); ++e)
        ASSERT_NEAR(got[e], want[e], 1e-5) << "batch " << batch << " gradient " << i;
    }
    // Finite differences on the last element of x.
    std::vector<float> plus = x.to_vector<float>(), minus = plus;
    const float h = 1e-2f;
    plus.back() += h;
    minus.back() -= h;
    double numeric = (double(loss(w, b, Tensor::from_vector(plus, x.shape())).item<float>()) -
                      double(loss(w, b, Tensor::from_vector(minus, x.shape())).item<float>())) /
                     (2 * h);
    EXPECT_NEAR(grads[2].to_vector<float>().back(), numeric, 2e-3) << "batch " << batch;
  }
  EXPECT_EQ(kernel_cache_stats().tape_compiles, before.tape_compiles + 1)
      << "one derivative for every batch size";
}

// A slice of part of the batch on a tape: its bounds are the recording's
// (rows 1 and 2 of every batch), so every size shares one derivative, whose
// `?` dims must hold them (checked at each call).
TEST(GradientTape, SlicesOfPartOfTheBatchOnATapeShareOneDerivative) {
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t batch : {4, 6, 9}) {
    Tensor x = random_uniform({batch, 3}, static_cast<uint64_t>(batch));
    GradientTape tape;
    tape.watch(x);
    Tensor loss = reduce_sum(slice(x, {1, 0}, {3, 3}) * 2.f);
    std::vector<float> g =
        tape.gradient(loss, {x}, UnconnectedGradients::Zero)[0].to_vector<float>();
    for (int64_t r = 0; r < batch; ++r)
      for (int64_t c = 0; c < 3; ++c)
        EXPECT_EQ(g[r * 3 + c], r == 1 || r == 2 ? 2.f : 0.f) << "batch " << batch;
  }
  EXPECT_EQ(kernel_cache_stats().tape_compiles, before.tape_compiles + 1);
}

/// The tape's gradients of f(a, b) with respect to both agree with
/// `traced`'s (value_and_grad of f); `n` names the case.
template <typename F, typename Traced>
static void expectTapeAgrees(F &f, Traced &traced, const Tensor &a, const Tensor &b, int64_t n) {
  GradientTape tape;
  tape.watch(a);
  tape.watch(b);
  Tensor loss = f(a, b);
  std::vector<Tensor> got = tape.gradient(loss, {a, b}, UnconnectedGradients::Zero);
  auto [value, expected] = traced(a, b);
  const std::vector<Tensor> &want = expected;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << "size " << n;
    std::vector<float> x = got[i].to_vector<float>(), y = want[i].to_vector<float>();
    for (size_t e = 0; e < x.size(); ++e)
      ASSERT_NEAR(x[e], y[e], 1e-4 * (1 + std::abs(y[e]))) << "size " << n << " gradient " << i;
  }
}

// Broadcasts on a tape with a generic derivative: a user's broadcast_to
// (its sizes may be the user's own; here it feeds a matmul) keeps the
// derivative per size, and an elementwise op's operand broadcast of an op's
// result (a forward value the derivative takes) is applied where it is used.
// Both agree with value_and_grad traced per shape, over several sizes.
TEST(GradientTape, BroadcastsOnATapeAgreeWithTracedGradients) {
  auto userBroadcast = [](const Tensor &x, const Tensor &w) {
    int64_t rows = w.shape()[0] + 2;
    return reduce_sum(matmul(broadcast_to(x, {rows, x.shape()[1]}), w));
  };
  auto operandBroadcast = [](const Tensor &x, const Tensor &z) {
    return reduce_sum(tanh(x) * z * z);
  };
  auto tracedUser = value_and_grad(userBroadcast, Argnums{0, 1}, "user_broadcast");
  auto tracedOperand = value_and_grad(operandBroadcast, Argnums{0, 1}, "operand_broadcast");
  for (int64_t n : {3, 4, 6}) {
    Tensor x = random_uniform({1, n}, static_cast<uint64_t>(n), -1, 1);
    Tensor w = random_uniform({n, n}, static_cast<uint64_t>(n + 1), -1, 1);
    expectTapeAgrees(userBroadcast, tracedUser, x, w, n);
    Tensor column = random_uniform({n, 1}, static_cast<uint64_t>(n + 2), -1, 1);
    Tensor z = random_uniform({n, 4}, static_cast<uint64_t>(n + 3), -1, 1);
    expectTapeAgrees(operandBroadcast, tracedOperand, column, z, n);
  }
}

// Concatenations on a tape, along the features and along the batch, over
// several batch sizes, agree with value_and_grad traced per shape. A
// derivative with every dim above 1 `?` concatenates along a `?` dim, whose
// gradient is not taken: along the features, the recordings share one with
// the batch alone `?` from the second size on; along the batch, each size
// gets its own.
TEST(GradientTape, ConcatenationsOnATapeAgreeWithTracedGradients) {
  auto features = [](const Tensor &x, const Tensor &y) {
    return reduce_sum(tanh(concat({x, x * y}, 1)) * concat({y, x}, 1));
  };
  auto rows = [](const Tensor &x, const Tensor &y) {
    return reduce_sum(square(concat({x, y * 2.f}, 0)));
  };
  auto tracedFeatures = value_and_grad(features, Argnums{0, 1}, "concat_features");
  auto tracedRows = value_and_grad(rows, Argnums{0, 1}, "concat_rows");
  uint64_t compiles = 0;
  for (int64_t n : {3, 4, 6, 9}) {
    Tensor x = random_uniform({n, 2}, static_cast<uint64_t>(n), -1, 1);
    Tensor y = random_uniform({n, 2}, static_cast<uint64_t>(n + 1), -1, 1);
    expectTapeAgrees(features, tracedFeatures, x, y, n);
    if (n == 4)
      compiles = kernel_cache_stats().tape_compiles;
  }
  EXPECT_EQ(kernel_cache_stats().tape_compiles, compiles) << "sizes 6 and 9 compiled nothing";
  for (int64_t n : {3, 4, 6}) {
    Tensor x = random_uniform({n, 2}, static_cast<uint64_t>(n + 2), -1, 1);
    Tensor y = random_uniform({n, 2}, static_cast<uint64_t>(n + 3), -1, 1);
    expectTapeAgrees(rows, tracedRows, x, y, n);
  }
}

// A convolutional network on a tape (convolution, max pooling, Flatten's
// reshape, a dense layer, a cross-entropy) over changing batch sizes: every dim above 1 `?`
// is more than a convolution's windows take, so the first size gets its own
// derivative and the second one with the batch `?`, which every later size
// shares. The gradients agree with value_and_grad traced per shape.
TEST(GradientTape, AConvolutionalNetworkOnATapeSharesOneDerivativeAcrossBatches) {
  Tensor filters = random_uniform({3, 3, 2, 4}, 21, -0.5, 0.5);
  Tensor dense = random_uniform({4 * 4 * 4, 3}, 22, -0.5, 0.5);
  // The labels' one-hot rows broadcast both ways ([n, 1] == [3]).
  auto loss = [](const Tensor &f, const Tensor &w, const Tensor &x) {
    Tensor h = relu(nn::conv2d(x, f, {1, 1}, "SAME"));
    h = nn::max_pool2d(h, {2, 2}, {2, 2});
    h = reshape(h, {-1, 4 * 4 * 4});
    Tensor labels = cast(arange(0, x.shape()[0]) % 3, DType::Int64);
    return reduce_mean(nn::sparse_softmax_cross_entropy_with_logits(labels, matmul(h, w)));
  };
  auto perShape = value_and_grad(loss, Argnums{0, 1, 2}, "tape_cnn_reference");
  KernelCacheStats before = kernel_cache_stats();
  uint64_t afterSecond = 0;
  int64_t seen = 0;
  for (int64_t batch : {4, 6, 3, 9, 6, 1}) {
    Tensor x = random_uniform({batch, 8, 8, 2}, static_cast<uint64_t>(30 + batch), -1, 1);
    GradientTape tape;
    tape.watch(filters);
    tape.watch(dense);
    tape.watch(x);
    Tensor value = loss(filters, dense, x);
    std::vector<Tensor> got = tape.gradient(value, {filters, dense, x}, UnconnectedGradients::Zero);
    auto [expectedValue, expected] = perShape(filters, dense, x);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-5) << "batch " << batch;
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_EQ(got[i].shape(), expected[i].shape()) << "batch " << batch;
      std::vector<float> g = got[i].to_vector<float>(), e = expected[i].to_vector<float>();
      for (size_t k = 0; k < g.size(); ++k)
        ASSERT_NEAR(g[k], e[k], 1e-5 * (1 + std::abs(e[k])))
            << "batch " << batch << " gradient " << i;
    }
    if (++seen == 2)
      afterSecond = kernel_cache_stats().tape_compiles;
  }
  EXPECT_EQ(afterSecond, before.tape_compiles + 2) << "one per size for the first two";
  // Batch 1 is a size of its own (sizes 0 and 1 decide broadcasting).
  EXPECT_EQ(kernel_cache_stats().tape_compiles, afterSecond + 1)
      << "sizes 3 and 9 and 6 again compiled nothing";
}
