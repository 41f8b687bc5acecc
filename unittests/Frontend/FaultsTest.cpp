// Faults of compiled code (issue 8, items 4 and 6): integer division by zero
// or of the most negative integer by -1, and a traced gather's index out of
// range, raise ember::OpError naming the op and the user's line, eagerly and
// traced, instead of killing the process (SIGFPE) or clamping silently. The
// process goes on; float division stays IEEE.
#include "ember/ember.h"

#include "ErrorTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

using namespace ember;
using ember::test::errorOf;
using ember::test::expectContains;

namespace {
std::string here(int line) { return test::fileLine(__FILE__, line); }

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
} // namespace

TEST(Faults, EagerInt32DivisionByZero) {
  Tensor a = {1, 2}, b = {0, 1};
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { div(a, b); });
  expectContains(message, here(line));
  expectContains(message, "'ember.div' op integer division by zero");

  line = __LINE__ + 1;
  message = errorOf([&] { floordiv(a, b); });
  expectContains(message, here(line));
  expectContains(message, "'ember.floordiv' op integer division by zero");

  line = __LINE__ + 1;
  message = errorOf([&] { mod(a, b); });
  expectContains(message, here(line));
  expectContains(message, "'ember.mod' op integer division by zero");

  // The process goes on: the same (cached) kernels and others still work.
  EXPECT_EQ(div(Tensor({7, -7}), Tensor({2, 2})).to_vector<int32_t>(), (std::vector<int32_t>{3, -3}));
  EXPECT_EQ(floordiv(Tensor({7, -7}), Tensor({2, 2})).to_vector<int32_t>(),
            (std::vector<int32_t>{3, -4}));
  EXPECT_EQ(mod(Tensor({7, -7}), Tensor({2, 2})).to_vector<int32_t>(), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ((a + b).to_vector<int32_t>(), (std::vector<int32_t>{1, 3}));
}

TEST(Faults, EagerInt64DivisionByZero) {
  Tensor a = Tensor({5, 6, 7}, DType::Int64), b = Tensor({1, 0, 1}, DType::Int64);
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { div(a, b); });
  expectContains(message, here(line));
  expectContains(message, "'ember.div' op integer division by zero");
  expectContains(errorOf([&] { floordiv(a, b); }), "'ember.floordiv' op integer division by zero");
  expectContains(errorOf([&] { mod(a, b); }), "'ember.mod' op integer division by zero");
  EXPECT_EQ(div(a, Tensor({5, 3, 7}, DType::Int64)).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 2, 1}));
}

TEST(Faults, EagerMostNegativeIntegerDividedByMinusOne) {
  Tensor a = {kMin32, 4}, b = {-1, 2};
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { div(a, b); });
  expectContains(message, here(line));
  expectContains(message, "'ember.div' op integer division overflow");
  expectContains(errorOf([&] { floordiv(a, b); }), "'ember.floordiv' op integer division overflow");
  // The remainder is defined (0): numpy and TensorFlow give it, so does ember.
  EXPECT_EQ(mod(a, b).to_vector<int32_t>(), (std::vector<int32_t>{0, 0}));

  Tensor a64 = Tensor({kMin64}), b64 = Tensor({-1}, DType::Int64);
  ASSERT_EQ(a64.dtype(), DType::Int64);
  expectContains(errorOf([&] { div(a64, b64); }), "'ember.div' op integer division overflow");
  EXPECT_EQ(mod(a64, b64).to_vector<int64_t>(), (std::vector<int64_t>{0}));
}

TEST(Faults, EagerBroadcastAndLongTensors) {
  // One kernel broadcasts and divides.
  Tensor m = {{1, 2}, {3, 4}};
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { div(m, Tensor({1, 0})); });
  expectContains(message, here(line));
  expectContains(message, "'ember.div' op integer division by zero");
  // Vectorized loops, their remainders: a zero anywhere is found.
  for (int64_t n : {1, 7, 8, 9, 31, 1000, 1003})
    for (int64_t at : {int64_t(0), n / 2, n - 1}) {
      std::vector<int32_t> divisors(static_cast<size_t>(n), 3);
      divisors[static_cast<size_t>(at)] = 0;
      Tensor numerators = full({n}, 9, DType::Int32);
      Tensor zeroAt = Tensor::from_vector(divisors, {n});
      expectContains(errorOf([&] { div(numerators, zeroAt); }), "integer division by zero");
      expectContains(errorOf([&] { mod(numerators, zeroAt); }), "integer division by zero");
      divisors[static_cast<size_t>(at)] = 3;
      EXPECT_EQ(div(numerators, Tensor::from_vector(divisors, {n})).to_vector<int32_t>(),
                std::vector<int32_t>(static_cast<size_t>(n), 3));
    }
}

TEST(Faults, FloatDivisionByZeroStaysIEEE) {
  Tensor a = {1.f, -1.f, 0.f}, zero = {0.f, 0.f, 0.f};
  std::vector<float> q = div(a, zero).to_vector<float>();
  EXPECT_EQ(q[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(q[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(q[2]));
  EXPECT_EQ(floordiv(a, zero).to_vector<float>()[0], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(mod(a, zero).to_vector<float>()[0]));
  auto f = function([](const Tensor &x, const Tensor &y) { return div(x, y); });
  EXPECT_EQ(f(Tensor({2.0, 1.0}), Tensor({0.0, 0.0})).to_vector<double>()[0],
            std::numeric_limits<double>::infinity());
}

TEST(Faults, TracedDivisionNamesTheFaultingOpAndItsLine) {
  int divLine = 0, modLine = 0;
  auto f = function([&](const Tensor &a, const Tensor &b) {
    divLine = __LINE__ + 1;
    Tensor q = div(a, b + 1); // faults where b == -1
    modLine = __LINE__ + 1;
    Tensor r = mod(a, b); // faults where b == 0
    return q + r;
  });
  Tensor a = {10, 20, 30};
  std::string message = errorOf([&] { f(a, Tensor({1, 0, 2})); });
  expectContains(message, here(modLine));
  expectContains(message, "'ember.mod' op integer division by zero");
  message = errorOf([&] { f(a, Tensor({1, -1, 2})); });
  expectContains(message, here(divLine));
  expectContains(message, "'ember.div' op integer division by zero");
  // The same concrete function runs on good inputs afterwards.
  EXPECT_EQ(f(a, Tensor({1, 2, 3})).to_vector<int32_t>(), (std::vector<int32_t>{5, 6, 7}));
}

TEST(Faults, TracedInt64FloorDivAndOverflow) {
  int line = 0;
  auto f = function([&](const Tensor &a, const Tensor &b) {
    line = __LINE__ + 1;
    return floordiv(a, b) * 2;
  });
  Tensor a = Tensor({kMin64, 7}), b = Tensor({-1, 2}, DType::Int64);
  std::string message = errorOf([&] { f(a, b); });
  expectContains(message, here(line));
  expectContains(message, "'ember.floordiv' op integer division overflow");
  message = errorOf([&] { f(a, Tensor({3, 0}, DType::Int64)); });
  expectContains(message, here(line));
  expectContains(message, "'ember.floordiv' op integer division by zero");
  EXPECT_EQ(f(Tensor({-7, 7}, DType::Int64), Tensor({2, 2}, DType::Int64)).to_vector<int64_t>(),
            (std::vector<int64_t>{-8, 6}));
}

TEST(Faults, TracedGatherOutOfRangeRaises) {
  int line = 0;
  auto take = function([&](const Tensor &x, const Tensor &indices) {
    line = __LINE__ + 1;
    return gather(x, indices) + 0.f;
  });
  Tensor x = {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}};
  std::string message = errorOf([&] { take(x, Tensor({0, 7})); });
  expectContains(message, here(line));
  expectContains(message, "'ember.gather' op index out of range for axis 0 of size 3");
  expectContains(errorOf([&] { take(x, Tensor({-4, 0})); }), "'ember.gather' op index out of range");
  // In range, negative indices included, it gathers.
  EXPECT_EQ(take(x, Tensor({2, -3})).to_vector<float>(), (std::vector<float>{5, 6, 1, 2}));
  // Captured constant indices are not folded into a clamped constant either.
  Tensor seven = {7};
  auto constant = function([&](const Tensor &t) {
    line = __LINE__ + 1;
    return gather(t, seven);
  });
  message = errorOf([&] { constant(Tensor({1, 2, 3})); });
  expectContains(message, here(line));
  expectContains(message, "'ember.gather' op index out of range");
}

TEST(Faults, TracedScatterOutOfRangeRaisesAndWritesNothing) {
  int line = 0;
  auto put = function([&](const Tensor &x, const Tensor &indices, const Tensor &updates) {
    line = __LINE__ + 1;
    return scatter_add(x, indices, updates) + 0.f;
  });
  Tensor x = {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}};
  Tensor updates = {{10.f, 10.f}, {20.f, 20.f}};
  std::string message = errorOf([&] { put(x, Tensor({0, 3}), updates); });
  expectContains(message, here(line));
  expectContains(message, "'ember.scatter' op index out of range for axis 0 of size 3");
  expectContains(errorOf([&] {
                   put(x, Tensor({-4, 0}), updates);
                 }),
                 "'ember.scatter' op index out of range");
  EXPECT_EQ(put(x, Tensor({2, -3}), updates).to_vector<float>(),
            (std::vector<float>{21, 22, 3, 4, 15, 16}));
  // None sizes of indices and updates that disagree at the call: refused,
  // nothing read past the indices.
  auto rows = function(
      [](const Tensor &t, const Tensor &i, const Tensor &u) { return scatter_add(t, i, u); },
      "rows", {.input_signature = {{{3, 2}}, {{kNone}, DType::Int64}, {{kNone, 2}}}});
  expectContains(errorOf([&] {
                   rows(x, Tensor({0, 1}, DType::Int64), zeros({3, 2}));
                 }),
                 "'ember.scatter' op in ember::function 'rows': dim 0 of argument 2 (3) and dim "
                 "0 of argument 1 (2) must be equal");
  EXPECT_EQ(rows(x, Tensor({1}, DType::Int64), ones({1, 2})).to_vector<float>(),
            (std::vector<float>{1, 2, 4, 5, 5, 6}));
}

TEST(Faults, TracedGatherOfRowsVectorizedStillRaises) {
  // Long rows: the inner loop is a vector loop.
  int64_t rows = 5, columns = 67;
  auto take = function([](const Tensor &x, const Tensor &indices) { return gather(x, indices, 0); });
  Tensor x = reshape(arange(0, rows * columns, 1, DType::Float32), {rows, columns});
  expectContains(errorOf([&] { take(x, Tensor({1, 2, 5, 0})); }), "'ember.gather' op index out of range");
  Tensor rowsTaken = take(x, Tensor({4, 0}));
  EXPECT_EQ(rowsTaken.shape(), (Shape{2, columns}));
  EXPECT_EQ(rowsTaken.to_vector<float>()[0], static_cast<float>(4 * columns));
}

TEST(Faults, AnUntakenBranchDoesNotFault) {
  auto safe = function([](const Tensor &a, const Tensor &b) {
    return cond(reduce_min(b) != 0, [&] { return div(a, b); }, [&] { return a * 0; });
  });
  EXPECT_EQ(safe(Tensor({4, 6}), Tensor({0, 3})).to_vector<int32_t>(), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(safe(Tensor({4, 6}), Tensor({2, 3})).to_vector<int32_t>(), (std::vector<int32_t>{2, 2}));
}

TEST(Faults, TracedLoopsRaise) {
  int line = 0;
  auto f = function([&](const Tensor &a, const Tensor &b) {
    return fori_loop(0, 3, [&](const Tensor &i, const std::vector<Tensor> &v) {
      line = __LINE__ + 1;
      return std::vector<Tensor>{div(v[0], b - cast(i, DType::Int32))};
    }, {a})[0];
  });
  std::string message = errorOf([&] { f(Tensor({100}), Tensor({2})); }); // b - 2 == 0
  expectContains(message, here(line));
  expectContains(message, "'ember.div' op integer division by zero");
  EXPECT_EQ(f(Tensor({100}), Tensor({5})).to_vector<int32_t>(), (std::vector<int32_t>{100 / 5 / 4 / 3}));
}

TEST(Faults, TapedDivisionRaisesAndTheTapeGoesOn) {
  Variable w(Tensor({2.f}), "w");
  GradientTape tape;
  Tensor loss = w * w;
  int line = __LINE__ + 1;
  std::string message = errorOf([&] { div(Tensor({1}), Tensor({0})); });
  expectContains(message, here(line));
  expectContains(message, "'ember.div' op integer division by zero");
  std::vector<std::optional<Tensor>> grads = tape.gradient(loss, {w});
  EXPECT_EQ(grads[0]->to_vector<float>(), (std::vector<float>{4.f}));
}

TEST(Faults, AFaultStaysOnItsThread) {
  std::string other;
  std::thread thread([&] { other = errorOf([] { div(Tensor({1}), Tensor({0})); }); });
  thread.join();
  expectContains(other, "integer division by zero");
  EXPECT_EQ(div(Tensor({9}), Tensor({3})).to_vector<int32_t>(), (std::vector<int32_t>{3}));
}

TEST(Faults, ParallelLoopsReportTheirFaults) {
  // Integer divisions with enough work run in blocks of rows on several
  // threads, each thread with its own fault flag: a zero divisor in any
  // block is reported (on the calling thread), and none where there is none.
  set_num_threads(2);
  struct Restore {
    ~Restore() { set_num_threads(0); }
  } restore;
  const int64_t rows = 512, columns = 256;
  auto divide = function([](const Tensor &a, const Tensor &b) { return div(a, b); });
  Tensor numerators = full({rows, columns}, 9, DType::Int32);
  for (int64_t at : {int64_t(0), rows * columns / 2 + 7, rows * columns - 1}) {
    std::vector<int32_t> divisors(static_cast<size_t>(rows * columns), 3);
    divisors[static_cast<size_t>(at)] = 0;
    Tensor zeroAt = Tensor::from_vector(divisors, {rows, columns});
    expectContains(errorOf([&] { divide(numerators, zeroAt); }), "integer division by zero");
    expectContains(errorOf([&] { mod(numerators, zeroAt); }), "integer division by zero");
  }
  Tensor threes = full({rows, columns}, 3, DType::Int32);
  EXPECT_EQ(divide(numerators, threes).to_vector<int32_t>(),
            std::vector<int32_t>(static_cast<size_t>(rows * columns), 3));
  std::string llvm = divide.ir_stages(numerators, threes).llvm_dialect;
  EXPECT_NE(llvm.find("omp.parallel"), std::string::npos) << "the division runs in parallel";
  EXPECT_NE(llvm.find("llvm.atomicrmw _or"), std::string::npos)
      << "each thread's flag or-ed into the shared one\n"
      << llvm;
}

TEST(Faults, EagerGatherNamesTheFirstIndexOutOfRange) {
  // Eagerly, indices are checked where they are (int32 or int64, no copy),
  // and the first one out of range is named; negative ones count from the
  // end, down to -size.
  Tensor x = arange(0, 100, 1, DType::Float32);
  for (DType dtype : {DType::Int32, DType::Int64}) {
    std::vector<int64_t> indices(100000);
    for (size_t i = 0; i < indices.size(); ++i)
      indices[i] = static_cast<int64_t>(i % 200) - 100; // -100 .. 99: all in range
    Tensor good = cast(Tensor::from_vector(indices, {100000}), dtype);
    EXPECT_EQ(gather(x, good).to_vector<float>()[0], 0.f); // -100 is row 0
    indices[4321] = 100;
    indices[70000] = -101;
    Tensor bad = cast(Tensor::from_vector(indices, {100000}), dtype);
    expectContains(errorOf([&] { gather(x, bad); }),
                   "'ember.gather' op index 100 is out of range for axis 0 of size 100");
    indices[4321] = 0;
    bad = cast(Tensor::from_vector(indices, {100000}), dtype);
    expectContains(errorOf([&] { gather(x, bad); }), "index -101 is out of range");
  }
}
