// ember::cond, while_loop and fori_loop: plain C++ eagerly, scf on tensors
// when traced, with the same results.
#include "ErrorTestUtil.h"
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <functional>

using namespace ember;

namespace {
Tensor simpleRelu(const Tensor &x) {
  return cond(reduce_sum(x) > 0.f, [&] { return x; }, [&] { return zeros({x.numel()}) * 0.f; });
}

std::vector<Tensor> collatzSteps(const Tensor &start) {
  // Counts the steps of the Collatz sequence from `start` to 1.
  return while_loop([](const std::vector<Tensor> &v) { return v[0] != 1; },
                    [](const std::vector<Tensor> &v) {
                      Tensor n = v[0];
                      Tensor next = cond(n % 2 == 0, [&] { return floordiv(n, Tensor(2)); },
                                         [&] { return n * 3 + 1; });
                      return std::vector<Tensor>{next, v[1] + 1};
                    },
                    {start, Tensor(0)});
}
} // namespace

TEST(ControlFlow, CondEagerAndTraced) {
  auto traced = function(simpleRelu, "simple_relu");
  Tensor positive = {1.f, 2.f}, negative = {-1.f, -2.f};
  EXPECT_EQ(simpleRelu(positive).to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(traced(positive).to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(traced(negative).to_vector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(traced.concrete_functions().size(), 1u); // one graph holds both branches
  EXPECT_NE(traced.ir_stages(positive).traced.find("scf.if"), std::string::npos);
}

TEST(ControlFlow, WhileLoopEagerAndTraced) {
  auto traced = function(collatzSteps, "collatz");
  for (int start : {1, 6, 27}) {
    int eager = collatzSteps(Tensor(start))[1].item<int>();
    int compiled = traced(Tensor(start))[1].item<int>();
    EXPECT_EQ(eager, compiled) << start;
  }
  EXPECT_EQ(traced(Tensor(27))[1].item<int>(), 111);
  EXPECT_EQ(traced.concrete_functions().size(), 1u);
}

TEST(ControlFlow, ForiLoopEagerAndTraced) {
  auto sumOfSquares = [](const Tensor &x, int64_t n) {
    return fori_loop(0, n, [&](const Tensor &i, const std::vector<Tensor> &v) {
      Tensor fi = cast(i, DType::Float32);
      return std::vector<Tensor>{v[0] + x * fi * fi};
    }, {zeros({2})})[0];
  };
  auto traced = function(sumOfSquares);
  Tensor x = {1.f, 10.f};
  EXPECT_EQ(sumOfSquares(x, 4).to_vector<float>(), (std::vector<float>{14, 140}));
  EXPECT_EQ(traced(x, 4).to_vector<float>(), (std::vector<float>{14, 140}));
  // A long loop runs in constant stack space: 4M steps of an 8-byte
  // temporary would overflow an 8 MiB stack if each step allocated on it.
  EXPECT_EQ(traced(Tensor({1.f, 0.f}), 4000000).to_vector<float>()[1], 0.f);
}

TEST(ControlFlow, BranchTypesMustMatch) {
  auto f = function([](const Tensor &x) {
    return cond(reduce_sum(x) > 0, [&] { return x; }, [&] { return reduce_sum(x); });
  });
  try {
    f(Tensor({1, 2}));
    FAIL() << "expected an error";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("ControlFlowTest.cpp"), std::string::npos) << message;
    EXPECT_NE(message.find("'ember.cond'"), std::string::npos) << message;
    EXPECT_NE(message.find("the else branch yields (tensor<i32>) where (tensor<2xi32>)"),
              std::string::npos)
        << message;
  }
}

TEST(ControlFlow, CppIfOnASymbolicTensorPointsToCond) {
  auto f = function([](const Tensor &x) { return bool(x > 0) ? x : -x; });
  try {
    f(Tensor(3));
    FAIL() << "expected an error";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("ember::cond"), std::string::npos) << message;
    EXPECT_NE(message.find("ember::while_loop"), std::string::npos) << message;
  }
}

TEST(ControlFlow, BranchValuesDoNotLeak) {
  Tensor leaked;
  auto f = function([&](const Tensor &x) {
    Tensor y = cond(x > 0, [&] {
      leaked = x * 2;
      return x;
    }, [&] { return x; });
    return y + leaked;
  });
  try {
    f(Tensor(1));
    FAIL() << "expected an error";
  } catch (const OpError &e) {
    EXPECT_NE(std::string(e.what()).find("computed inside a branch or loop body"),
              std::string::npos)
        << e.what();
  }
}

TEST(ControlFlow, LoopsTakeAndReturnTuples) {
  // As cond, while_loop and fori_loop take a Tensor or a tuple (pair) of
  // Tensors and return the same, so structured bindings take the result
  // apart; the condition and body see the state whole or element by element.
  auto doubling = [](const Tensor &limit) {
    return while_loop([&](const Tensor &i, const Tensor &) { return i < limit; },
                      [](const std::tuple<Tensor, Tensor> &state) {
                        auto [i, s] = state;
                        return std::tuple{i + 1, s * 2};
                      },
                      std::tuple{Tensor(0), Tensor(1)});
  };
  auto [i, s] = doubling(Tensor(10));
  EXPECT_EQ(i.item<int>(), 10);
  EXPECT_EQ(s.item<int>(), 1024);
  auto tracedDoubling = function(doubling, "doubling");
  auto [ti, ts] = tracedDoubling(Tensor(5));
  EXPECT_EQ(ti.item<int>(), 5);
  EXPECT_EQ(ts.item<int>(), 32);
  EXPECT_NE(tracedDoubling.ir_stages(Tensor(5)).traced.find("scf.while"), std::string::npos);

  auto fibonacci = [](const Tensor &first, int64_t n) {
    return fori_loop(0, n, [](const Tensor &, const Tensor &a, const Tensor &b) {
      return std::pair{b, a + b};
    }, std::pair{first, first + 1});
  };
  auto [a, b] = fibonacci(Tensor(0), 10);
  EXPECT_EQ(a.item<int>(), 55);
  EXPECT_EQ(b.item<int>(), 89);
  auto tracedFibonacci = function(fibonacci, "fibonacci");
  auto [ta, tb] = tracedFibonacci(Tensor(0), 10);
  EXPECT_EQ(ta.item<int>(), 55);
  EXPECT_EQ(tb.item<int>(), 89);

  // One Tensor of state is a Tensor in and out; the index comes first.
  auto sumOfSquares = [](const Tensor &x, int64_t n) {
    return fori_loop(0, n, [&](const Tensor &k, const Tensor &sum) {
      Tensor fk = cast(k, DType::Float32);
      return sum + x * fk * fk;
    }, zeros({2}));
  };
  Tensor x = {1.f, 10.f};
  EXPECT_EQ(sumOfSquares(x, 4).to_vector<float>(), (std::vector<float>{14, 140}));
  EXPECT_EQ(function(sumOfSquares)(x, 4).to_vector<float>(), (std::vector<float>{14, 140}));
  auto untilLarge = [](const Tensor &y) {
    return while_loop([](const auto &v) { return reduce_sum(v) < 100.f; },
                      [](const auto &v) { return v * 2.f; }, y);
  };
  EXPECT_EQ(untilLarge(x).to_vector<float>(), (std::vector<float>{16, 160}));
  EXPECT_EQ(function(untilLarge)(x).to_vector<float>(), (std::vector<float>{16, 160}));
}

// Errors thrown while tracing, at every depth of nested regions: the
// error, then eager ops and a new trace in the same process (a failed trace
// inside a loop body once corrupted the heap as it was torn down).
namespace {
/// The trace fails with `piece`; then eager ops and a new trace still work.
void expectRecovers(const std::function<void()> &failing, const std::string &piece) {
  test::expectContains(test::errorOf(failing), piece);
  for (int i = 0; i < 4; ++i) // mallocs of the sizes just freed (the abort was here)
    EXPECT_EQ((Tensor(3) + 4).item<int>(), 7);
  EXPECT_EQ(function(collatzSteps, "collatz_again")(Tensor(27))[1].item<int>(), 111);
}
auto mismatched = [](const Tensor &n) { // branches yield f64 (true division) and i32
  return cond(
      n % 2 == 0, [&] { return n / 2; }, [&] { return n * 3 + 1; });
};
template <typename Body> auto stepsWhile(Body body) { // while (v[0] > 1) v = body(v)
  return function([body](const Tensor &n0) {
    return while_loop([](const std::vector<Tensor> &v) { return v[0] > 1; }, body,
                      {n0, Tensor(0)})[1];
  });
}
} // namespace

TEST(ControlFlow, FailedCondInWhileBodyLeavesNoCorruption) { // the report
  auto f = stepsWhile([](const std::vector<Tensor> &v) {
    return std::vector<Tensor>{mismatched(v[0]), v[1] + 1};
  });
  expectRecovers([&] { f(Tensor(27)); }, "the else branch yields");
}
TEST(ControlFlow, FailedCondInWhileConditionAndInCondBranch) {
  auto f = function([](const Tensor &x) {
    return while_loop(
        [](const std::vector<Tensor> &v) {
          return cond(
              v[0] > 0, [&] { return v[0] > 1; }, [&] { return v[0]; });
        },
        [](const std::vector<Tensor> &v) { return std::vector<Tensor>{v[0] - 1}; }, {x})[0];
  });
  expectRecovers([&] { f(Tensor(5)); }, "the else branch yields");
  auto g = function([](const Tensor &x) { // the inner branches read the outer branch's m
    return cond(
        x > 0,
        [&] {
          Tensor m = x * 2;
          return mismatched(m);
        },
        [&] { return x; });
  });
  expectRecovers([&] { g(Tensor(6)); }, "the else branch yields");
}
TEST(ControlFlow, FailedCondInForiBodyAndWhileInCondBranch) {
  auto f = function([](const Tensor &x) {
    return fori_loop(0, 3,
                     [](const Tensor &, const std::vector<Tensor> &v) {
                       return std::vector<Tensor>{mismatched(v[0])};
                     },
                     {x})[0];
  });
  expectRecovers([&] { f(Tensor(6)); }, "the else branch yields");
  auto g = function([](const Tensor &x) {
    return cond(
        x > 0,
        [&] {
          Tensor limit = x * 10; // read by the loop's condition
          return while_loop(
              [&](const std::vector<Tensor> &v) { return v[0] < limit; },
              [](const std::vector<Tensor> &v) { return std::vector<Tensor>{v[0] / 2}; }, {x})[0];
        },
        [&] { return x; });
  });
  expectRecovers([&] { g(Tensor(3)); }, "the body yields");
}
TEST(ControlFlow, FailedOpThreeRegionsDeep) { // while > fori > cond; addOp's own error
  auto f = stepsWhile([](const std::vector<Tensor> &v) {
    Tensor base = v[0] - 1;
    return fori_loop(0, 2,
                     [&](const Tensor &, const std::vector<Tensor> &w) {
                       return std::vector<Tensor>{cond(
                                                      w[0] > base, [&] { return w[0] + base; },
                                                      [&] { return matmul(base, w[0]); }),
                                                  w[1]};
                     },
                     {base, v[1]});
  });
  expectRecovers([&] { f(Tensor(9)); }, "ember.matmul");
}
TEST(ControlFlow, FailedInnerFunctionAndFailedRetraceInLoops) {
  auto inner = function(mismatched, "inner"); // traced into the loop body
  auto f = stepsWhile([&](const std::vector<Tensor> &v) {
    return std::vector<Tensor>{inner(v[0]), v[1] + 1};
  });
  expectRecovers([&] { f(Tensor(27)); }, "the else branch yields");
  Variable total(Tensor(0), "total"); // assigned: traced again (discardRegion), fails then
  int traces = 0;
  auto g = function([&](const Tensor &x) {
    return fori_loop(0, 3,
                     [&](const Tensor &, const std::vector<Tensor> &v) {
                       total.assign(total.value() + v[0]);
                       return std::vector<Tensor>{++traces < 2 ? v[0] + 1 : mismatched(v[0])};
                     },
                     {x})[0];
  });
  expectRecovers([&] { g(Tensor(1)); }, "the else branch yields");
}
TEST(ControlFlow, FailedGradientsInLoopBodies) {
  auto f = function([](const Tensor &x) { // value_and_grad: a region in the loop body
    return fori_loop(0, 2,
                     [](const Tensor &, const std::vector<Tensor> &v) {
                       Tensor s = v[0] * 2.f;
                       auto vg = value_and_grad([&](const Tensor &w) {
                         return cond(
                             reduce_sum(w) > 0.f, [&] { return reduce_sum(w * s); },
                             [&] { return w; });
                       });
                       return std::vector<Tensor>{vg(v[0]).gradients[0]};
                     },
                     {x})[0];
  });
  expectRecovers([&] { f(Tensor({1.f, 2.f})); }, "the else branch yields");
  auto twice = custom_gradient([](const Tensor &x) { // backward reads the body's e
    Tensor e = x * 2.f;
    return WithGradient{e, [e](const Tensor &up) { return std::vector<Tensor>{up * e, up}; }};
  });
  auto g = function([&](const Tensor &x) {
    return fori_loop(0, 2,
                     [&](const Tensor &, const std::vector<Tensor> &v) {
                       return std::vector<Tensor>{twice(v[0])};
                     },
                     {x})[0];
  });
  expectRecovers([&] { g(Tensor({1.f})); }, "2 cotangents for 1 inputs");
  auto h = stepsWhile([](const std::vector<Tensor> &v) { // GradientTape in a branch
    Tensor x2 = cast(v[0], DType::Float32) * 2.f;
    (void)cond(
        x2 > 0.f,
        [&] {
          GradientTape tape;
          Tensor leaked;
          (void)cond(
              x2 > 1.f,
              [&] {
                leaked = x2 * x2;
                return x2;
              },
              [&] { return x2; });
          return *tape.gradient(reduce_sum(x2 * x2), {leaked})[0];
        },
        [&] { return x2; });
    return std::vector<Tensor>{v[0] - 1, v[1] + 1};
  });
  expectRecovers([&] { h(Tensor(4)); }, "take the gradient inside it");
}
TEST(ControlFlow, ErrorCaughtInsideATraceLeavesItUsable) { // RegionGuard restores the scopes
  auto f = stepsWhile([](const std::vector<Tensor> &v) {
    Tensor n = v[0];
    try { // throws mid-branch: that branch's block must not stay the current one
      (void)cond(
          n > 0, [&] { return matmul(n, n); }, [&] { return n; });
    } catch (const Error &) {
    }
    Tensor next = cond(
        n % 2 == 0, [&] { return floordiv(n, Tensor(2)); }, [&] { return n * 3 + 1; });
    return std::vector<Tensor>{next, v[1] + 1};
  });
  EXPECT_EQ(f(Tensor(27)).item<int>(), 111);
  EXPECT_EQ((Tensor(3) + 4).item<int>(), 7);
}
