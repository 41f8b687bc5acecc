// ember::function: tracing into one compiled function per signature.
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <future>
#include <iostream>
#include <latch>
#include <sstream>
#include <string>
#include <thread>

using namespace ember;

namespace {
Tensor denseLayer(const Tensor &x, const Tensor &w) { return relu(matmul(x, w) + 1.f); }

std::string messageOf(const std::function<void()> &call) {
  try {
    call();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(Function, TracedMatchesEagerAndInlinesInnerFunctions) {
  auto model = [](const Tensor &x, const Tensor &w) {
    return reduce_sum(denseLayer(denseLayer(x, w), w), {1});
  };
  auto traced = function(model, "model");
  Tensor x = random_uniform({4, 3}, 1, -1, 1), w = random_uniform({3, 3}, 2, -1, 1);
  std::vector<float> eager = model(x, w).to_vector<float>();
  std::vector<float> compiled = traced(x, w).to_vector<float>();
  ASSERT_EQ(eager.size(), compiled.size());
  for (size_t i = 0; i < eager.size(); ++i)
    EXPECT_NEAR(eager[i], compiled[i], 1e-5) << i;
  // One concrete function holding every op of the inner calls.
  ASSERT_EQ(traced.concrete_functions().size(), 1u);
  std::string ir = traced.traced_ir(x, w);
  EXPECT_NE(ir.find("ember.matmul"), std::string::npos) << ir;
  EXPECT_NE(ir.find("ember.reduce_sum"), std::string::npos) << ir;
  EXPECT_NE(ir.find("FunctionTest.cpp"), std::string::npos) << "ops carry the user's lines";
}

// A long chain of matmuls is compiled with each kind of blocked matmul
// outlined once (ember-outline-blocked-matmuls, 16 or more in a function),
// interleaved with an elementwise op whose matmul stays inline (its
// epilogue): the same values as eagerly.
TEST(Function, LongMatmulChainsMatchEager) {
  std::vector<float> values(48 * 48);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(static_cast<int>(i * 37 % 11) - 5) / 120.f;
  Tensor a = Tensor::from_vector(values, {48, 48});
  auto chain = [&](const Tensor &x) {
    Tensor t = x;
    for (int i = 0; i < 20; ++i)
      t = i == 10 ? relu(matmul(t, a)) : matmul(i % 2 ? a : t, i % 2 ? t : a);
    return t;
  };
  Tensor x = Tensor::from_vector(std::vector<float>(values.rbegin(), values.rend()), {48, 48});
  std::vector<float> eager = chain(x).to_vector<float>();
  std::vector<float> traced = function(chain, "matmul_chain")(x).to_vector<float>();
  ASSERT_EQ(traced.size(), eager.size());
  for (size_t i = 0; i < eager.size(); ++i)
    ASSERT_NEAR(traced[i], eager[i], 1e-5f * (1 + std::abs(eager[i]))) << i;
}

TEST(Function, OneConcreteFunctionPerSignature) {
  int traces = 0;
  auto f = function([&](const Tensor &x, int n) {
    ++traces; // host side effect: runs only while tracing
    Tensor y = x;
    for (int i = 0; i < n; ++i)
      y = y * 2;
    return y;
  });
  Tensor a = ones({3}), b = ones({2, 2});
  EXPECT_EQ(f(a, 3).to_vector<float>(), (std::vector<float>{8, 8, 8}));
  EXPECT_EQ(f(a * 3, 3).to_vector<float>(), (std::vector<float>{24, 24, 24}));
  EXPECT_EQ(traces, 1);
  EXPECT_EQ(f(b, 3).shape(), (Shape{2, 2})); // new shape
  EXPECT_EQ(f(a, 1).to_vector<float>(), (std::vector<float>{2, 2, 2})); // new host value
  EXPECT_EQ(f(ones({3}, DType::Float64), 1).dtype(), DType::Float64); // new dtype
  EXPECT_EQ(traces, 4);
  auto concrete = f.concrete_functions();
  ASSERT_EQ(concrete.size(), 4u);
  EXPECT_EQ(concrete[0].signature, "function(arg0: float32[3], arg1=3) -> float32[3]");
  EXPECT_GT(concrete[0].compile_seconds, 0);
}

TEST(Function, CapturedTensorsBecomeConstants) {
  Tensor bias = {10.f, 20.f};
  auto f = function([&](const Tensor &x) { return x + bias; });
  EXPECT_EQ(f(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{11, 22}));
  bias = Tensor({0.f, 0.f}); // the compiled function keeps the traced value
  EXPECT_EQ(f(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{11, 22}));
}

TEST(Function, TupleResultsAndHostArguments) {
  enum class Mode { Sum, Max };
  auto f = function([](const Tensor &x, Mode mode, const std::string &label, bool negate) {
    Tensor r = mode == Mode::Sum ? reduce_sum(x) : reduce_max(x);
    (void)label;
    return std::make_tuple(negate ? -r : r, x * 2);
  });
  Tensor x = {1, 5, 2};
  auto [s, doubled] = f(x, Mode::Sum, std::string("a"), false);
  EXPECT_EQ(s.item<int>(), 8);
  EXPECT_EQ(doubled.to_vector<int>(), (std::vector<int>{2, 10, 4}));
  EXPECT_EQ(std::get<0>(f(x, Mode::Max, std::string("a"), true)).item<int>(), -5);
  EXPECT_EQ(f.concrete_functions().size(), 2u);
}

TEST(Function, ErrorsNameTheOpAndTheUsersLine) {
  auto f = function([](const Tensor &a, const Tensor &b) { return matmul(a, b); });
  std::string message = messageOf([&] { f(zeros({2, 3}), zeros({4, 5})); });
  EXPECT_NE(message.find("FunctionTest.cpp"), std::string::npos) << message;
  EXPECT_NE(message.find("'ember.matmul' op contracting dims differ"), std::string::npos)
      << message;
}

TEST(Function, SymbolicTensorsHaveNoValuesWhileTracing) {
  auto f = function([](const Tensor &x) {
    if (bool(reduce_sum(x) > 0)) // needs the value: refused while tracing
      return x;
    return -x;
  });
  std::string message = messageOf([&] { f(ones({2})); });
  EXPECT_NE(message.find("symbolic tensor"), std::string::npos) << message;
}

TEST(Function, UnusedOpsArePrunedWhenTraced) {
  // Story D5: an unused out-of-range gather raises eagerly, not when traced.
  auto body = [](const Tensor &x) {
    Tensor unused = gather(x, Tensor({7}));
    (void)unused;
    return x + 1;
  };
  EXPECT_THROW(body(Tensor({1, 2, 3})), OpError);
  auto traced = function(body);
  EXPECT_EQ(traced(Tensor({1, 2, 3})).to_vector<int>(), (std::vector<int>{2, 3, 4}));
}

TEST(Function, RunEagerlySwitch) {
  int runs = 0;
  auto f = function([&](const Tensor &x) {
    ++runs;
    return x + 1;
  });
  run_functions_eagerly(true);
  f(ones({2}));
  f(ones({2}));
  run_functions_eagerly(false);
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(f.concrete_functions().empty());
  f(ones({2}));
  f(ones({2}));
  EXPECT_EQ(runs, 3);
}

TEST(Function, ExecutingEagerlyIsFalseOnlyWhileTracing) {
  // tf.executing_eagerly(): false inside a tf.function, also in the branches
  // and loop bodies traced there; true eagerly and with functions run eagerly.
  std::vector<std::pair<std::string, bool>> seen;
  auto note = [&](const std::string &where) { seen.emplace_back(where, executing_eagerly()); };
  auto inner = function([&](const Tensor &x) {
    note("inner function");
    return x * 2.f;
  }, "inner");
  auto f = function([&](const Tensor &x) {
    note("body");
    Tensor y = cond(reduce_sum(x) > 0.f, [&] { note("then"); return inner(x); },
                    [&] { note("else"); return -x; });
    auto counted = fori_loop(0, 2, [&](const Tensor &, const std::vector<Tensor> &v) {
      note("fori_loop body");
      return std::vector<Tensor>{v[0] + 1.f};
    }, {y});
    auto looped = while_loop(
        [&](const std::vector<Tensor> &v) { note("while_loop condition"); return reduce_sum(v[0]) < 100.f; },
        [&](const std::vector<Tensor> &v) { note("while_loop body"); return std::vector<Tensor>{v[0] * 2.f}; },
        counted);
    return looped[0];
  }, "eagerness");
  EXPECT_TRUE(executing_eagerly());
  Tensor x({1.f, 2.f});
  std::vector<float> traced = f(x).to_vector<float>();
  std::vector<std::pair<std::string, bool>> expected = {
      {"body", false}, {"then", false}, {"inner function", false}, {"else", false},
      {"fori_loop body", false}, {"while_loop condition", false}, {"while_loop body", false}};
  EXPECT_EQ(seen, expected);
  EXPECT_TRUE(executing_eagerly()); // after the trace

  seen.clear();
  f(x); // the compiled function: the C++ body does not run
  EXPECT_TRUE(seen.empty());

  // Eagerly (the body run as plain C++), every op runs at once.
  run_functions_eagerly(true);
  std::vector<float> eager = f(x).to_vector<float>();
  run_functions_eagerly(false);
  EXPECT_EQ(eager, traced);
  ASSERT_FALSE(seen.empty());
  for (const auto &[where, eagerly] : seen)
    EXPECT_TRUE(eagerly) << where;
  EXPECT_TRUE(executing_eagerly());
}

TEST(Function, FunctionsCalledWhileTracingJoinTheTrace) {
  auto inner = function([](const Tensor &x) { return x * x; }, "inner");
  auto outer = function([&](const Tensor &x) { return inner(x) + inner(x + 1); }, "outer");
  EXPECT_EQ(outer(Tensor({1, 2})).to_vector<int>(), (std::vector<int>{5, 13}));
  EXPECT_TRUE(inner.concrete_functions().empty());
  EXPECT_EQ(outer.concrete_functions().size(), 1u);
}

TEST(Function, IRAtEveryStage) {
  auto f = function([](const Tensor &x) { return relu(x * 2.f + 1.f); }, "affine_relu");
  IRStages stages = f.ir_stages(ones({4, 8}));
  EXPECT_NE(stages.traced.find("ember.mul"), std::string::npos) << stages.traced;
  EXPECT_NE(stages.traced.find("FunctionTest.cpp"), std::string::npos);
  EXPECT_NE(stages.optimized.find("ember.relu"), std::string::npos) << stages.optimized;
  // One fused loop nest: a single linalg.generic.
  size_t first = stages.linalg.find("linalg.generic");
  ASSERT_NE(first, std::string::npos) << stages.linalg;
  EXPECT_EQ(stages.linalg.find("linalg.generic", first + 1), std::string::npos) << stages.linalg;
  EXPECT_NE(stages.llvm_dialect.find("llvm.func @ember_entry_ember_fn_affine_relu"), std::string::npos);
  EXPECT_NE(stages.llvm_ir.find("define void @ember_entry_ember_fn_affine_relu"), std::string::npos);
  EXPECT_TRUE(f.concrete_functions().empty());
}

TEST(Function, VariablesAreInputsAndOutputsWrittenBackAfterEachCall) {
  Variable w(Tensor({1.f, 2.f}), "w");
  Variable steps(Tensor(0), "steps");
  auto sgdStep = function([&](const Tensor &gradient, float lr) {
    w.assign_sub(gradient * lr);
    steps.assign_add(Tensor(1));
  });
  Tensor g = {10.f, 20.f};
  sgdStep(g, 0.1f);
  EXPECT_EQ(w.value().to_vector<float>(), (std::vector<float>{0, 0}));
  sgdStep(g, 0.1f);
  EXPECT_EQ(w.value().to_vector<float>(), (std::vector<float>{-1, -2}));
  EXPECT_EQ(steps.value().item<int>(), 2);
  EXPECT_EQ(sgdStep.concrete_functions().size(), 1u);
  // Eager writes are seen by the next traced call.
  w.assign(Tensor({5.f, 5.f}));
  sgdStep(g, 0.1f);
  EXPECT_EQ(w.value().to_vector<float>(), (std::vector<float>{4, 3}));
}

TEST(Function, OneValueReturnedOrAssignedTwice) {
  // Each result and each variable gets its own buffer (this crashed in
  // buffer-results-to-out-params).
  auto twice = function([](const Tensor &x) { return std::make_tuple(x * 2.f, x * 2.f); });
  auto [a, b] = twice(Tensor({1.f, 2.f}));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{2, 4}));

  Variable v(Tensor({1.f, 1.f}), "v"), u(Tensor({0.f, 0.f}), "u");
  auto accumulate = function([&](const Tensor &x) {
    v.assign_add(x);
    return v.value();
  });
  EXPECT_EQ(accumulate(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{2, 3}));
  EXPECT_EQ(accumulate(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{3, 5}));
  EXPECT_EQ(v.value().to_vector<float>(), (std::vector<float>{3, 5}));

  auto both = function([&](const Tensor &x) {
    Tensor y = x + 1.f;
    v.assign(y);
    u.assign(y);
    return y;
  });
  EXPECT_EQ(both(Tensor({4.f, 5.f})).to_vector<float>(), (std::vector<float>{5, 6}));
  EXPECT_EQ(v.value().to_vector<float>(), (std::vector<float>{5, 6}));
  EXPECT_EQ(u.value().to_vector<float>(), (std::vector<float>{5, 6}));
}

TEST(Function, VariableReadsSeeTheValueAtCallTime) {
  Variable scale(Tensor(2.f), "scale");
  auto f = function([&](const Tensor &x) { return x * scale; });
  EXPECT_EQ(f(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{2, 4}));
  scale.assign(Tensor(3.f));
  EXPECT_EQ(f(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{3, 6}));
  EXPECT_EQ(f.concrete_functions().size(), 1u);
}

TEST(Function, AssigningAVariableAnotherShapeIsAnError) {
  Variable v(zeros({2}), "v");
  std::string message = messageOf([&] { v.assign(zeros({3})); });
  EXPECT_NE(message.find("variable 'v' holds float32 of shape (2,), cannot assign float32 of shape (3,)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("FunctionTest.cpp"), std::string::npos) << message;
}

TEST(Function, FrequentRetracingIsReported) {
  auto f = function([](const Tensor &x, int n) { return x * n; }, "retraced");
  testing::internal::CaptureStderr();
  for (int n = 0; n < 6; ++n)
    f(ones({2}, DType::Int32), n);
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("ember::function 'retraced' traced on each of its last 5 calls"),
            std::string::npos)
      << warning;
  EXPECT_NE(warning.find("host arguments"), std::string::npos);
  // Tensors that change only in sizes: the warning names the dim and the fix.
  auto h = function([](const Tensor &x) { return x * 2; }, "batches");
  testing::internal::CaptureStderr();
  for (int64_t rows = 2; rows < 8; ++rows)
    h(ones({rows, 3}));
  warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("dim 0 of tensor argument 0 (5 then 6)"), std::string::npos) << warning;
  EXPECT_NE(warning.find("{.input_signature = {{{ember::kNone, 3}}}}"), std::string::npos)
      << warning;
  EXPECT_NE(warning.find(".reduce_retracing = true"), std::string::npos) << warning;
  auto g = function([](const Tensor &x) { return x + 1; }, "stable");
  testing::internal::CaptureStderr();
  for (int i = 0; i < 6; ++i)
    g(ones({2}));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(Function, RacingFirstCallsTraceOnce) {
  // 8 threads call a fresh function with one signature at once: one traces
  // and compiles, the others wait for it (tf.function); no retrace warning.
  constexpr int kThreads = 8;
  std::atomic<int> traces{0};
  auto f = function([&](const Tensor &x) {
    ++traces; // the C++ body runs only while tracing
    // A slow trace, so that every thread arrives while it is in flight.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return x * 2.f + 1.f;
  }, "raced");
  std::latch start(kThreads);
  std::vector<std::vector<float>> results(kThreads);
  std::vector<std::string> errors(kThreads);
  testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Tensor x({float(t), float(-t), 0.5f});
      start.arrive_and_wait();
      try {
        results[t] = f(x).to_vector<float>();
      } catch (const std::exception &e) {
        errors[t] = e.what();
      }
    });
  for (auto &thread : threads)
    thread.join();
  std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(traces.load(), 1);
  EXPECT_EQ(f.concrete_functions().size(), 1u);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(results[t], (std::vector<float>{2.f * t + 1.f, -2.f * t + 1.f, 2.f})) << "thread " << t;
  }
  EXPECT_EQ(warnings, "");
  // The steady state: no more traces.
  EXPECT_EQ(f(Tensor({1.f, 2.f, 3.f})).to_vector<float>(), (std::vector<float>{3.f, 5.f, 7.f}));
  EXPECT_EQ(traces.load(), 1);
}

TEST(Function, RacingCallsShareAFailedTraceAndTheNextCallTracesAgain) {
  // The first trace throws: the calls that waited for it get its error, and
  // nothing is cached, so a later call traces again.
  constexpr int kThreads = 8;
  std::atomic<int> traces{0};
  auto f = function([&](const Tensor &x) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (++traces == 1)
      throw Error("first trace fails");
    return x + 1.f;
  }, "fails_once");
  std::latch start(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Tensor x({1.f, 2.f});
      start.arrive_and_wait();
      try {
        f(x);
      } catch (const Error &e) {
        errors[t] = e.what();
      }
    });
  for (auto &thread : threads)
    thread.join();
  // Threads that came after the failure was published trace again; the
  // ones that waited on the failing trace share its error.
  int failed = static_cast<int>(std::count(errors.begin(), errors.end(), "first trace fails"));
  EXPECT_GE(failed, 1);
  for (const std::string &error : errors)
    EXPECT_TRUE(error.empty() || error == "first trace fails") << error;
  EXPECT_EQ(traces.load(), failed == kThreads ? 1 : 2);
  EXPECT_EQ(f(Tensor({1.f, 2.f})).to_vector<float>(), (std::vector<float>{2.f, 3.f}));
  EXPECT_EQ(f.concrete_functions().size(), 1u);
}

TEST(Function, ASignatureInFlightDoesNotBlockOthers) {
  // While one signature traces (held here until released), a call with
  // another signature traces, compiles and runs.
  std::atomic<bool> release{false}, holding{false};
  auto f = function([&](const Tensor &x) {
    if (x.numel() == 2) {
      holding = true;
      while (!release)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return x * 3.f;
  }, "two_signatures");
  std::thread held([&] { f(Tensor({1.f, 2.f})); });
  while (!holding)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto other = std::async(std::launch::async, [&] { return f(Tensor({1.f, 2.f, 3.f})).to_vector<float>(); });
  bool finished = other.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  release = true;
  held.join();
  ASSERT_TRUE(finished) << "a call with another signature waited for the one in flight";
  EXPECT_EQ(other.get(), (std::vector<float>{3.f, 6.f, 9.f}));
  EXPECT_EQ(f.concrete_functions().size(), 2u);
}

TEST(Function, CompiledCodeIsCachedOnDisk) {
  std::string dir = (std::filesystem::temp_directory_path() / "ember-function-disk-cache").string();
  std::filesystem::remove_all(dir);
  ::setenv("EMBER_CACHE_DIR", dir.c_str(), 1);
  auto body = [](const Tensor &x) { return reduce_sum(x * x + 3.f); };
  Tensor x = {1.f, 2.f};
  auto first = function(body, "cached");
  EXPECT_EQ(first(x).item<float>(), 11.f);
  EXPECT_FALSE(first.concrete_functions().front().from_disk_cache);
  auto second = function(body, "cached"); // a new function: no in-memory concrete functions
  EXPECT_EQ(second(x).item<float>(), 11.f);
  EXPECT_TRUE(second.concrete_functions().front().from_disk_cache);
  // A corrupt entry is ignored (compiled again) and replaced.
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    std::filesystem::resize_file(entry.path(), std::filesystem::file_size(entry.path()) - 1);
  auto third = function(body, "cached");
  EXPECT_EQ(third(x).item<float>(), 11.f);
  EXPECT_FALSE(third.concrete_functions().front().from_disk_cache);
  auto fourth = function(body, "cached");
  EXPECT_EQ(fourth(x).item<float>(), 11.f);
  EXPECT_TRUE(fourth.concrete_functions().front().from_disk_cache);
  ::unsetenv("EMBER_CACHE_DIR");
  std::filesystem::remove_all(dir);
}

TEST(Function, PerfMapNamesEveryCompiledFunction) {
  // EMBER_PERF_MAP=1: /tmp/perf-<pid>.map gets each compiled function's
  // address, size and name, the bodies of parallel loops (OpenMP's outlined
  // functions, local symbols) too: where `perf report` finds their names.
  std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
  std::filesystem::remove(path);
  ::setenv("EMBER_PERF_MAP", "1", 1);
  auto body = [](const Tensor &a, const Tensor &b) { return matmul(a, b) + 1.f; };
  auto traced = function(body, "perf_mapped");
  Tensor a = random_uniform({256, 256}, 1), b = random_uniform({256, 256}, 2);
  (void)traced(a, b);
  ::unsetenv("EMBER_PERF_MAP");
  std::ifstream map(path);
  ASSERT_TRUE(map) << path;
  std::string line, text;
  bool entry = false, parallelBody = false;
  while (std::getline(map, line)) {
    text += line + "\n";
    std::istringstream fields(line);
    std::string address, size, name;
    ASSERT_TRUE(fields >> address >> size >> name) << line;
    EXPECT_GT(std::stoull(address, nullptr, 16), 0u) << line;
    EXPECT_GT(std::stoull(size, nullptr, 16), 0u) << line;
    entry |= name.find("perf_mapped") != std::string::npos;
    parallelBody |= name.find("omp_par") != std::string::npos;
  }
  EXPECT_TRUE(entry) << text;
  EXPECT_TRUE(parallelBody) << text;
  std::filesystem::remove(path);
}

TEST(Function, PrintRunsOnEveryCallHostCodeOnlyWhileTracing) {
  // Story D3.
  auto f = function([](const Tensor &x) {
    std::cout << "tracing\n"; // host side effect: once
    Tensor y = x * 2;
    print(y, "y = ");         // in the graph: every call
    return y;
  }, "printing");
  testing::internal::CaptureStdout();
  f(Tensor({1, 2}));
  f(Tensor({3, 4}));
  f(Tensor({5, 6}));
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "tracing\ny = [2 4]\ny = [6 8]\ny = [10 12]\n");
  testing::internal::CaptureStdout();
  print(Tensor({{1.5f, 2.f}}), "eager: ");
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "eager: [[1.5 2. ]]\n");
}

TEST(Function, ExportWritesVariablesAsNamedWeightsAndRefusesTrainingSteps) {
  Variable v(Tensor({1.f, 2.f}), "scale");
  auto read = function([&](const Tensor &x) { return x * v; }, "read");
  std::string path = (std::filesystem::temp_directory_path() /
                      ("ember-export-" + std::to_string(::getpid()) + ".mlir"))
                         .string();
  read.export_mlir(path, Tensor({3.f, 4.f}));
  std::ifstream file(path);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  EXPECT_NE(text.find("func.func @read("), std::string::npos) << text;
  EXPECT_NE(text.find("ember.weight = \"scale\""), std::string::npos) << text;
  EXPECT_NE(text.find("dense<[1.000000e+00, 2.000000e+00]>"), std::string::npos) << text;


  // Weights of 64 elements or more are dense_resource blobs named after the
  // variable, their bytes in the file's dialect_resources section.
  std::vector<float> values(2 * 32);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i) + 0.5f;
  Variable kernel(Tensor::from_vector(values, {2, 32}), "dense/kernel");
  auto dense = function([&](const Tensor &x) { return x * kernel; }, "dense");
  dense.export_mlir(path, zeros({2, 32}));
  std::ifstream large(path);
  std::string resourceText((std::istreambuf_iterator<char>(large)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  EXPECT_NE(resourceText.find("dense_resource<\"dense/kernel\"> : tensor<2x32xf32>"),
            std::string::npos)
      << resourceText;
  // 0x, the alignment (4), then 0.5f and 1.5f little-endian.
  EXPECT_NE(resourceText.find("\"dense/kernel\": \"0x040000000000003F0000C03F"), std::string::npos)
      << resourceText;

  EXPECT_THROW(read.export_mlir("/nonexistent-dir/read.mlir", Tensor({3.f, 4.f})), IOError);
  auto step = function([&](const Tensor &g) { v.assign_sub(g); return v.value(); }, "step");
  try {
    step.export_mlir(path, Tensor({1.f, 1.f}));
    FAIL() << "a training step was exported";
  } catch (const OpError &e) {
    EXPECT_NE(std::string(e.what()).find("'step' assigns variable 'scale'"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Function, ExportedModelsCarryTheUsersLinesOnly) {
  // A model of ember's own layers: the exported IR names the user's lines
  // (where the model was called), never ember's sources, and keeps no
  // leftover of the training-only parts (softmax's custom gradient).
  layers::Sequential model({std::make_shared<layers::Dense>(8, "relu", true, 1),
                            std::make_shared<layers::Dense>(3, "softmax", true, 2)});
  auto predict = function([&](const Tensor &x) { return model(x); }, "classify");
  std::string path = (std::filesystem::temp_directory_path() / "classify-locations.mlir").string();
  predict.export_mlir(path, zeros({2, 4}));
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  EXPECT_EQ(text.find("lib/Frontend"), std::string::npos) << text;
  EXPECT_EQ(text.find("custom_gradient"), std::string::npos) << text;
  EXPECT_NE(text.find("FunctionTest.cpp"), std::string::npos) << text;
}
