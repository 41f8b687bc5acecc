// Reverse-mode gradients (ember-autodiff) against central finite differences,
// in float64, for every differentiable op and for composed functions.
#include "ember/ember.h"

#include "ErrorTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace ember;
using ember::test::errorOf;
using ember::test::expectContains;

namespace {
using Fn = std::function<Tensor(const std::vector<Tensor> &)>;

/// Checks value_and_grad of sum(f(inputs) * w) for a fixed random w against
/// central differences of the eager computation.
void checkGradients(const std::string &name, const Fn &f, std::vector<Tensor> inputs,
                    double tolerance = 1e-6) {
  Tensor probe = f(inputs);
  Tensor weights = random_uniform(probe.shape(), 99, 0.5, 1.5, DType::Float64);
  auto loss = [&](const std::vector<Tensor> &xs) { return reduce_sum(f(xs) * weights); };
  auto eagerLoss = [&](const std::vector<Tensor> &xs) { return loss(xs).item<double>(); };

  std::vector<Tensor> gradients;
  double value = 0;
  switch (inputs.size()) {
  case 1: {
    auto vg = value_and_grad([&](const Tensor &a) { return loss({a}); }, name);
    ValueAndGrad r = vg(inputs[0]);
    value = r.value.item<double>();
    gradients = r.gradients;
    break;
  }
  case 2: {
    auto vg = value_and_grad([&](const Tensor &a, const Tensor &b) { return loss({a, b}); }, name);
    ValueAndGrad r = vg(inputs[0], inputs[1]);
    value = r.value.item<double>();
    gradients = r.gradients;
    break;
  }
  default:
    FAIL() << "checkGradients takes 1 or 2 inputs";
  }
  EXPECT_NEAR(value, eagerLoss(inputs), 1e-9 * std::max(1.0, std::fabs(value))) << name;
  ASSERT_EQ(gradients.size(), inputs.size()) << name;
  const double h = 1e-6;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<double> x = inputs[i].to_vector<double>();
    std::vector<double> analytic = gradients[i].to_vector<double>();
    ASSERT_EQ(analytic.size(), x.size()) << name << " input " << i;
    for (size_t k = 0; k < x.size(); ++k) {
      auto at = [&](double delta) {
        std::vector<double> moved = x;
        moved[k] += delta;
        std::vector<Tensor> xs = inputs;
        xs[i] = Tensor::from_vector(moved, inputs[i].shape(), DType::Float64);
        return eagerLoss(xs);
      };
      double numeric = (at(h) - at(-h)) / (2 * h);
      EXPECT_NEAR(analytic[k], numeric, tolerance * std::max(1.0, std::fabs(numeric)))
          << name << ": input " << i << " element " << k;
    }
  }
}

Tensor uniform(const Shape &shape, uint64_t seed, double low = -1, double high = 1) {
  return random_uniform(shape, seed, low, high, DType::Float64);
}

/// grad(scalar) at `x` against central differences (step `h`) of `scalar`
/// itself, a scalar of a compiled first derivative: second derivatives.
void checkSecondDerivatives(const std::string &name,
                            const std::function<Tensor(const Tensor &)> &scalar, const Tensor &x,
                            double h, double tolerance) {
  auto d2f = grad([&](const Tensor &v) { return scalar(v); }, name);
  std::vector<double> second = d2f(x).to_vector<double>(), at = x.to_vector<double>();
  for (size_t k = 0; k < at.size(); ++k) {
    auto scalarAt = [&](double delta) {
      std::vector<double> moved = at;
      moved[k] += delta;
      return scalar(Tensor::from_vector(moved, x.shape(), DType::Float64)).item<double>();
    };
    double numeric = (scalarAt(h) - scalarAt(-h)) / (2 * h);
    EXPECT_NEAR(second[k], numeric, tolerance * std::max(1.0, std::fabs(numeric)))
        << name << ": element " << k;
  }
}
} // namespace

TEST(Autodiff, BinaryOpsWithBroadcasting) {
  Tensor a = uniform({2, 3}, 1), b = uniform({3}, 2), p = uniform({2, 3}, 3, 0.5, 2);
  checkGradients("add", [](auto &x) { return x[0] + x[1]; }, {a, b});
  checkGradients("sub", [](auto &x) { return x[0] - x[1]; }, {a, b});
  checkGradients("mul", [](auto &x) { return x[0] * x[1]; }, {a, b});
  checkGradients("div", [](auto &x) { return x[0] / x[1]; }, {a, uniform({3}, 4, 0.5, 2)});
  checkGradients("pow", [](auto &x) { return pow(x[0], x[1]); }, {p, uniform({2, 3}, 5)});
  checkGradients("maximum", [](auto &x) { return maximum(x[0], x[1]); }, {a, uniform({2, 3}, 6)});
  checkGradients("minimum", [](auto &x) { return minimum(x[0], x[1]); }, {a, uniform({1, 3}, 7)});
  checkGradients("mod", [](auto &x) { return mod(x[0], x[1]); }, {uniform({2, 3}, 8, 0.1, 5), uniform({2, 3}, 9, 0.7, 1.3)});
  checkGradients("where", [](auto &x) { return where(x[0] > 0, x[0] * 2, x[1]); }, {a, uniform({2, 3}, 10)});
}

TEST(Autodiff, SoftmaxAndCrossEntropy) {
  Tensor logits = uniform({3, 4}, 31, -3, 3);
  checkGradients("softmax", [](auto &x) { return nn::softmax(x[0]); }, {logits});
  checkGradients("softmax axis 0", [](auto &x) { return nn::softmax(x[0], 0); }, {logits});
  checkGradients("log_softmax", [](auto &x) { return nn::log_softmax(x[0]); }, {logits});
  Tensor labels = Tensor({3, 0, 2});
  checkGradients("sparse_softmax_cross_entropy_with_logits", [&](auto &x) {
    return nn::sparse_softmax_cross_entropy_with_logits(labels, x[0]);
  }, {logits});
}

TEST(Autodiff, Conv2D) {
  Tensor x = uniform({2, 5, 6, 3}, 41), w = uniform({3, 2, 3, 4}, 42);
  checkGradients("conv2d valid", [](auto &v) { return nn::conv2d(v[0], v[1]); }, {x, w});
  checkGradients("conv2d same, strides 2", [](auto &v) {
    return nn::conv2d(v[0], v[1], {2, 2}, "SAME");
  }, {x, w});
  checkGradients("conv2d dilated, strides (2, 1)", [](auto &v) {
    return nn::conv2d(v[0], v[1], {2, 1}, "SAME", {2, 1});
  }, {x, w});
  checkGradients("conv2d explicit padding", [](auto &v) {
    return nn::conv2d(v[0], v[1], {1, 2}, std::array<int64_t, 4>{2, 0, 1, 1});
  }, {x, w});
  // Padding wider than the filter reaches (rows of the result that see only
  // padding): the input's gradient is cut from a wider one. It had no rule.
  Tensor one = uniform({1, 1, 3, 2}, 44);
  checkGradients("conv2d 1x1 filter, padding 2", [](auto &v) {
    return nn::conv2d(v[0], v[1], {2, 1}, std::array<int64_t, 4>{2, 3, 0, 2});
  }, {x, one});
  checkGradients("conv2d padding past a dilated filter", [](auto &v) {
    return nn::conv2d(v[0], v[1], {1, 3}, std::array<int64_t, 4>{5, 1, 4, 4}, {1, 2});
  }, {x, w});
}

TEST(Autodiff, Pooling) {
  // Distinct values, so that each window's maximum is unique and the max
  // pooling's gradient is the derivative.
  Tensor x = uniform({2, 5, 6, 3}, 43);
  checkGradients("max_pool2d valid", [](auto &v) { return nn::max_pool2d(v[0], {2, 2}, {2, 2}); }, {x});
  checkGradients("max_pool2d same, overlapping", [](auto &v) {
    return nn::max_pool2d(v[0], {3, 3}, {2, 1}, "SAME");
  }, {x});
  checkGradients("avg_pool2d valid", [](auto &v) { return nn::avg_pool2d(v[0], {2, 3}, {2, 3}); }, {x});
  checkGradients("avg_pool2d same, overlapping", [](auto &v) {
    return nn::avg_pool2d(v[0], {3, 3}, {1, 2}, "SAME");
  }, {x});
}

TEST(Autodiff, UnaryOps) {
  Tensor x = uniform({5}, 11), positive = uniform({5}, 12, 0.2, 3);
  checkGradients("neg", [](auto &v) { return -v[0]; }, {x});
  checkGradients("abs", [](auto &v) { return abs(v[0]); }, {uniform({5}, 13, 0.1, 1) * Tensor(-1.0, DType::Float64)});
  checkGradients("exp", [](auto &v) { return exp(v[0]); }, {x});
  checkGradients("log", [](auto &v) { return log(v[0]); }, {positive});
  checkGradients("log1p", [](auto &v) { return log1p(v[0]); }, {positive});
  checkGradients("erf", [](auto &v) { return erf(v[0]); }, {x});
  checkGradients("atan", [](auto &v) { return atan(v[0]); }, {x});
  Tensor inside = uniform({5}, 14, -0.9, 0.9); // asin and acos: within (-1, 1)
  checkGradients("asin", [](auto &v) { return asin(v[0]); }, {inside});
  checkGradients("acos", [](auto &v) { return acos(v[0]); }, {inside});
  checkGradients("sqrt", [](auto &v) { return sqrt(v[0]); }, {positive});
  checkGradients("rsqrt", [](auto &v) { return rsqrt(v[0]); }, {positive});
  checkGradients("tanh", [](auto &v) { return tanh(v[0]); }, {x});
  checkGradients("sigmoid", [](auto &v) { return sigmoid(v[0]); }, {x});
  checkGradients("relu", [](auto &v) { return relu(v[0]); }, {Tensor({-0.5, 0.3, 1.2, -2.0}, DType::Float64)});
  checkGradients("square", [](auto &v) { return square(v[0]); }, {x});
  checkGradients("sin", [](auto &v) { return sin(v[0]); }, {x});
  checkGradients("cos", [](auto &v) { return cos(v[0]); }, {x});
  checkGradients("sign", [](auto &v) { return sign(v[0]) * v[0]; }, {positive});
}

TEST(Autodiff, ShapeOps) {
  Tensor x = uniform({2, 3, 4}, 14);
  checkGradients("broadcast_to", [](auto &v) { return broadcast_to(v[0], {2, 2, 3}); }, {uniform({2, 1, 3}, 15)});
  checkGradients("reshape", [](auto &v) { return reshape(v[0], {4, 6}); }, {x});
  checkGradients("transpose", [](auto &v) { return transpose(v[0], {2, 0, 1}); }, {x});
  checkGradients("slice", [](auto &v) { return slice(v[0], {0, 1, 0}, {2, 3, 4}, {1, 1, 2}); }, {x});
  checkGradients("concat", [](auto &v) { return concat({v[0], v[1]}, 1); }, {x, uniform({2, 1, 4}, 16)});
  checkGradients("gather", [](auto &v) { return gather(v[0], Tensor({2, -1, 0, 2}), 1); }, {x});
}

// Repeated indices: scatter_add sums every update into its element; in
// scatter_update only the last update to an element has a gradient, and the
// elements written over have none.
TEST(Autodiff, Scatter) {
  Tensor x = uniform({2, 3, 4}, 17), updates = uniform({2, 2, 2, 4}, 18);
  Tensor at = Tensor({{2, 0}, {-1, 1}}, DType::Int64);
  checkGradients("scatter_add", [&](auto &v) { return scatter_add(v[0] * v[0], at, v[1], 1); },
                 {x, updates});
  checkGradients("scatter_update",
                 [&](auto &v) { return scatter_update(v[0] * v[0], at, v[1] * v[1], 1); },
                 {x, updates});
  // One index (rank 0): each update has an element of its own, the last
  // axis's or a vector's.
  Tensor one = Tensor(int64_t{1}, DType::Int64);
  checkGradients("scatter_update, one index",
                 [&](auto &v) { return scatter_update(v[0] * v[0], one, v[1] * v[1], 2); },
                 {x, uniform({2, 3}, 19)});
  checkGradients("scatter_update of a vector",
                 [&](auto &v) { return scatter_update(v[0] * v[0], one, v[1] * v[1]); },
                 {uniform({4}, 20), reshape(uniform({1}, 21), {})});
  auto vg = value_and_grad(
      [](const Tensor &a) { return reduce_sum(scatter_mul(a, Tensor({0}), Tensor({2.0}))); },
      "scatter_mul");
  expectContains(errorOf([&] {
                   vg(Tensor({1.0, 2.0}));
                 }),
                 "'ember.scatter' op has no gradient for mode mul");
}

TEST(Autodiff, CastBetweenFloatTypesPassesTheGradientBack) {
  // Finite differences through float32 rounding are meaningless; the rule is
  // exact: the cotangent converted back to the operand's type.
  Tensor w({0.5, -2.0, 3.0}, DType::Float64);
  auto vg = value_and_grad([&](const Tensor &x) { return reduce_sum(cast(x, DType::Float64) * w); });
  ValueAndGrad r = vg(Tensor({1.f, 2.f, 3.f}));
  ASSERT_EQ(r.gradients.size(), 1u);
  EXPECT_EQ(r.gradients[0].dtype(), DType::Float32);
  EXPECT_EQ(r.gradients[0].to_vector<float>(), (std::vector<float>{0.5f, -2.f, 3.f}));
}

TEST(Autodiff, Reductions) {
  Tensor x = uniform({3, 4}, 17);
  checkGradients("reduce_sum", [](auto &v) { return reduce_sum(v[0], {0}); }, {x});
  checkGradients("reduce_mean", [](auto &v) { return reduce_mean(v[0], {1}, true); }, {x});
  checkGradients("reduce_max", [](auto &v) { return reduce_max(v[0], {1}); }, {x});
  checkGradients("reduce_min", [](auto &v) { return reduce_min(v[0]); }, {x});
  checkGradients("reduce_prod", [](auto &v) { return reduce_prod(v[0], {0}); }, {uniform({3, 4}, 18, 0.5, 1.5)});
}

TEST(Autodiff, MatmulAndComposedFunctions) {
  checkGradients("matmul", [](auto &v) { return matmul(v[0], v[1]); }, {uniform({3, 4}, 19), uniform({4, 2}, 20)});
  checkGradients("batched matmul", [](auto &v) { return matmul(v[0], v[1]); }, {uniform({2, 3, 4}, 21), uniform({2, 4, 2}, 22)});
  // A small MLP with a softmax cross-entropy.
  Tensor labels({1.0, 0.0, 0.0, 0.0, 0.0, 1.0}, DType::Float64);
  auto mlp = [labels](auto &v) {
    Tensor h = tanh(matmul(v[0], v[1]));
    Tensor logits = reshape(h, {2, 3});
    Tensor shifted = logits - reduce_max(logits, {1}, true);
    Tensor logProbs = shifted - log(reduce_sum(exp(shifted), {1}, true));
    return -reduce_mean(reduce_sum(reshape(labels, {2, 3}) * logProbs, {1}));
  };
  checkGradients("mlp", mlp, {uniform({2, 4}, 23), uniform({4, 3}, 24)});
}

TEST(Autodiff, LargeLayersMatchHandWrittenBackprop) {
  // Sizes where matmuls are register-blocked and the backward's transposes
  // fold into them (x^T @ dz read in place, dz @ W^T packed); checked against
  // backprop written out with eager ops (transposes materialized).
  Tensor x = uniform({16, 64}, 41), w1 = uniform({64, 48}, 42), w2 = uniform({48, 48}, 43);
  auto vg = value_and_grad(
      [](const Tensor &w1, const Tensor &w2, const Tensor &x) {
        return reduce_sum(tanh(matmul(tanh(matmul(x, w1)), w2)));
      },
      Argnums{0, 1});
  ValueAndGrad r = vg(w1, w2, x);
  Tensor h = tanh(matmul(x, w1)), y = tanh(matmul(h, w2));
  Tensor dz2 = 1.0 - y * y;                             // d sum / d (h @ w2)
  Tensor dw2 = matmul(transpose(h), dz2);
  Tensor dz1 = matmul(dz2, transpose(w2)) * (1.0 - h * h);
  Tensor dw1 = matmul(transpose(x), dz1);
  EXPECT_NEAR(r.value.item<double>(), reduce_sum(y).item<double>(), 1e-9);
  for (auto [analytic, expected] : {std::pair{r.gradients[0], dw1}, {r.gradients[1], dw2}}) {
    std::vector<double> a = analytic.to_vector<double>(), e = expected.to_vector<double>();
    ASSERT_EQ(a.size(), e.size());
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_NEAR(a[i], e[i], 1e-9) << i;
  }
}

TEST(Autodiff, StoryB1GradientOfSquare) {
  auto vg = value_and_grad([](const Tensor &w) { return reduce_sum(w * w); });
  ValueAndGrad r = vg(Tensor({{1.f}}));
  EXPECT_EQ(r.value.item<float>(), 1.f);
  ASSERT_EQ(r.gradients.size(), 1u);
  EXPECT_EQ(r.gradients[0].to_vector<float>(), (std::vector<float>{2.f}));
  EXPECT_EQ(r.gradients[0].shape(), (Shape{1, 1}));
}

TEST(Autodiff, IntegerArgumentsHaveNoGradientAndUnusedOnesZero) {
  auto vg = value_and_grad([](const Tensor &x, const Tensor &n, const Tensor &unused) {
    return reduce_sum(x * cast(n, DType::Float32));
  });
  ValueAndGrad r = vg(Tensor({1.f, 2.f}), Tensor({3, 4}), Tensor({5.f}));
  ASSERT_EQ(r.gradients.size(), 2u); // x and unused; n is int32
  EXPECT_EQ(r.gradients[0].to_vector<float>(), (std::vector<float>{3, 4}));
  EXPECT_EQ(r.gradients[1].to_vector<float>(), (std::vector<float>{0}));
}

TEST(Autodiff, ArgnumsPickTheGradientsAndTheirOrder) {
  auto loss = [](const Tensor &w, int scale, const Tensor &x, const Tensor &b) {
    return reduce_sum((w * x + b) * static_cast<float>(scale));
  };
  Tensor w({1.f, 2.f}), x({3.f, 4.f}), b({5.f, 6.f});
  ValueAndGrad r = value_and_grad(loss, Argnums{3, 0})(w, 2, x, b);
  EXPECT_EQ(r.value.item<float>(), 2.f * (3 + 8 + 11));
  ASSERT_EQ(r.gradients.size(), 2u);
  EXPECT_EQ(r.gradients[0].to_vector<float>(), (std::vector<float>{2, 2})); // d/db
  EXPECT_EQ(r.gradients[1].to_vector<float>(), (std::vector<float>{6, 8})); // d/dw
  std::vector<Tensor> g = grad(loss, Argnums{2})(w, 2, x, b);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{2, 4})); // d/dx
}

TEST(Autodiff, ArgnumsThatAreNotFloatTensorsAreRefused) {
  auto loss = [](const Tensor &w, int scale, const Tensor &n) {
    return reduce_sum(w * cast(n, DType::Float32) * static_cast<float>(scale));
  };
  auto message = [&](Argnums argnums) {
    try {
      value_and_grad(loss, argnums, "scaled")(Tensor({1.f}), 2, Tensor({3}));
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({1}), "ember::value_and_grad 'scaled': argnums 1 is the host value 2, not a "
                          "Tensor: only tensors have gradients");
  EXPECT_EQ(message({2}), "ember::value_and_grad 'scaled': argnums 2 is a int32 tensor: gradients "
                          "need floating-point arguments (float32, float64, float16 or bfloat16)");
  EXPECT_EQ(message({3}), "ember::value_and_grad 'scaled': argnums 3 is out of range: the function "
                          "was called with 3 arguments");
}

TEST(Autodiff, ThroughBranches) {
  // A function that branches on a tensor value (ember::cond -> scf.if): the
  // gradient follows the branch taken.
  auto f = [](auto &v) {
    Tensor x = v[0], w = v[1];
    Tensor y = cond(reduce_sum(x) > 0.0, [&] { return tanh(x * w); }, [&] { return x * x * w; });
    return y * 3.0;
  };
  checkGradients("cond taken", f, {uniform({4}, 40, 0.1, 1), uniform({4}, 41)});
  checkGradients("cond not taken", f, {uniform({4}, 42, -1, -0.1), uniform({4}, 43)});
}

TEST(Autodiff, ThroughCountedLoops) {
  // ember::fori_loop -> scf.for: per-iteration states are saved, then swept
  // in reverse. The body uses the loop index and an outer value.
  auto f = [](auto &v) {
    Tensor x = v[0], w = v[1];
    return fori_loop(0, 4, [&](const Tensor &i, const std::vector<Tensor> &s) {
      Tensor scale = cast(i, DType::Float64) * 0.25 + 0.5;
      return std::vector<Tensor>{tanh(s[0] * w) * scale + s[0]};
    }, {x})[0];
  };
  checkGradients("fori_loop", f, {uniform({3}, 44), uniform({3}, 45)});
}

TEST(Autodiff, SecondDerivativesThroughCountedLoops) {
  // grad(grad(f)) through a fori_loop: the first derivative stacks the
  // loop's states with tensor slices, which the second differentiates
  // (once: "'tensor.extract_slice' op has no gradient rule"). Checked
  // against central differences of the compiled first derivative.
  auto f = [](const Tensor &x) {
    return reduce_sum(fori_loop(0, 3, [&](const Tensor &, const Tensor &s) {
      return tanh(s * x) + s;
    }, x));
  };
  auto df = grad(f, "loop");
  checkSecondDerivatives(
      "loop_grad", [&](const Tensor &x) { return reduce_sum(df(x)); }, uniform({3}, 48), 1e-5,
      1e-6);
}

TEST(Autodiff, SecondDerivativesThroughAveragePooling) {
  // grad(grad(f)) differentiates avg_pool2d_grad (linear in its cotangent:
  // its own gradient is the pooling of g), SAME padding so that windows
  // overlap the border. Against central differences of the first derivative.
  auto f = [](const Tensor &x) {
    Tensor y = nn::avg_pool2d(x * x, {2, 2}, {1, 1}, "SAME");
    return reduce_sum(y * y);
  };
  auto df = grad(f, "pool");
  checkSecondDerivatives(
      "pool_grad", [&](const Tensor &x) { return reduce_sum(df(x) * df(x)); },
      uniform({1, 3, 3, 2}, 49), 1e-5, 1e-6);
}

TEST(Autodiff, SecondDerivativesThroughMaxPooling) {
  // grad(grad(f)) differentiates max_pool2d_grad (linear in its cotangent:
  // its gradient gathers g at each window's maximum, max_pool2d_gather),
  // overlapping SAME windows. Distinct random values keep the maxima where
  // they are over the finite differences' steps.
  auto f = [](const Tensor &x) {
    Tensor y = nn::max_pool2d(x * x * x, {2, 2}, {1, 1}, "SAME");
    return reduce_sum(y * y);
  };
  auto df = grad(f, "max_pool");
  checkSecondDerivatives(
      "max_pool_grad", [&](const Tensor &x) { return reduce_sum(df(x) * df(x)); },
      uniform({1, 3, 3, 2}, 50), 1e-6, 1e-5);
}

TEST(Autodiff, ThroughBranchesInsideCountedLoops) {
  // ember::cond inside ember::fori_loop (scf.if inside scf.for): the reverse
  // loop recomputes each iteration's branch and sweeps it (this crashed
  // ember-autodiff). The branch taken changes from one iteration to the next,
  // by the loop index and by the carried state.
  auto byIndex = [](auto &v) {
    Tensor x = v[0], w = v[1];
    return fori_loop(0, 5, [&](const Tensor &i, const std::vector<Tensor> &s) {
      Tensor next = cond(i % 2 == 0, [&] { return tanh(s[0] * w) + s[0]; },
                         [&] { return s[0] * w * 0.5 - x; });
      return std::vector<Tensor>{next};
    }, {x})[0];
  };
  checkGradients("cond by index in fori_loop", byIndex, {uniform({3}, 46), uniform({3}, 47)});
  // The state's sum alternates in sign: 2, -1, 0.5, -0.25 (the negation
  // branch, then the scaling one), far from the branch boundary at 0.
  auto byState = [](auto &v) {
    Tensor x = v[0], w = v[1];
    return fori_loop(0, 4, [&](const Tensor &, const std::vector<Tensor> &s) {
      Tensor next = cond(reduce_sum(s[0]) > 0.0, [&] { return -(s[0] * 0.5); },
                         [&] { return s[0] * w * w * -0.5; });
      return std::vector<Tensor>{next};
    }, {x})[0];
  };
  Tensor x = Tensor::from_vector(std::vector<double>{1.5, 0.5}, {2}, DType::Float64);
  Tensor w = Tensor::from_vector(std::vector<double>{1.0, -1.0}, {2}, DType::Float64);
  checkGradients("cond by state in fori_loop", byState, {x, w});
}

TEST(Autodiff, StopGradientInTracedFunctions) {
  auto vg = value_and_grad([](const Tensor &x) { return reduce_sum(x * stop_gradient(x)); });
  ValueAndGrad r = vg(Tensor({3.f, -2.f}));
  EXPECT_EQ(r.value.item<float>(), 13.f);
  EXPECT_EQ(r.gradients[0].to_vector<float>(), (std::vector<float>{3.f, -2.f})); // not 2x
}

TEST(Autodiff, GradientsOfGradients) {
  // d/dx sum(x^3) = 3x^2; d/dx sum(3x^2) = 6x: value_and_grad traced inside
  // a differentiated function.
  auto df = grad([](const Tensor &x) { return reduce_sum(x * x * x); }, "cube");
  auto d2f = grad([&](const Tensor &x) { return reduce_sum(df(x)); }, "cube_grad");
  Tensor second = d2f(Tensor({1.f, 2.f, -3.f}));
  EXPECT_EQ(second.to_vector<float>(), (std::vector<float>{6, 12, -18}));
  // Third order, through three nested transforms: 6.
  auto d3f = grad([&](const Tensor &x) { return reduce_sum(d2f(x)); }, "cube_grad_grad");
  EXPECT_EQ(d3f(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{6, 6}));
}

TEST(Autodiff, GradOfOneTensorArgumentIsATensorSoGradsCompose) {
  // As in JAX: grad(f) of a function of one Tensor returns a Tensor, so
  // grad(grad(f)) is f'' (for a non-scalar gradient, that of its sum).
  auto f = [](const Tensor &x) { return reduce_sum(x * x * x); };
  auto df = grad(f, "cube");
  Tensor first = df(Tensor({1.f, 2.f, -3.f}));
  EXPECT_EQ(first.to_vector<float>(), (std::vector<float>{3, 12, 27}));
  auto d2f = grad(df, "cube_grad");
  EXPECT_EQ(d2f(Tensor({1.f, 2.f, -3.f})).to_vector<float>(), (std::vector<float>{6, 12, -18}));
  EXPECT_EQ(grad(d2f, "cube_grad_grad")(Tensor({1.f, 2.f})).to_vector<float>(),
            (std::vector<float>{6, 6}));
  // On a scalar: sin'' = -sin.
  auto d2sin = grad(grad([](const Tensor &x) { return sin(x); }, "sin"), "dsin");
  EXPECT_NEAR(d2sin(Tensor(0.5f)).item<float>(), -std::sin(0.5f), 1e-6);
  // Host arguments are not differentiable: one Tensor argument, a Tensor.
  auto power = [](const Tensor &x, int n) {
    Tensor y = x;
    for (int i = 1; i < n; ++i)
      y = y * x;
    return y;
  };
  Tensor threeXSquared = grad(power, "power")(Tensor(2.f), 3);
  EXPECT_EQ(threeXSquared.item<float>(), 12.f);
  // An int argnum (JAX's argnums=1) gives that argument's gradient alone.
  auto product = [](const Tensor &a, const Tensor &b) { return reduce_sum(a * b); };
  Tensor dB = grad(product, 1, "product")(Tensor({1.f, 2.f}), Tensor({3.f, 4.f}));
  EXPECT_EQ(dB.to_vector<float>(), (std::vector<float>{1, 2}));
  // More Tensor arguments: one gradient each, in a std::vector.
  std::vector<Tensor> both = grad(product, "product")(Tensor({1.f, 2.f}), Tensor({3.f, 4.f}));
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].to_vector<float>(), (std::vector<float>{3, 4}));
  // The one Tensor argument must be floating-point.
  try {
    grad(f, "cube")(Tensor({1, 2}));
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("not floating-point"), std::string::npos) << e.what();
  }
}

TEST(Autodiff, ValueAndGradOfOneTensorIsTheValueAndATensor) {
  // As JAX's value_and_grad: (value, gradient) for a function of one
  // Tensor, (value, gradients) otherwise; both bind with structured bindings.
  auto vg = value_and_grad([](const Tensor &x) { return reduce_sum(x * x); }, "square");
  auto [value, gradient] = vg(Tensor({1.f, 2.f}));
  static_assert(std::is_same_v<decltype(gradient), Tensor>);
  EXPECT_EQ(value.item<float>(), 5.f);
  EXPECT_EQ(gradient.to_vector<float>(), (std::vector<float>{2, 4}));
  ValueAndGradient r = vg(Tensor({3.f}));
  EXPECT_EQ(r.gradient.item<float>(), 6.f);
  ASSERT_EQ(r.gradients.size(), 1u); // the general form still holds it
  ValueAndGrad general = vg(Tensor({3.f}));
  EXPECT_EQ(general.gradients[0].item<float>(), 6.f);
  // Host arguments do not count: still one Tensor.
  auto scaled = value_and_grad([](const Tensor &x, float k) { return reduce_sum(x) * k; }, "s");
  auto [v2, g2] = scaled(Tensor({1.f, 1.f}), 3.f);
  EXPECT_EQ(g2.to_vector<float>(), (std::vector<float>{3, 3}));
  // Two Tensors: a vector of gradients.
  auto product = value_and_grad(
      [](const Tensor &a, const Tensor &b) { return reduce_sum(a * b); }, "product");
  auto [v3, gradients] = product(Tensor({1.f, 2.f}), Tensor({3.f, 4.f}));
  static_assert(std::is_same_v<decltype(gradients), std::vector<Tensor>>);
  ASSERT_EQ(gradients.size(), 2u);
  EXPECT_EQ(gradients[1].to_vector<float>(), (std::vector<float>{1, 2}));
  // The one Tensor must be floating-point (JAX raises too).
  auto ints = value_and_grad([](const Tensor &x) { return reduce_sum(cast(x, DType::Float32)); },
                             "ints");
  EXPECT_THROW(ints(Tensor({1, 2})), Error);
}

TEST(Autodiff, HessianVectorProductsThroughMatmulMatchFiniteDifferences) {
  // hvp(W) = d/dW <grad_W loss(W), v>, against central differences of the
  // (compiled) gradient itself.
  Tensor x = uniform({5, 4}, 51), v = uniform({4, 3}, 52), w = uniform({4, 3}, 53);
  auto loss = [](const Tensor &w, const Tensor &x) {
    Tensor y = tanh(matmul(x, w));
    return reduce_sum(y * y * 0.5);
  };
  auto gradient = grad(loss, Argnums{0}, "layer");
  auto hvp = grad([&](const Tensor &w, const Tensor &x) { return reduce_sum(gradient(w, x)[0] * v); },
                  Argnums{0}, "layer_hvp");
  std::vector<double> analytic = hvp(w, x)[0].to_vector<double>();
  std::vector<double> wv = w.to_vector<double>(), vv = v.to_vector<double>();
  const double h = 1e-6;
  for (size_t k = 0; k < wv.size(); ++k) {
    auto at = [&](double delta) {
      std::vector<double> moved = wv;
      moved[k] += delta;
      Tensor g = gradient(Tensor::from_vector(moved, w.shape(), DType::Float64), x)[0];
      return reduce_sum(g * v).item<double>();
    };
    double numeric = (at(h) - at(-h)) / (2 * h);
    EXPECT_NEAR(analytic[k], numeric, 1e-6 * std::max(1.0, std::fabs(numeric))) << k;
  }
}

TEST(Autodiff, ValueAndGradInsideATracedTrainingStep) {
  // A whole SGD step traced: value_and_grad inside ember::function, the
  // update assigned to variables; the same numbers as the step done eagerly.
  Tensor x = uniform({6, 3}, 61), y = uniform({6, 1}, 62);
  auto loss = [](const Tensor &w, const Tensor &x, const Tensor &y) {
    Tensor error = matmul(x, w) - y;
    return reduce_mean(error * error);
  };
  auto lossAndGrad = value_and_grad(loss, Argnums{0}, "mse");
  Variable w(uniform({3, 1}, 63), "w");
  Tensor w0 = w.value();
  auto step = function(
      [&](const Tensor &x, const Tensor &y) {
        ValueAndGrad r = lossAndGrad(w.value(), x, y);
        w.assign_sub(r.gradients[0] * 0.1);
        return r.value;
      },
      "sgd_step");
  Tensor traced = step(x, y);
  ValueAndGrad eager = lossAndGrad(w0, x, y);
  EXPECT_NEAR(traced.item<double>(), eager.value.item<double>(), 1e-12);
  std::vector<double> updated = w.value().to_vector<double>(),
                      expected = (w0 - eager.gradients[0] * 0.1).to_vector<double>();
  for (size_t i = 0; i < updated.size(); ++i)
    EXPECT_NEAR(updated[i], expected[i], 1e-12) << i;
}

TEST(Autodiff, InnerGradientsOfClosuresOverOuterValues) {
  // As in JAX: the inner function closes over the outer argument w; its
  // gradient with respect to u is w, and the outer gradient of sum(w) is 1
  // (the captured w is differentiated through, not taken as a constant).
  auto outer = grad(
      [](const Tensor &w, const Tensor &x) {
        auto inner = grad([&](const Tensor &u) { return reduce_sum(u * w * w); }, "inner");
        return reduce_sum(inner(x));
      },
      Argnums{0}, "outer");
  // d/dw sum(w^2) = 2w.
  EXPECT_EQ(outer(Tensor({1.f, -2.f}), Tensor({5.f, 7.f}))[0].to_vector<float>(),
            (std::vector<float>{2, -4}));
}
