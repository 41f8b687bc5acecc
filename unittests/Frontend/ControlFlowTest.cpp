// ember::cond, while_loop and fori_loop: plain C++ eagerly, scf on tensors
// when traced, with the same results.
#include "ember/ember.h"

#include <gtest/gtest.h>

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
