// Randomized differential tests: ops on random shapes, dtypes and thread
// counts, eager and traced, against references computed here in double.
// Each test draws its cases from a fixed seed (the same cases every run);
// EMBER_RANDOMIZED_ROUNDS=<n> runs n cases each (more to hunt for bugs
// locally), and a failure prints the case that failed.
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace ember;

namespace {

int rounds(int byDefault) {
  if (const char *text = std::getenv("EMBER_RANDOMIZED_ROUNDS"))
    return std::max(1, std::atoi(text));
  return byDefault;
}

/// The seed of a test's cases: its own, or EMBER_RANDOMIZED_SEED's.
std::mt19937_64 generator(uint64_t seed) {
  if (const char *text = std::getenv("EMBER_RANDOMIZED_SEED"))
    seed = std::strtoull(text, nullptr, 10);
  return std::mt19937_64(seed);
}

/// A tensor's values and shape on the host, in double.
struct Array {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

Array hostArray(const Tensor &t) { return {t.shape().vec(), t.to_vector<double>()}; }

Tensor float64Tensor(const Array &a) {
  return Tensor::from_vector(a.values, Shape(std::span(a.shape)), DType::Float64);
}

/// d f / d at, element by element, by central differences of step `h`.
Array centralDifferences(const Array &at, double h, const std::function<double(const Array &)> &f) {
  Array slopes = at;
  for (size_t e = 0; e < at.values.size(); ++e) {
    Array plus = at, minus = at;
    plus.values[e] += h;
    minus.values[e] -= h;
    slopes.values[e] = (f(plus) - f(minus)) / (2 * h);
  }
  return slopes;
}

int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// numpy's spelling of a shape, "(2, 3)" (-1 allowed: a reshape's request).
std::string str(const std::vector<int64_t> &shape) { return Shape::str(shape); }

/// Row-major strides of `shape`, 0 where a dim of 1 is broadcast to `out`
/// (right-aligned, numpy's rule).
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    size_t o = out.size() - shape.size() + static_cast<size_t>(d);
    strides[o] = shape[d] == 1 ? 0 : stride;
    stride *= shape[d];
  }
  return strides;
}

std::vector<int64_t> broadcastShape(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// f applied element by element to a and b broadcast together.
Array broadcastBinary(const Array &a, const Array &b, const std::function<double(double, double)> &f) {
  Array out{broadcastShape(a.shape, b.shape), {}};
  std::vector<int64_t> sa = broadcastStrides(a.shape, out.shape),
                       sb = broadcastStrides(b.shape, out.shape);
  int64_t n = count(out.shape);
  out.values.resize(static_cast<size_t>(n));
  std::vector<int64_t> index(out.shape.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      oa += index[d] * sa[d];
      ob += index[d] * sb[d];
    }
    out.values[static_cast<size_t>(e)] = f(a.values[static_cast<size_t>(oa)], b.values[static_cast<size_t>(ob)]);
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < out.shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

bool isFloatType(DType dtype) {
  return dtype == kFloat32 || dtype == kFloat64 || dtype == kFloat16 || dtype == kBFloat16;
}

/// The unit roundoff of `dtype` (0 for integers).
double unitRoundoff(DType dtype) {
  if (dtype == kFloat64)
    return 0x1p-53;
  if (dtype == kFloat32)
    return 0x1p-24;
  if (dtype == kFloat16)
    return 0x1p-11;
  if (dtype == kBFloat16)
    return 0x1p-8;
  return 0;
}

/// Random values of `dtype`: small integers, or floats in [-2, 2] (as the
/// dtype rounds them: references read them back).
Tensor randomTensor(std::mt19937_64 &rng, const std::vector<int64_t> &shape, DType dtype) {
  std::vector<double> values(static_cast<size_t>(count(shape)));
  if (isFloatType(dtype)) {
    std::uniform_real_distribution<double> u(-2, 2);
    for (double &v : values)
      v = u(rng);
  } else {
    std::uniform_int_distribution<int> u(-9, 9);
    for (double &v : values)
      v = u(rng);
  }
  return Tensor::from_vector(values, Shape(std::span(shape)), dtype);
}

template <typename T>
const T &pickOne(std::mt19937_64 &rng, const std::vector<T> &items) {
  return items[std::uniform_int_distribution<size_t>(0, items.size() - 1)(rng)];
}

/// An error's first two lines (compile errors go on with the IR).
std::string firstLine(const std::string &text) {
  size_t end = text.find('\n');
  end = end == std::string::npos ? end : text.find('\n', end + 1);
  return text.substr(0, end);
}

bool coin(std::mt19937_64 &rng, double p = 0.5) { return std::bernoulli_distribution(p)(rng); }

/// Fails the test at the first element off by more than `tolerance[e]`
/// (exactly equal when it is 0), printing `what`.
void expectClose(const Array &got, const Array &want, const std::vector<double> &tolerance,
                 const std::string &what) {
  ASSERT_EQ(got.shape, want.shape) << what;
  for (size_t e = 0; e < want.values.size(); ++e) {
    double g = got.values[e], w = want.values[e];
    if (std::isnan(w) && std::isnan(g))
      continue;
    ASSERT_LE(std::abs(g - w), tolerance[e])
        << what << "\n  element " << e << " of " << want.values.size() << ": got " << g
        << ", want " << w;
  }
}

//===----------------------------------------------------------------------===//
// Matmuls
//===----------------------------------------------------------------------===//

/// Sizes around the blocked kernel's edges: vector widths (8, 16 lanes),
/// panels (32, 48 columns), row blocks (6, 8, 12) and the blocked threshold.
int64_t matmulDim(std::mt19937_64 &rng) {
  static const std::vector<int64_t> dims = {1,  2,  3,  5,  7,  8,  9,  12,  15,  16,  17,  24,
                                            31, 32, 33, 47, 48, 49, 64, 95,  96,  97,  100, 127,
                                            128, 129, 143, 191, 192, 200, 257, 300};
  return pickOne(rng, dims);
}

enum class MatmulForm { Eager, Traced, TracedTransposedA, TracedTransposedB, TracedWithEpilogue };

const char *name(MatmulForm form) {
  switch (form) {
  case MatmulForm::Eager: return "eager";
  case MatmulForm::Traced: return "traced";
  case MatmulForm::TracedTransposedA: return "traced matmul(transpose(at), b)";
  case MatmulForm::TracedTransposedB: return "traced matmul(a, transpose(bt))";
  case MatmulForm::TracedWithEpilogue: return "traced relu(matmul(a, b) + bias)";
  }
  return "";
}

Tensor transposeLastTwo(const Tensor &t) {
  std::vector<int64_t> perm(static_cast<size_t>(t.rank()));
  for (size_t d = 0; d < perm.size(); ++d)
    perm[d] = static_cast<int64_t>(d);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return transpose(t, perm);
}

} // namespace

TEST(Randomized, MatmulsMatchTheirDefinition) {
  std::mt19937_64 rng = generator(20261123);
  const std::vector<DType> dtypes = {kFloat32, kFloat32, kFloat32, kFloat64, kInt32,
                                     kInt64,   kFloat16, kBFloat16};
  const std::vector<MatmulForm> forms = {MatmulForm::Eager, MatmulForm::Traced,
                                         MatmulForm::TracedTransposedA,
                                         MatmulForm::TracedTransposedB,
                                         MatmulForm::TracedWithEpilogue};
  int previousThreads = get_num_threads();
  for (int round = 0, total = rounds(30); round < total; ++round) {
    DType dtype = pickOne(rng, dtypes);
    int64_t m = matmulDim(rng), k = matmulDim(rng), n = matmulDim(rng);
    std::vector<int64_t> batch;
    if (coin(rng, 0.2))
      batch.push_back(std::uniform_int_distribution<int64_t>(1, 3)(rng));
    MatmulForm form = pickOne(rng, forms);
    int threads = coin(rng) ? 1 : 2;
    set_num_threads(threads);
    std::ostringstream what;
    what << "case " << round << ": " << name(form) << " " << dtypeName(dtype) << " " << m << "x"
         << k << " @ " << k << "x" << n << (batch.empty() ? "" : " batched") << ", " << threads
         << " threads";
    SCOPED_TRACE(what.str());

    auto with = [&](std::vector<int64_t> dims) {
      dims.insert(dims.begin(), batch.begin(), batch.end());
      return dims;
    };
    Tensor a = randomTensor(rng, with({m, k}), dtype);
    Tensor b = randomTensor(rng, with({k, n}), dtype);
    Tensor bias = randomTensor(rng, {n}, dtype);
    Tensor c;
    try {
    switch (form) {
    case MatmulForm::Eager:
      c = matmul(a, b);
      break;
    case MatmulForm::Traced:
      c = function([](const Tensor &x, const Tensor &y) { return matmul(x, y); })(a, b);
      break;
    case MatmulForm::TracedTransposedA:
      c = function([](const Tensor &xt, const Tensor &y) {
        return matmul(transposeLastTwo(xt), y);
      })(transposeLastTwo(a), b);
      break;
    case MatmulForm::TracedTransposedB:
      c = function([](const Tensor &x, const Tensor &yt) {
        return matmul(x, transposeLastTwo(yt));
      })(a, transposeLastTwo(b));
      break;
    case MatmulForm::TracedWithEpilogue:
      c = function([](const Tensor &x, const Tensor &y, const Tensor &z) {
        return relu(matmul(x, y) + z);
      })(a, b, bias);
      break;
    }
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    ASSERT_EQ(c.dtype(), dtype);

    Array ha = hostArray(a), hb = hostArray(b), hbias = hostArray(bias);
    int64_t batches = count(batch);
    Array want{with({m, n}), std::vector<double>(static_cast<size_t>(batches * m * n))};
    std::vector<double> tolerance(want.values.size(), 0);
    // Floats: accumulated in float32 at least (16-bit types too), rounded
    // once to the result type, then (epilogue) added and rounded again.
    double accumulate = dtype == kFloat64 ? 0x1p-53 : isFloatType(dtype) ? 0x1p-24 : 0;
    double round_ = unitRoundoff(dtype);
    for (int64_t p = 0; p < batches; ++p)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0, magnitude = 0;
          for (int64_t kk = 0; kk < k; ++kk) {
            double x = ha.values[static_cast<size_t>((p * m + i) * k + kk)];
            double y = hb.values[static_cast<size_t>((p * k + kk) * n + j)];
            sum += x * y;
            magnitude += std::abs(x * y);
          }
          size_t e = static_cast<size_t>((p * m + i) * n + j);
          if (form == MatmulForm::TracedWithEpilogue) {
            magnitude += std::abs(hbias.values[static_cast<size_t>(j)]);
            sum = std::max(0.0, sum + hbias.values[static_cast<size_t>(j)]);
          }
          want.values[e] = sum;
          // float16's subnormals are 2^-24 apart.
          tolerance[e] = (2 * k + 4) * accumulate * magnitude + 3 * round_ * magnitude +
                         (dtype == kFloat16 ? 0x1p-24 : 0);
        }
    expectClose(hostArray(c), want, tolerance, what.str());
  }
  set_num_threads(previousThreads);
}

//===----------------------------------------------------------------------===//
// Elementwise expressions with broadcasting
//===----------------------------------------------------------------------===//

namespace {

/// `v` rounded to `dtype` as ember stores it: 16-bit types through float32
/// (ember computes their ops in float32 and rounds each result).
double roundTo(double v, DType dtype) {
  if (dtype == kFloat32)
    return static_cast<float>(v);
  if (dtype == kFloat16)
    return static_cast<float>(Half(static_cast<float>(v)));
  if (dtype == kBFloat16)
    return static_cast<float>(BFloat16(static_cast<float>(v)));
  if (dtype == kInt32)
    return static_cast<int32_t>(static_cast<int64_t>(v));
  return v;
}

/// A random expression of three inputs: its ops, a bound on its values'
/// magnitude, and a bound on its error against exact arithmetic on the
/// rounded inputs (propagated from the operands', plus a rounding of its own).
struct Expr {
  std::string op; ///< "x0".."x2" for inputs
  std::vector<std::shared_ptr<Expr>> operands;
  double bound = 2, error = 0;
};
using ExprPtr = std::shared_ptr<Expr>;

/// The bound and error of each input when not the default (values drawn by
/// randomTensor: exact).
struct Leaf {
  double bound, error;
};

ExprPtr randomExpr(std::mt19937_64 &rng, DType dtype, int depth, const std::vector<Leaf> &leaves = {}) {
  auto e = std::make_shared<Expr>();
  if (depth == 0 || coin(rng, 0.25)) {
    int input = std::uniform_int_distribution<int>(0, 2)(rng);
    e->op = "x" + std::to_string(input);
    e->bound = isFloatType(dtype) ? 2 : 9;
    if (static_cast<size_t>(input) < leaves.size()) {
      e->bound = leaves[static_cast<size_t>(input)].bound;
      e->error = leaves[static_cast<size_t>(input)].error;
    }
    return e;
  }
  bool isFloat = isFloatType(dtype);
  // Float32 at least: 16-bit ops run in float32; transcendentals are
  // approximations good to a few float32 ulps.
  double u = std::max(unitRoundoff(dtype), isFloat ? 0x1p-24 : 0.0);
  double own = unitRoundoff(dtype);
  std::vector<std::string> unary = {"neg", "abs", "square", "relu"};
  std::vector<std::string> binary = {"add", "sub", "mul", "maximum", "minimum", "where_less"};
  if (isFloat) {
    for (const char *op : {"tanh", "sigmoid", "exp", "sin", "cos"})
      unary.push_back(op);
  } else {
    // Python's floor division and modulo, by abs(b) + 1 and by 2b + 1
    // (negative divisors too); powers 0-2.
    for (const char *op : {"floordiv", "mod", "floordiv_odd", "mod_odd", "pow"})
      binary.push_back(op);
  }
  // Ops whose result jumps (comparisons, truncation) take exact inputs
  // only, whose comparisons cannot flip: ember's rounding may differ from
  // the reference's within the error bound.
  if (leaves.empty()) {
    unary.push_back("truncate"); // floats: cast to int32 and back; integers: through float64
    binary.push_back("mask");    // cast(a > 0 && b < 1, dtype) * a
  }
  bool isUnary = coin(rng, 0.4);
  e->op = isUnary ? pickOne(rng, unary) : pickOne(rng, binary);
  bool exactOperands = e->op == "truncate" || e->op == "mask";
  e->operands.push_back(randomExpr(rng, dtype, exactOperands ? 0 : depth - 1, leaves));
  if (!isUnary)
    e->operands.push_back(randomExpr(rng, dtype, exactOperands ? 0 : depth - 1, leaves));
  const Expr &a = *e->operands[0];
  const Expr *b = isUnary ? nullptr : e->operands[1].get();
  // Keep magnitudes small (integers must not overflow int32; exp must not
  // overflow float16): a growing op on large operands becomes an add.
  double limit = isFloat ? 8 : 1000;
  if (((e->op == "mul" || e->op == "pow") && a.bound * b->bound > limit) ||
      (e->op == "square" && a.bound * a.bound > limit) || (e->op == "exp" && a.bound > 2))
    e->op = isUnary ? "neg" : "add";
  const std::string &op = e->op;
  if (op == "neg" || op == "abs" || op == "relu") {
    e->bound = a.bound;
    e->error = a.error;
  } else if (op == "square") {
    e->bound = a.bound * a.bound;
    e->error = 2 * a.bound * a.error + own * e->bound;
  } else if (op == "tanh" || op == "sigmoid" || op == "sin" || op == "cos") {
    e->bound = 1;
    e->error = a.error + 8 * u + own;
  } else if (op == "exp") {
    e->bound = std::exp(a.bound);
    e->error = e->bound * (a.error + 8 * u) + own * e->bound;
  } else if (op == "add" || op == "sub") {
    e->bound = a.bound + b->bound;
    e->error = a.error + b->error + own * e->bound;
  } else if (op == "mul") {
    e->bound = a.bound * b->bound;
    e->error = a.error * b->bound + b->error * a.bound + own * e->bound;
  } else if (op == "maximum" || op == "minimum") {
    e->bound = std::max(a.bound, b->bound);
    e->error = std::max(a.error, b->error);
  } else if (op == "where_less") { // where(a < b, a, b): a comparison may flip
    e->bound = std::max(a.bound, b->bound);
    e->error = a.error + b->error;
  } else if (op == "pow") { // a ** (|b| % 3)
    e->bound = std::max(1.0, a.bound * a.bound);
  } else if (op == "mod") {
    e->bound = b->bound + 1;
  } else if (op == "mod_odd") {
    e->bound = 2 * b->bound + 1;
  } else { // floordiv, floordiv_odd, truncate, mask: no larger than a
    e->bound = a.bound;
    e->error = a.error;
  }
  return e;
}

std::string describe(const Expr &e) {
  if (e.operands.empty())
    return e.op;
  std::string text = e.op + "(";
  for (size_t i = 0; i < e.operands.size(); ++i)
    text += (i ? ", " : "") + describe(*e.operands[i]);
  return text + ")";
}

Tensor evaluate(const Expr &e, const std::vector<Tensor> &inputs) {
  if (e.operands.empty())
    return inputs[static_cast<size_t>(e.op[1] - '0')];
  Tensor a = evaluate(*e.operands[0], inputs);
  const std::string &op = e.op;
  if (op == "neg") return neg(a);
  if (op == "abs") return abs(a);
  if (op == "square") return square(a);
  if (op == "relu") return relu(a);
  if (op == "tanh") return tanh(a);
  if (op == "sigmoid") return sigmoid(a);
  if (op == "exp") return exp(a);
  if (op == "sin") return sin(a);
  if (op == "cos") return cos(a);
  if (op == "truncate")
    return cast(cast(a, isFloatType(a.dtype()) ? kInt32 : kFloat64), a.dtype());
  Tensor b = evaluate(*e.operands[1], inputs);
  if (op == "add") return a + b;
  if (op == "sub") return a - b;
  if (op == "mul") return a * b;
  if (op == "maximum") return maximum(a, b);
  if (op == "minimum") return minimum(a, b);
  if (op == "where_less") return where(a < b, a, b);
  if (op == "floordiv") return floordiv(a, abs(b) + 1);
  if (op == "floordiv_odd") return floordiv(a, b * 2 + 1);
  if (op == "mod_odd") return a % (b * 2 + 1);
  if (op == "pow") return pow(a, abs(b) % 3);
  if (op == "mask") return cast(logical_and(a > 0, b < 1), a.dtype()) * a;
  return a % (abs(b) + 1);
}

Array evaluate(const Expr &e, const std::vector<Array> &inputs, DType dtype) {
  if (e.operands.empty())
    return inputs[static_cast<size_t>(e.op[1] - '0')];
  Array a = evaluate(*e.operands[0], inputs, dtype);
  const std::string &op = e.op;
  auto unary = [&](const std::function<double(double)> &f) {
    for (double &v : a.values)
      v = roundTo(f(v), dtype);
    return a;
  };
  if (op == "neg") return unary([](double x) { return -x; });
  if (op == "abs") return unary([](double x) { return std::abs(x); });
  if (op == "square") return unary([](double x) { return x * x; });
  if (op == "relu") return unary([](double x) { return std::max(x, 0.0); });
  if (op == "tanh") return unary([](double x) { return std::tanh(x); });
  if (op == "sigmoid") return unary([](double x) { return 1 / (1 + std::exp(-x)); });
  if (op == "exp") return unary([](double x) { return std::exp(x); });
  if (op == "sin") return unary([](double x) { return std::sin(x); });
  if (op == "cos") return unary([](double x) { return std::cos(x); });
  if (op == "truncate") return unary([](double x) { return std::trunc(x); });
  Array b = evaluate(*e.operands[1], inputs, dtype);
  std::function<double(double, double)> f;
  if (op == "add") f = [](double x, double y) { return x + y; };
  else if (op == "sub") f = [](double x, double y) { return x - y; };
  else if (op == "mul") f = [](double x, double y) { return x * y; };
  else if (op == "maximum") f = [](double x, double y) { return std::max(x, y); };
  else if (op == "minimum") f = [](double x, double y) { return std::min(x, y); };
  else if (op == "where_less") f = [](double x, double y) { return x < y ? x : y; };
  // Python's floor division and modulo (the sign of the divisor).
  else if (op == "floordiv") f = [](double x, double y) { return std::floor(x / (std::abs(y) + 1)); };
  else if (op == "floordiv_odd") f = [](double x, double y) { return std::floor(x / (2 * y + 1)); };
  else if (op == "mod_odd") f = [](double x, double y) { double d = 2 * y + 1; return x - std::floor(x / d) * d; };
  else if (op == "pow") f = [](double x, double y) { return std::pow(x, std::fmod(std::abs(y), 3)); };
  else if (op == "mask") f = [](double x, double y) { return x > 0 && y < 1 ? x : 0.0; };
  else f = [](double x, double y) { double d = std::abs(y) + 1; return x - std::floor(x / d) * d; };
  Array out = broadcastBinary(a, b, f);
  for (double &v : out.values)
    v = roundTo(v, dtype);
  return out;
}

/// `got` against `expr` evaluated on the host inputs, within four times its
/// error bound (float16's subnormals are 2^-24 apart).
void expectExpression(const Tensor &got, const Expr &expr, const std::vector<Array> &hostInputs,
                      DType dtype, const std::string &what) {
  Array want = evaluate(expr, hostInputs, dtype);
  // (An expression that does not read every input has the broadcast shape
  // of those it reads.)
  ASSERT_EQ(got.shape().vec(), want.shape) << what;
  ASSERT_EQ(got.dtype(), dtype) << what;
  double tiny = dtype == kFloat16 ? 0x1p-24 : 0;
  expectClose(hostArray(got), want, std::vector<double>(want.values.size(), 4 * expr.error + tiny),
              what);
}

/// A random shape of rank 0-4; sometimes a large one (parallel loops).
std::vector<int64_t> randomShape(std::mt19937_64 &rng) {
  if (coin(rng, 0.2))
    return pickOne(rng, std::vector<std::vector<int64_t>>{
                            {300, 257}, {64, 1000}, {4, 33, 17, 65}, {100000}, {3, 5, 4097}});
  static const std::vector<int64_t> dims = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64};
  std::vector<int64_t> shape(std::uniform_int_distribution<size_t>(0, 4)(rng));
  for (int64_t &d : shape)
    d = pickOne(rng, dims);
  return shape;
}

/// `shape` with some leading dims dropped and some dims set to 1.
std::vector<int64_t> broadcastable(std::mt19937_64 &rng, std::vector<int64_t> shape) {
  shape.erase(shape.begin(), shape.begin() + std::uniform_int_distribution<size_t>(0, shape.size())(rng) *
                                                 coin(rng, 0.3));
  for (int64_t &d : shape)
    if (coin(rng, 0.25))
      d = 1;
  return shape;
}

} // namespace

TEST(Randomized, ElementwiseExpressionsMatchTheirDefinition) {
  std::mt19937_64 rng = generator(7001);
  const std::vector<DType> dtypes = {kFloat32, kFloat32, kFloat64, kInt32, kInt64, kFloat16,
                                     kBFloat16};
  int previousThreads = get_num_threads();
  for (int round = 0, total = rounds(40); round < total; ++round) {
    DType dtype = pickOne(rng, dtypes);
    ExprPtr expr = randomExpr(rng, dtype, std::uniform_int_distribution<int>(1, 5)(rng));
    std::vector<int64_t> shape = randomShape(rng);
    std::vector<Tensor> inputs;
    std::vector<Array> hostInputs;
    for (int i = 0; i < 3; ++i) {
      inputs.push_back(randomTensor(rng, broadcastable(rng, shape), dtype));
      hostInputs.push_back(hostArray(inputs.back()));
    }
    bool traced = coin(rng);
    int threads = coin(rng) ? 1 : 2;
    set_num_threads(threads);
    std::ostringstream what;
    what << "case " << round << ": " << (traced ? "traced " : "eager ") << dtypeName(dtype) << " "
         << describe(*expr) << " of " << str(inputs[0].shape().vec()) << ", "
         << str(inputs[1].shape().vec()) << ", " << str(inputs[2].shape().vec()) << ", "
         << threads << " threads";
    Tensor got;
    try {
      got = traced ? function([&](const Tensor &x0, const Tensor &x1, const Tensor &x2) {
                       return evaluate(*expr, {x0, x1, x2});
                     })(inputs[0], inputs[1], inputs[2])
                   : evaluate(*expr, inputs);
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    expectExpression(got, *expr, hostInputs, dtype, what.str());
  }
  set_num_threads(previousThreads);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST(Randomized, ReductionsMatchTheirDefinition) {
  std::mt19937_64 rng = generator(9001);
  const std::vector<DType> dtypes = {kFloat32, kFloat32, kFloat64, kInt32, kInt64, kFloat16,
                                     kBFloat16};
  const std::vector<std::string> ops = {"sum", "mean", "max", "min", "prod", "argmax"};
  int previousThreads = get_num_threads();
  for (int round = 0, total = rounds(40); round < total; ++round) {
    DType dtype = pickOne(rng, dtypes);
    std::string op = pickOne(rng, ops);
    std::vector<int64_t> shape = randomShape(rng);
    if (shape.empty())
      shape = {7};
    int64_t rank = static_cast<int64_t>(shape.size());
    // Products overflow (int64 too, float16 past 65504): products of at
    // most 16 elements, integers in [-2, 2].
    if (op == "prod")
      for (int64_t &d : shape)
        d = std::min<int64_t>(d, 2);
    std::vector<int64_t> axes;
    if (op == "argmax") {
      axes.push_back(std::uniform_int_distribution<int64_t>(0, rank - 1)(rng));
    } else {
      for (int64_t d = 0; d < rank; ++d)
        if (coin(rng, 0.4))
          axes.push_back(coin(rng, 0.3) ? d - rank : d); // some counted from the end
    }
    bool keepdims = coin(rng, 0.3);
    bool traced = coin(rng);
    int threads = coin(rng) ? 1 : 2;
    set_num_threads(threads);
    Tensor x = randomTensor(rng, shape, dtype);
    if (op == "prod" && !isFloatType(dtype))
      x = x % 5 - 2;
    std::ostringstream what;
    what << "case " << round << ": " << (traced ? "traced " : "eager ") << op << " "
         << dtypeName(dtype) << str(shape) << " axes [";
    for (int64_t a : axes)
      what << a << " ";
    what << "]" << (keepdims ? " keepdims" : "") << ", " << threads << " threads";
    auto reduce = [&](const Tensor &t) {
      if (op == "sum") return reduce_sum(t, axes, keepdims);
      if (op == "mean") return reduce_mean(t, axes, keepdims);
      if (op == "max") return reduce_max(t, axes, keepdims);
      if (op == "min") return reduce_min(t, axes, keepdims);
      if (op == "prod") return reduce_prod(t, axes, keepdims);
      return argmax(t, axes[0], keepdims);
    };
    Tensor got;
    try {
      got = traced ? function([&](const Tensor &t) { return reduce(t); })(x) : reduce(x);
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }

    // The reference: every element folded into its output position.
    std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty() && op != "argmax");
    for (int64_t a : axes)
      reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
    std::vector<int64_t> outShape;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[static_cast<size_t>(d)] || keepdims)
        outShape.push_back(reduced[static_cast<size_t>(d)] ? 1 : shape[static_cast<size_t>(d)]);
    Array hx = hostArray(x);
    size_t outCount = static_cast<size_t>(count(outShape));
    std::vector<double> acc(outCount, op == "prod" ? 1 : 0), magnitude(outCount, 0);
    std::vector<double> best(outCount, -INFINITY), worst(outCount, INFINITY), at(outCount, 0);
    std::vector<int64_t> seen(outCount, 0), index(static_cast<size_t>(rank), 0);
    for (size_t e = 0; e < hx.values.size(); ++e) {
      size_t o = 0;
      for (int64_t d = 0; d < rank; ++d)
        if (!reduced[static_cast<size_t>(d)])
          o = o * static_cast<size_t>(shape[static_cast<size_t>(d)]) + static_cast<size_t>(index[static_cast<size_t>(d)]);
      double v = hx.values[e];
      acc[o] = op == "prod" ? acc[o] * v : acc[o] + v;
      magnitude[o] = op == "prod" ? (seen[o] ? magnitude[o] * std::abs(v) : std::abs(v))
                                  : magnitude[o] + std::abs(v);
      if (v > best[o]) {
        best[o] = v;
        if (op == "argmax")
          at[o] = static_cast<double>(index[static_cast<size_t>(axes[0] < 0 ? axes[0] + rank : axes[0])]);
      }
      worst[o] = std::min(worst[o], v);
      ++seen[o];
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)])
          break;
        index[static_cast<size_t>(d)] = 0;
      }
    }
    Array want{outShape, std::vector<double>(outCount)};
    std::vector<double> tolerance(outCount, 0);
    bool isFloat = isFloatType(dtype);
    double u = isFloat ? std::max(unitRoundoff(dtype), dtype == kFloat64 ? 0.0 : 0x1p-24) : 0;
    for (size_t o = 0; o < outCount; ++o) {
      double n = static_cast<double>(seen[o]);
      if (op == "sum" || op == "prod") {
        want.values[o] = acc[o];
        tolerance[o] = (2 * n + 2) * u * magnitude[o] + 2 * unitRoundoff(dtype) * magnitude[o];
      } else if (op == "mean") {
        // Integer means truncate toward zero (TensorFlow).
        want.values[o] = isFloat ? acc[o] / n : std::trunc(acc[o] / n);
        tolerance[o] = ((2 * n + 2) * u * magnitude[o] + 2 * unitRoundoff(dtype) * magnitude[o]) / n;
      } else if (op == "max") {
        want.values[o] = best[o];
      } else if (op == "min") {
        want.values[o] = worst[o];
      } else {
        want.values[o] = at[o];
      }
      if (dtype == kFloat16)
        tolerance[o] += 0x1p-24;
    }
    ASSERT_EQ(got.dtype(), op == "argmax" ? kInt64 : dtype) << what.str();
    expectClose(hostArray(got), want, tolerance, what.str());
  }
  set_num_threads(previousThreads);
}

//===----------------------------------------------------------------------===//
// Chains of shape ops
//===----------------------------------------------------------------------===//

namespace {

/// One data-movement op with its arguments drawn for the shape it gets, and
/// the same op on host arrays.
struct ShapeOp {
  std::string text;
  std::function<Tensor(const Tensor &)> apply;
  std::function<Array(const Array &)> reference;
};

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(d) + 1] * shape[static_cast<size_t>(d) + 1];
  return strides;
}

/// An array of `shape` whose element at each index is at(offsets of the
/// index's coordinates).
Array build(const std::vector<int64_t> &shape,
            const std::function<double(const std::vector<int64_t> &)> &at) {
  Array out{shape, std::vector<double>(static_cast<size_t>(count(shape)))};
  std::vector<int64_t> index(shape.size(), 0);
  for (double &v : out.values) {
    v = at(index);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)])
        break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

double element(const Array &a, const std::vector<int64_t> &index) {
  std::vector<int64_t> strides = stridesOf(a.shape);
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d)
    offset += index[d] * strides[d];
  return a.values[static_cast<size_t>(offset)];
}

/// Python's slice(start, limit, stride).indices(dim): the first index, the
/// step and the count.
std::tuple<int64_t, int64_t, int64_t> sliceIndices(int64_t start, int64_t limit, int64_t stride,
                                                   int64_t dim) {
  auto clampBound = [&](int64_t v, int64_t none, int64_t low, int64_t high) {
    if (v == kNone)
      return none;
    if (v < 0)
      v += dim;
    return std::clamp(v, low, high);
  };
  int64_t first, last, n;
  if (stride > 0) {
    first = clampBound(start, 0, 0, dim);
    last = clampBound(limit, dim, 0, dim);
    n = last > first ? (last - first + stride - 1) / stride : 0;
  } else {
    first = clampBound(start, dim - 1, -1, dim - 1);
    last = clampBound(limit, -1, -1, dim - 1);
    n = first > last ? (first - last - stride - 1) / -stride : 0;
  }
  return {first, stride, n};
}

/// Random indices along a random axis of `shape` (negative ones counting
/// from the end, repeats allowed), for a gather or a scatter: the shape
/// gathered, and where each of its elements comes from.
struct AxisIndices {
  int64_t axis, dim;
  std::vector<int64_t> indexShape, indices, gatheredShape;
  Tensor tensor;
  /// The element of the operand that the gathered element at `index` is.
  std::vector<int64_t> source(const std::vector<int64_t> &index) const {
    int64_t indexRank = static_cast<int64_t>(indexShape.size());
    std::vector<int64_t> from(index.begin(), index.begin() + axis);
    std::vector<int64_t> at(index.begin() + axis, index.begin() + axis + indexRank);
    int64_t i = indices.empty()
                    ? 0
                    : indices[static_cast<size_t>(std::inner_product(
                          at.begin(), at.end(), stridesOf(indexShape).begin(), int64_t(0)))];
    from.push_back(i < 0 ? i + dim : i);
    from.insert(from.end(), index.begin() + axis + indexRank, index.end());
    return from;
  }
};

std::optional<AxisIndices> randomAxisIndices(std::mt19937_64 &rng,
                                             const std::vector<int64_t> &shape) {
  AxisIndices at;
  at.axis = std::uniform_int_distribution<int64_t>(0, static_cast<int64_t>(shape.size()) - 1)(rng);
  at.dim = shape[static_cast<size_t>(at.axis)];
  if (at.dim == 0)
    return std::nullopt;
  at.indexShape.resize(std::uniform_int_distribution<size_t>(0, 2)(rng));
  for (int64_t &d : at.indexShape)
    d = std::uniform_int_distribution<int64_t>(1, 4)(rng);
  at.indices.resize(static_cast<size_t>(count(at.indexShape)));
  for (int64_t &i : at.indices)
    i = std::uniform_int_distribution<int64_t>(-at.dim, at.dim - 1)(rng);
  at.tensor = Tensor::from_vector(at.indices, Shape(std::span(at.indexShape)), kInt64);
  at.gatheredShape.assign(shape.begin(), shape.begin() + at.axis);
  at.gatheredShape.insert(at.gatheredShape.end(), at.indexShape.begin(), at.indexShape.end());
  at.gatheredShape.insert(at.gatheredShape.end(), shape.begin() + at.axis + 1, shape.end());
  return at;
}

ShapeOp randomShapeOp(std::mt19937_64 &rng, const std::vector<int64_t> &shape, DType dtype) {
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<std::string> kinds = {"reshape", "broadcast_to", "concat"};
  if (rank >= 1)
    for (const char *kind : {"transpose", "slice", "slice", "gather", "scatter"})
      kinds.push_back(kind);
  std::string kind = pickOne(rng, kinds);
  std::ostringstream text;
  if (kind == "transpose") {
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d)
      perm[static_cast<size_t>(d)] = d;
    std::shuffle(perm.begin(), perm.end(), rng);
    text << "transpose([";
    for (int64_t p : perm)
      text << p << " ";
    text << "])";
    std::vector<int64_t> out(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d)
      out[static_cast<size_t>(d)] = shape[static_cast<size_t>(perm[static_cast<size_t>(d)])];
    return {text.str(), [perm](const Tensor &t) { return transpose(t, perm); },
            [perm, out](const Array &a) {
              return build(out, [&](const std::vector<int64_t> &index) {
                std::vector<int64_t> from(index.size());
                for (size_t d = 0; d < index.size(); ++d)
                  from[static_cast<size_t>(perm[d])] = index[d];
                return element(a, from);
              });
            }};
  }
  if (kind == "slice") {
    // Bounds of every kind: omitted, negative, past the end; strides of
    // either sign; fewer entries than dims.
    int64_t entries = std::uniform_int_distribution<int64_t>(1, rank)(rng);
    std::vector<int64_t> start, limit, stride;
    auto bound = [&](int64_t dim) {
      switch (std::uniform_int_distribution<int>(0, 4)(rng)) {
      case 0: return kNone;
      case 1: return -std::uniform_int_distribution<int64_t>(1, dim + 1)(rng);
      case 2: return dim + 2;
      default: return std::uniform_int_distribution<int64_t>(0, dim)(rng);
      }
    };
    text << "slice(";
    for (int64_t d = 0; d < entries; ++d) {
      int64_t dim = shape[static_cast<size_t>(d)];
      start.push_back(bound(dim));
      limit.push_back(bound(dim));
      stride.push_back(pickOne(rng, std::vector<int64_t>{1, 1, 1, 2, 3, -1, -2}));
      auto show = [](int64_t v) { return v == kNone ? std::string("None") : std::to_string(v); };
      text << show(start.back()) << ":" << show(limit.back()) << ":" << stride.back() << " ";
    }
    text << ")";
    std::vector<int64_t> out = shape, first(static_cast<size_t>(rank), 0),
                         step(static_cast<size_t>(rank), 1);
    for (int64_t d = 0; d < entries; ++d) {
      auto [f, s, n] = sliceIndices(start[static_cast<size_t>(d)], limit[static_cast<size_t>(d)],
                                    stride[static_cast<size_t>(d)], shape[static_cast<size_t>(d)]);
      first[static_cast<size_t>(d)] = f;
      step[static_cast<size_t>(d)] = s;
      out[static_cast<size_t>(d)] = n;
    }
    return {text.str(),
            [start, limit, stride](const Tensor &t) { return slice(t, start, limit, stride); },
            [first, step, out](const Array &a) {
              return build(out, [&](const std::vector<int64_t> &index) {
                std::vector<int64_t> from(index.size());
                for (size_t d = 0; d < index.size(); ++d)
                  from[d] = first[d] + index[d] * step[d];
                return element(a, from);
              });
            }};
  }
  if (kind == "gather" || kind == "scatter") {
    std::optional<AxisIndices> picked = randomAxisIndices(rng, shape);
    if (!picked)
      return randomShapeOp(rng, shape, dtype);
    AxisIndices at = *picked;
    if (kind == "gather") {
      text << "gather(axis " << at.axis << ", indices " << str(at.indexShape) << ")";
      return {text.str(), [at](const Tensor &t) { return gather(t, at.tensor, at.axis); },
              [at](const Array &a) {
                return build(at.gatheredShape, [&](const std::vector<int64_t> &index) {
                  return element(a, at.source(index));
                });
              }};
    }
    // Updates of gather's shape put back along an axis, indices repeated and
    // negative: replaced (the last in row-major order wins) or, except in
    // 16-bit floats (rounded through float32), added, each sum rounded.
    Tensor updates = randomTensor(rng, at.gatheredShape, dtype);
    Array hostUpdates = hostArray(updates);
    bool add = dtype != kFloat16 && dtype != kBFloat16 && coin(rng);
    text << (add ? "scatter_add" : "scatter_update") << "(axis " << at.axis << ", indices "
         << str(at.indexShape) << ")";
    return {text.str(),
            [at, updates, add](const Tensor &t) {
              return add ? scatter_add(t, at.tensor, updates, at.axis)
                         : scatter_update(t, at.tensor, updates, at.axis);
            },
            [=](const Array &a) {
              Array out = a;
              std::vector<int64_t> strides = stridesOf(a.shape);
              build(at.gatheredShape, [&](const std::vector<int64_t> &u) {
                std::vector<int64_t> to = at.source(u);
                double update = element(hostUpdates, u);
                double &v = out.values[static_cast<size_t>(
                    std::inner_product(to.begin(), to.end(), strides.begin(), int64_t(0)))];
                v = add ? roundTo(v + update, dtype) : update;
                return 0.0;
              });
              return out;
            }};
  }
  if (kind == "reshape") {
    // Merge two neighbouring dims, split one by a divisor, or flatten.
    std::vector<int64_t> out = shape;
    int choice = std::uniform_int_distribution<int>(0, 2)(rng);
    if (choice == 0 && rank >= 2) {
      size_t d = std::uniform_int_distribution<size_t>(0, static_cast<size_t>(rank) - 2)(rng);
      out[d] *= out[d + 1];
      out.erase(out.begin() + static_cast<int64_t>(d) + 1);
    } else if (choice == 1 && rank >= 1 && rank < 6) {
      size_t d = std::uniform_int_distribution<size_t>(0, static_cast<size_t>(rank) - 1)(rng);
      std::vector<int64_t> divisors;
      for (int64_t f = 1; f <= out[d]; ++f)
        if (out[d] % f == 0)
          divisors.push_back(f);
      int64_t f = pickOne(rng, divisors);
      out.insert(out.begin() + static_cast<int64_t>(d), f);
      out[d + 1] /= f;
    } else {
      out = {count(shape)};
    }
    // Sometimes one dim inferred (-1).
    std::vector<int64_t> request = out;
    // (Not of an empty tensor: numpy and TensorFlow cannot infer it there.)
    if (!request.empty() && count(shape) > 0 && coin(rng, 0.3))
      request[std::uniform_int_distribution<size_t>(0, request.size() - 1)(rng)] = -1;
    text << "reshape(" << str(request) << ")";
    return {text.str(), [request](const Tensor &t) { return reshape(t, request); },
            [out](const Array &a) { return Array{out, a.values}; }};
  }
  if (kind == "broadcast_to") {
    std::vector<int64_t> out = shape;
    out.insert(out.begin(), std::uniform_int_distribution<int64_t>(1, 3)(rng));
    text << "broadcast_to(" << str(out) << ")";
    return {text.str(), [out](const Tensor &t) { return broadcast_to(t, Shape(std::span(out))); },
            [out](const Array &a) {
              return build(out, [&](const std::vector<int64_t> &index) {
                return element(a, std::vector<int64_t>(index.begin() + 1, index.end()));
              });
            }};
  }
  // concat with a random tensor along an axis (a new one when rank 0 has none).
  if (rank == 0)
    return randomShapeOp(rng, shape, dtype);
  int64_t axis = std::uniform_int_distribution<int64_t>(0, rank - 1)(rng);
  std::vector<int64_t> otherShape = shape;
  otherShape[static_cast<size_t>(axis)] = std::uniform_int_distribution<int64_t>(0, 3)(rng);
  Tensor other = randomTensor(rng, otherShape, dtype);
  Array hostOther = hostArray(other);
  bool otherFirst = coin(rng);
  text << "concat(" << (otherFirst ? "other " + str(otherShape) + ", x" : "x, other " + str(otherShape))
       << ", axis " << axis << ")";
  std::vector<int64_t> out = shape;
  out[static_cast<size_t>(axis)] += otherShape[static_cast<size_t>(axis)];
  return {text.str(),
          [other, axis, otherFirst](const Tensor &t) {
            return otherFirst ? concat({other, t}, axis) : concat({t, other}, axis);
          },
          [=](const Array &a) {
            const Array &first = otherFirst ? hostOther : a, &second = otherFirst ? a : hostOther;
            int64_t split = first.shape[static_cast<size_t>(axis)];
            return build(out, [&](const std::vector<int64_t> &index) {
              std::vector<int64_t> at = index;
              if (at[static_cast<size_t>(axis)] < split)
                return element(first, at);
              at[static_cast<size_t>(axis)] -= split;
              return element(second, at);
            });
          }};
}

} // namespace

TEST(Randomized, ShapeOpChainsMoveTheRightElements) {
  std::mt19937_64 rng = generator(5003);
  const std::vector<DType> dtypes = {kFloat32, kFloat64, kInt32, kInt64, kFloat16, kBFloat16};
  for (int round = 0, total = rounds(40); round < total; ++round) {
    DType dtype = pickOne(rng, dtypes);
    std::vector<int64_t> shape = randomShape(rng);
    if (count(shape) > 5000)
      shape = {17, 33, 9};
    Tensor x = randomTensor(rng, shape, dtype);
    std::vector<ShapeOp> chain;
    std::vector<int64_t> current = shape;
    std::ostringstream what;
    bool traced = coin(rng);
    // Traced chains sometimes compute between the moves (fused with them).
    bool compute = traced && coin(rng);
    what << "case " << round << ": " << (traced ? "traced " : "eager ") << dtypeName(dtype)
         << str(shape) << (compute ? ", +1 after each" : "");
    for (int i = 0, n = std::uniform_int_distribution<int>(1, 4)(rng); i < n; ++i) {
      chain.push_back(randomShapeOp(rng, current, dtype));
      current = chain.back().reference(Array{current, std::vector<double>(
                                                          static_cast<size_t>(count(current)))})
                    .shape;
      what << " -> " << chain.back().text;
    }
    auto run = [&](const Tensor &t) {
      Tensor y = t;
      for (const ShapeOp &op : chain) {
        y = op.apply(y);
        if (compute)
          y = y + 1;
      }
      return y;
    };
    Tensor got;
    try {
      got = traced ? function([&](const Tensor &t) { return run(t); })(x) : run(x);
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    Array want = hostArray(x);
    for (const ShapeOp &op : chain) {
      want = op.reference(want);
      if (compute)
        for (double &v : want.values)
          v = roundTo(v + 1, dtype);
    }
    expectClose(hostArray(got), want, std::vector<double>(want.values.size(), 0), what.str());
  }
}

//===----------------------------------------------------------------------===//
// Gradients of random expressions against finite differences
//===----------------------------------------------------------------------===//

namespace {

/// What follows the expression in a gradient case: a reduction, a softmax
/// or a matmul (or nothing), on tensors and on host arrays.
struct Head {
  std::string text;
  std::function<Tensor(const Tensor &)> apply;
  std::function<Array(const Array &)> reference;
};

/// Sums (or means) of `a` over `axes` (all when empty).
Array reduceReference(const Array &a, std::vector<int64_t> axes, bool keepdims, bool mean) {
  int64_t rank = static_cast<int64_t>(a.shape.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  for (int64_t axis : axes)
    reduced[static_cast<size_t>(axis)] = true;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d)
    kept.push_back(reduced[static_cast<size_t>(d)] ? 1 : a.shape[static_cast<size_t>(d)]);
  Array sums = build(kept, [](const std::vector<int64_t> &) { return 0.0; });
  std::vector<int64_t> strides = stridesOf(kept);
  double n = static_cast<double>(count(a.shape)) / static_cast<double>(std::max<int64_t>(count(kept), 1));
  build(a.shape, [&](const std::vector<int64_t> &index) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[static_cast<size_t>(d)])
        o += index[static_cast<size_t>(d)] * strides[static_cast<size_t>(d)];
    sums.values[static_cast<size_t>(o)] += element(a, index) / (mean ? n : 1);
    return 0.0;
  });
  if (!keepdims) {
    sums.shape.clear();
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[static_cast<size_t>(d)])
        sums.shape.push_back(a.shape[static_cast<size_t>(d)]);
  }
  return sums;
}

Head randomHead(std::mt19937_64 &rng, const std::vector<int64_t> &shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<std::string> kinds = {"none", "reduce_sum", "reduce_mean"};
  if (rank >= 1)
    for (const char *kind : {"softmax", "log_softmax", "matmul"})
      kinds.push_back(kind);
  std::string kind = pickOne(rng, kinds);
  if (kind == "none")
    return {"", [](const Tensor &t) { return t; }, [](const Array &a) { return a; }};
  if (kind == "reduce_sum" || kind == "reduce_mean") {
    std::vector<int64_t> axes;
    for (int64_t d = 0; d < rank; ++d)
      if (coin(rng, 0.5))
        axes.push_back(d);
    bool keepdims = coin(rng, 0.3), mean = kind == "reduce_mean";
    std::ostringstream text;
    text << kind << "(axes [";
    for (int64_t axis : axes)
      text << axis << " ";
    text << "]" << (keepdims ? ", keepdims" : "") << ")";
    return {text.str(),
            [=](const Tensor &t) { return mean ? reduce_mean(t, axes, keepdims) : reduce_sum(t, axes, keepdims); },
            [=](const Array &a) { return reduceReference(a, axes, keepdims, mean); }};
  }
  if (kind == "matmul") {
    // E reshaped to [rows, last] times a fixed [last, 3].
    int64_t last = shape.back();
    Tensor right = randomTensor(rng, {last, 3}, kFloat64);
    Array hostRight = hostArray(right);
    return {"matmul(reshape(-1, " + std::to_string(last) + "), [" + std::to_string(last) + ", 3])",
            [=](const Tensor &t) { return matmul(reshape(t, {-1, last}), right); },
            [=](const Array &a) {
              int64_t rows = count(a.shape) / last;
              return build({rows, 3}, [&](const std::vector<int64_t> &i) {
                double sum = 0;
                for (int64_t p = 0; p < last; ++p)
                  sum += a.values[static_cast<size_t>(i[0] * last + p)] *
                         hostRight.values[static_cast<size_t>(p * 3 + i[1])];
                return sum;
              });
            }};
  }
  int64_t axis = std::uniform_int_distribution<int64_t>(0, rank - 1)(rng);
  bool logarithm = kind == "log_softmax";
  return {kind + "(axis " + std::to_string(axis) + ")",
          [=](const Tensor &t) { return logarithm ? nn::log_softmax(t, axis) : nn::softmax(t, axis); },
          [=](const Array &a) {
            std::vector<int64_t> strides = stridesOf(a.shape);
            return build(a.shape, [&](const std::vector<int64_t> &index) {
              std::vector<int64_t> at = index;
              double sum = 0;
              for (int64_t j = 0; j < a.shape[static_cast<size_t>(axis)]; ++j) {
                at[static_cast<size_t>(axis)] = j;
                sum += std::exp(element(a, at));
              }
              double x = element(a, index);
              return logarithm ? x - std::log(sum) : std::exp(x) / sum;
            });
          }};
}

} // namespace

TEST(Randomized, GradientsMatchFiniteDifferences) {
  std::mt19937_64 rng = generator(3001);
  for (int round = 0, total = rounds(25); round < total; ++round) {
    ExprPtr expr = randomExpr(rng, kFloat64, std::uniform_int_distribution<int>(1, 4)(rng));
    std::vector<int64_t> shape = randomShape(rng);
    if (count(shape) > 24)
      shape = {pickOne(rng, std::vector<int64_t>{1, 2, 3}), pickOne(rng, std::vector<int64_t>{1, 4, 5})};
    std::vector<Tensor> inputs;
    std::vector<Array> hostInputs;
    for (int i = 0; i < 3; ++i) {
      inputs.push_back(randomTensor(rng, broadcastable(rng, shape), kFloat64));
      hostInputs.push_back(hostArray(inputs.back()));
    }
    Head head = randomHead(rng, evaluate(*expr, hostInputs, kFloat64).shape);
    // The sum of the result weighted: every output element's gradient
    // differs.
    Array weights = head.reference(evaluate(*expr, hostInputs, kFloat64));
    for (size_t e = 0; e < weights.values.size(); ++e)
      weights.values[e] = 0.5 + 0.25 * static_cast<double>(e % 5);
    Tensor weightTensor = float64Tensor(weights);
    std::ostringstream what;
    what << "case " << round << ": grad of sum(w * " << head.text << (head.text.empty() ? "" : " of ")
         << describe(*expr) << ") at " << str(inputs[0].shape().vec()) << ", "
         << str(inputs[1].shape().vec()) << ", " << str(inputs[2].shape().vec());
    std::vector<Tensor> gradients;
    try {
      gradients = grad([&](const Tensor &x0, const Tensor &x1, const Tensor &x2) {
        return reduce_sum(head.apply(evaluate(*expr, {x0, x1, x2})) * weightTensor);
      })(inputs[0], inputs[1], inputs[2]);
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    ASSERT_EQ(gradients.size(), 3u) << what.str();
    // The eager tape's gradients: the same (both differentiate with
    // ember-autodiff; inputs the result does not reach get zeros).
    {
      GradientTape tape;
      for (const Tensor &input : inputs)
        tape.watch(input);
      Tensor value = reduce_sum(head.apply(evaluate(*expr, inputs)) * weightTensor);
      std::vector<Tensor> taped =
          tape.gradient(value, {inputs[0], inputs[1], inputs[2]}, UnconnectedGradients::Zero);
      for (size_t i = 0; i < 3; ++i) {
        Array want = hostArray(gradients[i]);
        std::vector<double> tolerance(want.values.size());
        for (size_t e = 0; e < want.values.size(); ++e)
          tolerance[e] = 1e-12 * (1 + std::abs(want.values[e]) + expr->bound * 4);
        expectClose(hostArray(taped[i]), want, tolerance,
                    what.str() + ", tape against grad, input " + std::to_string(i));
      }
    }
    auto loss = [&](const std::vector<Array> &at) {
      Array value = head.reference(evaluate(*expr, at, kFloat64));
      double sum = 0;
      for (size_t e = 0; e < value.values.size(); ++e)
        sum += value.values[e] * weights.values[e];
      return sum;
    };
    for (size_t i = 0; i < 3; ++i) {
      // Central differences, step 1e-6: error about 1e-9 of the curvature,
      // unless a kink (abs, relu, max, a flipped comparison) lies within
      // the step, which a random point almost never has.
      Array want = centralDifferences(hostInputs[i], 1e-6, [&](const Array &input) {
        std::vector<Array> at = hostInputs;
        at[i] = input;
        return loss(at);
      });
      std::vector<double> tolerance(want.values.size());
      for (size_t e = 0; e < want.values.size(); ++e)
        tolerance[e] = 1e-5 * (1 + std::abs(want.values[e]) + expr->bound * 4);
      expectClose(hostArray(gradients[i]), want, tolerance,
                  what.str() + ", input " + std::to_string(i));
    }
  }
}

//===----------------------------------------------------------------------===//
// Convolutions and pooling (TensorFlow's NHWC / HWIO semantics)
//===----------------------------------------------------------------------===//

namespace {

/// A window op's geometry along one spatial dim: the output size and the
/// padding before, as TensorFlow computes them.
struct Window {
  int64_t out, before;
};

Window window(int64_t size, int64_t taps, int64_t stride, int64_t dilation, const std::string &padding,
              std::array<int64_t, 2> explicitPadding) {
  int64_t reach = (taps - 1) * dilation + 1;
  if (padding == "SAME") {
    int64_t out = (size + stride - 1) / stride;
    int64_t total = std::max<int64_t>((out - 1) * stride + reach - size, 0);
    return {out, total / 2};
  }
  if (padding == "VALID")
    return {(size - reach) / stride + 1, 0};
  int64_t padded = size + explicitPadding[0] + explicitPadding[1];
  return {(padded - reach) / stride + 1, explicitPadding[0]};
}

struct Geometry {
  std::array<int64_t, 2> strides, dilations;
  std::string padding; ///< "SAME", "VALID" or "EXPLICIT"
  std::array<int64_t, 4> explicitPadding;
  std::string text() const {
    std::ostringstream out;
    out << "strides " << strides[0] << "," << strides[1] << " dilations " << dilations[0] << ","
        << dilations[1] << " padding " << padding;
    if (padding == "EXPLICIT")
      out << " " << explicitPadding[0] << "," << explicitPadding[1] << "," << explicitPadding[2]
          << "," << explicitPadding[3];
    return out.str();
  }
};

/// conv2d of host arrays: input [N, H, W, C], filters [KH, KW, C, F].
Array conv2dReference(const Array &input, const Array &filters, const Geometry &g) {
  int64_t n = input.shape[0], h = input.shape[1], w = input.shape[2], c = input.shape[3];
  int64_t kh = filters.shape[0], kw = filters.shape[1], f = filters.shape[3];
  Window wh = window(h, kh, g.strides[0], g.dilations[0], g.padding,
                     {g.explicitPadding[0], g.explicitPadding[1]});
  Window ww = window(w, kw, g.strides[1], g.dilations[1], g.padding,
                     {g.explicitPadding[2], g.explicitPadding[3]});
  return build({n, wh.out, ww.out, f}, [&](const std::vector<int64_t> &i) {
    double sum = 0;
    for (int64_t a = 0; a < kh; ++a)
      for (int64_t b = 0; b < kw; ++b) {
        int64_t y = i[1] * g.strides[0] - wh.before + a * g.dilations[0];
        int64_t x = i[2] * g.strides[1] - ww.before + b * g.dilations[1];
        if (y < 0 || y >= h || x < 0 || x >= w)
          continue;
        for (int64_t ch = 0; ch < c; ++ch)
          sum += element(input, {i[0], y, x, ch}) * element(filters, {a, b, ch, i[3]});
      }
    return sum;
  });
}

/// max_pool2d / avg_pool2d of a host array ("SAME" or "VALID").
Array poolReference(const Array &input, std::array<int64_t, 2> ksize, const Geometry &g, bool max) {
  int64_t h = input.shape[1], w = input.shape[2];
  Window wh = window(h, ksize[0], g.strides[0], 1, g.padding, {0, 0});
  Window ww = window(w, ksize[1], g.strides[1], 1, g.padding, {0, 0});
  return build({input.shape[0], wh.out, ww.out, input.shape[3]}, [&](const std::vector<int64_t> &i) {
    double best = -INFINITY, sum = 0;
    int64_t taken = 0;
    for (int64_t a = 0; a < ksize[0]; ++a)
      for (int64_t b = 0; b < ksize[1]; ++b) {
        int64_t y = i[1] * g.strides[0] - wh.before + a, x = i[2] * g.strides[1] - ww.before + b;
        if (y < 0 || y >= h || x < 0 || x >= w)
          continue;
        double v = element(input, {i[0], y, x, i[3]});
        best = std::max(best, v);
        sum += v;
        ++taken;
      }
    return max ? best : sum / static_cast<double>(taken);
  });
}

Geometry randomGeometry(std::mt19937_64 &rng, bool dilated, bool explicitAllowed) {
  Geometry g;
  g.strides = {std::uniform_int_distribution<int64_t>(1, 3)(rng),
               std::uniform_int_distribution<int64_t>(1, 3)(rng)};
  g.dilations = {1, 1};
  if (dilated && coin(rng, 0.3))
    g.dilations = {std::uniform_int_distribution<int64_t>(1, 2)(rng),
                   std::uniform_int_distribution<int64_t>(1, 3)(rng)};
  std::vector<std::string> paddings = {"SAME", "VALID"};
  if (explicitAllowed)
    paddings.push_back("EXPLICIT");
  g.padding = pickOne(rng, paddings);
  for (int64_t &p : g.explicitPadding)
    p = std::uniform_int_distribution<int64_t>(0, 2)(rng);
  return g;
}

Tensor conv2dOf(const Tensor &x, const Tensor &f, const Geometry &g) {
  if (g.padding == "EXPLICIT")
    return nn::conv2d(x, f, g.strides, g.explicitPadding, g.dilations);
  return nn::conv2d(x, f, g.strides, g.padding, g.dilations);
}

} // namespace

TEST(Randomized, ConvolutionsAndPoolingMatchTheirDefinition) {
  std::mt19937_64 rng = generator(4001);
  const std::vector<DType> dtypes = {kFloat32, kFloat32, kFloat64, kFloat16, kBFloat16};
  int previousThreads = get_num_threads();
  for (int round = 0, total = rounds(30); round < total; ++round) {
    DType dtype = pickOne(rng, dtypes);
    std::string op = pickOne(rng, std::vector<std::string>{"conv2d", "conv2d", "max_pool2d", "avg_pool2d"});
    bool isConv = op == "conv2d";
    Geometry g = randomGeometry(rng, isConv, isConv);
    int64_t n = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    // Sometimes wide enough for the blocked (im2col) path: many channels.
    bool wide = coin(rng, 0.3);
    int64_t c = wide ? pickOne(rng, std::vector<int64_t>{16, 17, 32}) : std::uniform_int_distribution<int64_t>(1, 4)(rng);
    int64_t filtersOut = wide ? pickOne(rng, std::vector<int64_t>{16, 33, 64}) : std::uniform_int_distribution<int64_t>(1, 4)(rng);
    std::array<int64_t, 2> taps = {std::uniform_int_distribution<int64_t>(1, 3)(rng),
                                   std::uniform_int_distribution<int64_t>(1, 3)(rng)};
    // Input at least as large as a dilated window (VALID needs it).
    int64_t h = (taps[0] - 1) * g.dilations[0] + 1 + std::uniform_int_distribution<int64_t>(0, wide ? 12 : 6)(rng);
    int64_t w = (taps[1] - 1) * g.dilations[1] + 1 + std::uniform_int_distribution<int64_t>(0, wide ? 12 : 6)(rng);
    bool traced = coin(rng);
    int threads = coin(rng) ? 1 : 2;
    set_num_threads(threads);
    Tensor x = randomTensor(rng, {n, h, w, c}, dtype);
    Tensor f = randomTensor(rng, {taps[0], taps[1], c, filtersOut}, dtype);
    std::ostringstream what;
    what << "case " << round << ": " << (traced ? "traced " : "eager ") << op << " "
         << dtypeName(dtype) << " input " << str({n, h, w, c});
    if (isConv)
      what << " filters " << str(f.shape().vec());
    else
      what << " ksize " << taps[0] << "," << taps[1];
    what << " " << g.text() << ", " << threads << " threads";
    auto run = [&](const Tensor &input, const Tensor &filters) {
      if (isConv)
        return conv2dOf(input, filters, g);
      if (op == "max_pool2d")
        return nn::max_pool2d(input, taps, g.strides, g.padding);
      return nn::avg_pool2d(input, taps, g.strides, g.padding);
    };
    Tensor got;
    try {
      got = traced ? function([&](const Tensor &a, const Tensor &b) { return run(a, b); })(x, f)
                   : run(x, f);
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    Array hx = hostArray(x), hf = hostArray(f);
    Array want = isConv ? conv2dReference(hx, hf, g) : poolReference(hx, taps, g, op == "max_pool2d");
    // Sums of at most taps x channels products of values in [-2, 2],
    // accumulated in float32 at least and rounded once.
    double terms = isConv ? static_cast<double>(taps[0] * taps[1] * c) : static_cast<double>(taps[0] * taps[1]);
    double u = std::max(unitRoundoff(dtype), dtype == kFloat64 ? 0.0 : 0x1p-24);
    double scale = isConv ? 4 * terms : 2;
    double tol = (2 * terms + 2) * u * scale + 2 * unitRoundoff(dtype) * scale +
                 (dtype == kFloat16 ? 0x1p-24 : 0);
    ASSERT_EQ(got.dtype(), dtype) << what.str();
    expectClose(hostArray(got), want, std::vector<double>(want.values.size(), tol), what.str());
  }
  set_num_threads(previousThreads);
}

TEST(Randomized, ConvolutionGradientsMatchFiniteDifferences) {
  std::mt19937_64 rng = generator(4501);
  for (int round = 0, total = rounds(12); round < total; ++round) {
    Geometry g = randomGeometry(rng, true, true);
    int64_t n = std::uniform_int_distribution<int64_t>(1, 2)(rng);
    int64_t c = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    int64_t filtersOut = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    std::array<int64_t, 2> taps = {std::uniform_int_distribution<int64_t>(1, 3)(rng),
                                   std::uniform_int_distribution<int64_t>(1, 3)(rng)};
    int64_t h = (taps[0] - 1) * g.dilations[0] + 1 + std::uniform_int_distribution<int64_t>(0, 4)(rng);
    int64_t w = (taps[1] - 1) * g.dilations[1] + 1 + std::uniform_int_distribution<int64_t>(0, 4)(rng);
    Tensor x = randomTensor(rng, {n, h, w, c}, kFloat64);
    Tensor f = randomTensor(rng, {taps[0], taps[1], c, filtersOut}, kFloat64);
    Array hx = hostArray(x), hf = hostArray(f);
    Array weights = conv2dReference(hx, hf, g);
    for (size_t e = 0; e < weights.values.size(); ++e)
      weights.values[e] = 0.5 + 0.25 * static_cast<double>(e % 7);
    Tensor weightTensor = float64Tensor(weights);
    std::ostringstream what;
    what << "case " << round << ": grad of sum(w * conv2d) input " << str({n, h, w, c})
         << " filters " << str(f.shape().vec()) << " " << g.text();
    std::vector<Tensor> gradients;
    try {
      gradients = grad([&](const Tensor &a, const Tensor &b) {
        return reduce_sum(conv2dOf(a, b, g) * weightTensor);
      })(x, f);
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    ASSERT_EQ(gradients.size(), 2u);
    // The loss is linear in each argument: differences are exact up to
    // rounding.
    auto loss = [&](const Array &a, const Array &b) {
      Array out = conv2dReference(a, b, g);
      double sum = 0;
      for (size_t e = 0; e < out.values.size(); ++e)
        sum += out.values[e] * weights.values[e];
      return sum;
    };
    for (int which = 0; which < 2; ++which) {
      Array base = which == 0 ? hx : hf;
      Array want = base;
      for (size_t e = 0; e < base.values.size(); ++e) {
        Array plus = base, minus = base;
        plus.values[e] += 0.5;
        minus.values[e] -= 0.5;
        want.values[e] = which == 0 ? loss(plus, hf) - loss(minus, hf) : loss(hx, plus) - loss(hx, minus);
      }
      expectClose(hostArray(gradients[static_cast<size_t>(which)]), want,
                  std::vector<double>(want.values.size(), 1e-9),
                  what.str() + (which == 0 ? ", d/input" : ", d/filters"));
    }
  }
}

//===----------------------------------------------------------------------===//
// Matmuls with elementwise consumers (fused into the blocked matmul's writes)
//===----------------------------------------------------------------------===//

TEST(Randomized, MatmulEpiloguesMatchTheirDefinition) {
  std::mt19937_64 rng = generator(6007);
  const std::vector<DType> dtypes = {kFloat32, kFloat32, kFloat64, kInt32, kFloat16, kBFloat16};
  int previousThreads = get_num_threads();
  for (int round = 0, total = rounds(25); round < total; ++round) {
    DType dtype = pickOne(rng, dtypes);
    int64_t m = matmulDim(rng), k = matmulDim(rng), n = matmulDim(rng);
    Tensor a = randomTensor(rng, {m, k}, dtype), b = randomTensor(rng, {k, n}, dtype);
    // Integers: products of k values up to 9 stay far inside int32.
    Array ha = hostArray(a), hb = hostArray(b);
    Array product{{m, n}, std::vector<double>(static_cast<size_t>(m * n))};
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < k; ++p) {
          double term = ha.values[static_cast<size_t>(i * k + p)] * hb.values[static_cast<size_t>(p * n + j)];
          sum += term;
          magnitude += std::abs(term);
        }
        product.values[static_cast<size_t>(i * n + j)] = roundTo(sum, dtype);
        worst = std::max(worst, magnitude);
      }
    double u = std::max(unitRoundoff(dtype), isFloatType(dtype) && dtype != kFloat64 ? 0x1p-24 : 0.0);
    Leaf matmulLeaf{worst, (2 * static_cast<double>(k) + 2) * u * worst + unitRoundoff(dtype) * worst};
    ExprPtr expr = randomExpr(rng, dtype, std::uniform_int_distribution<int>(1, 4)(rng), {matmulLeaf});
    // The other inputs broadcast to [m, n]: a bias row, a column, a scalar...
    std::vector<Tensor> others;
    std::vector<Array> hostInputs = {product};
    for (int i = 0; i < 2; ++i) {
      std::vector<int64_t> shape = pickOne(
          rng, std::vector<std::vector<int64_t>>{{n}, {1, n}, {m, 1}, {m, n}, {}, {1, 1}});
      others.push_back(randomTensor(rng, shape, dtype));
      hostInputs.push_back(hostArray(others.back()));
    }
    int threads = coin(rng) ? 1 : 2;
    set_num_threads(threads);
    std::ostringstream what;
    what << "case " << round << ": traced " << dtypeName(dtype) << " " << describe(*expr)
         << " with x0 = " << m << "x" << k << " @ " << k << "x" << n << ", x1 "
         << str(others[0].shape().vec()) << ", x2 " << str(others[1].shape().vec()) << ", "
         << threads << " threads";
    Tensor got;
    try {
      got = function([&](const Tensor &x, const Tensor &y, const Tensor &x1, const Tensor &x2) {
        return evaluate(*expr, {matmul(x, y), x1, x2});
      })(a, b, others[0], others[1]);
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    expectExpression(got, *expr, hostInputs, dtype, what.str());
  }
  set_num_threads(previousThreads);
}

//===----------------------------------------------------------------------===//
// Control flow: traced loops and branches against the same C++ run eagerly
//===----------------------------------------------------------------------===//

TEST(Randomized, TracedControlFlowMatchesEagerAndItsGradients) {
  std::mt19937_64 rng = generator(8009);
  for (int round = 0, total = rounds(15); round < total; ++round) {
    // Loop state (a, b); each step a = tanh(e1(a, b, c)) and
    // b = cond(sum(a) > 0, e2, e3)(a, b, c), all broadcast to one shape.
    ExprPtr step = randomExpr(rng, kFloat64, 3), onTrue = randomExpr(rng, kFloat64, 2),
            onFalse = randomExpr(rng, kFloat64, 2);
    std::vector<int64_t> shape = randomShape(rng);
    if (count(shape) > 64)
      shape = {3, 5};
    int64_t steps = std::uniform_int_distribution<int64_t>(0, 4)(rng);
    bool counted = coin(rng);
    Tensor a = randomTensor(rng, shape, kFloat64), b = randomTensor(rng, shape, kFloat64),
           c = randomTensor(rng, broadcastable(rng, shape), kFloat64);
    std::ostringstream what;
    what << "case " << round << ": " << steps << (counted ? " fori_loop" : " while_loop")
         << " steps of a = tanh(" << describe(*step) << "), b = cond(sum(a) > 0, "
         << describe(*onTrue) << ", " << describe(*onFalse) << ") on " << str(shape);
    auto program = [&](const Tensor &x, const Tensor &y, const Tensor &z) {
      auto body = [&](const Tensor &p, const Tensor &q) {
        Tensor next = broadcast_to(tanh(evaluate(*step, {p, q, z})), Shape(std::span(shape)));
        Tensor other = cond(
            reduce_sum(next) > 0.0,
            [&] { return broadcast_to(tanh(evaluate(*onTrue, {next, q, z})), Shape(std::span(shape))); },
            [&] { return broadcast_to(tanh(evaluate(*onFalse, {next, q, z})), Shape(std::span(shape))); });
        return std::tuple{next, other};
      };
      std::tuple<Tensor, Tensor> state{x, y};
      if (counted) {
        state = fori_loop(0, steps, [&](const Tensor &, const Tensor &p, const Tensor &q) {
          return body(p, q);
        }, state);
      } else {
        auto [i, p, q] = while_loop(
            [&](const Tensor &i, const Tensor &, const Tensor &) { return i < steps; },
            [&](const Tensor &i, const Tensor &p, const Tensor &q) {
              auto [p2, q2] = body(p, q);
              return std::tuple{i + 1, p2, q2};
            },
            std::tuple{Tensor(int64_t(0)), x, y});
        state = {p, q};
      }
      return reduce_sum(std::get<0>(state) * 0.75 + std::get<1>(state) * 1.25);
    };
    Tensor eager, traced;
    std::vector<Tensor> gradients;
    try {
      eager = program(a, b, c);
      traced = function(program)(a, b, c);
      // While loops have no reverse-mode rule (as JAX's lax.while_loop);
      // counted loops do.
      if (counted)
        gradients = grad(program, Argnums{0, 1})(a, b, c);
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    double want = eager.item<double>();
    EXPECT_NEAR(traced.item<double>(), want, 1e-9 * (1 + std::abs(want))) << what.str();
    // Gradients against central differences of the eager program.
    for (int which = 0; which < 2 && counted; ++which) {
      Array want_ = centralDifferences(hostArray(which == 0 ? a : b), 1e-6, [&](const Array &v) {
        Tensor t = float64Tensor(v);
        return (which == 0 ? program(t, b, c) : program(a, t, c)).item<double>();
      });
      expectClose(hostArray(gradients[static_cast<size_t>(which)]), want_,
                  std::vector<double>(want_.values.size(), 1e-5),
                  what.str() + (which == 0 ? ", d/a" : ", d/b"));
    }
  }
}

//===----------------------------------------------------------------------===//
// Many threads, many signatures
//===----------------------------------------------------------------------===//

TEST(Randomized, ThreadsRunningManySignaturesGetTheSerialResults) {
  std::mt19937_64 rng = generator(9901);
  // More signatures than a thread's recent-hit slots (64), eager ops and
  // traced functions, each computed once serially first.
  struct Job {
    std::function<Tensor()> run;
    Array expected;
    std::string text;
  };
  std::vector<Job> jobs;
  const std::vector<DType> dtypes = {kFloat32, kFloat64, kInt32, kInt64, kFloat16, kBFloat16};
  for (int j = 0, total = rounds(20) * 4; j < total; ++j) {
    DType dtype = pickOne(rng, dtypes);
    std::vector<int64_t> shape = randomShape(rng);
    if (count(shape) > 20000)
      shape = {33, 17};
    auto expr = randomExpr(rng, dtype, std::uniform_int_distribution<int>(1, 3)(rng));
    std::vector<Tensor> inputs;
    for (int i = 0; i < 3; ++i)
      inputs.push_back(randomTensor(rng, broadcastable(rng, shape), dtype));
    Job job;
    job.text = std::string(dtypeName(dtype)) + " " + describe(*expr);
    int kind = std::uniform_int_distribution<int>(0, 2)(rng);
    if (kind == 0) {
      job.run = [expr, inputs] { return evaluate(*expr, inputs); };
    } else if (kind == 1) {
      auto traced = function([expr](const Tensor &x0, const Tensor &x1, const Tensor &x2) {
        return evaluate(*expr, {x0, x1, x2});
      });
      job.run = [traced, inputs]() mutable { return traced(inputs[0], inputs[1], inputs[2]); };
      job.text = "traced " + job.text;
    } else {
      int64_t m = matmulDim(rng), k = matmulDim(rng), n = matmulDim(rng);
      Tensor a = randomTensor(rng, {m, k}, dtype), b = randomTensor(rng, {k, n}, dtype);
      job.run = [a, b] { return reduce_sum(matmul(a, b), {0}); };
      job.text = std::string(dtypeName(dtype)) + " sum(matmul " + std::to_string(m) + "x" +
                 std::to_string(k) + "x" + std::to_string(n) + ")";
    }
    try {
      job.expected = hostArray(job.run());
    } catch (const std::exception &e) {
      ADD_FAILURE() << job.text << ": " << firstLine(e.what());
      continue;
    }
    jobs.push_back(std::move(job));
  }
  ASSERT_FALSE(jobs.empty());
  std::vector<std::string> failures(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 own(static_cast<uint64_t>(t) + 1);
      for (int i = 0; i < 400 && failures[static_cast<size_t>(t)].empty(); ++i) {
        const Job &job = jobs[std::uniform_int_distribution<size_t>(0, jobs.size() - 1)(own)];
        try {
          Array got = hostArray(job.run());
          // Bit for bit: the same kernels on the same data (a parallel
          // reduction's partials split by the same static schedule).
          if (got.shape != job.expected.shape || got.values.size() != job.expected.values.size())
            failures[static_cast<size_t>(t)] = job.text + ": shape differs";
          for (size_t e = 0; e < got.values.size() && failures[static_cast<size_t>(t)].empty(); ++e)
            if (got.values[e] != job.expected.values[e] &&
                !(std::isnan(got.values[e]) && std::isnan(job.expected.values[e])))
              failures[static_cast<size_t>(t)] = job.text + ": element " + std::to_string(e) +
                                                 " is " + std::to_string(got.values[e]) +
                                                 ", serially " + std::to_string(job.expected.values[e]);
        } catch (const std::exception &e) {
          failures[static_cast<size_t>(t)] = job.text + ": " + firstLine(e.what());
        }
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &failure : failures)
    EXPECT_EQ(failure, "");
}

//===----------------------------------------------------------------------===//
// Corrupt files
//===----------------------------------------------------------------------===//

namespace {

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// `bytes` damaged one way: cut short, bytes changed (mostly in the
/// header), a length field made huge, or garbage appended.
std::string corrupt(std::mt19937_64 &rng, std::string bytes, std::string &how) {
  if (bytes.empty())
    return bytes;
  switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
  case 0: {
    size_t size = std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng);
    how = "cut to " + std::to_string(size) + " bytes";
    return bytes.substr(0, size);
  }
  case 1: {
    int changes = std::uniform_int_distribution<int>(1, 4)(rng);
    how = std::to_string(changes) + " bytes changed at";
    for (int i = 0; i < changes; ++i) {
      size_t at = std::uniform_int_distribution<size_t>(0, std::min<size_t>(bytes.size(), 160) - 1)(rng);
      bytes[at] = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
      how += " " + std::to_string(at);
    }
    return bytes;
  }
  case 2: {
    // A length or dimension field (at an offset of 0-15) set to a huge value.
    size_t at = std::uniform_int_distribution<size_t>(0, std::min<size_t>(bytes.size(), 16) - 1)(rng);
    how = "0xff bytes from " + std::to_string(at);
    for (size_t i = at; i < std::min(bytes.size(), at + 4); ++i)
      bytes[i] = static_cast<char>(0xff);
    return bytes;
  }
  default:
    how = "garbage appended";
    return bytes + std::string("\x93garbage\0\xff", 10);
  }
}

} // namespace

TEST(Randomized, FileReadersRefuseCorruptFilesNamingThem) {
  std::mt19937_64 rng = generator(7707);
  std::string dir = std::filesystem::temp_directory_path() /
                    ("ember-randomized-files-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // Valid files of each kind.
  std::vector<std::pair<std::string, std::function<void(const std::string &)>>> readers;
  std::vector<std::string> originals;
  for (DType dtype : {kFloat32, kInt64, kFloat16, kBool, kFloat64}) {
    std::string path = dir + "/valid-" + std::string(dtypeName(dtype)) + ".npy";
    save_npy(path, cast(randomTensor(rng, {3, 4}, kFloat32), dtype));
    originals.push_back(readBytes(path));
    readers.push_back({".npy", [](const std::string &p) { (void)load_npy(p); }});
  }
  Variable w(randomTensor(rng, {2, 3}, kFloat32), "w"), n(randomTensor(rng, {4}, kInt32), "n"),
      h(randomTensor(rng, {5}, kBFloat16), "h");
  Checkpoint checkpoint({{"w", w}, {"n", n}, {"h", h}});
  {
    std::string path = checkpoint.write(dir + "/valid.safetensors");
    originals.push_back(readBytes(path));
    readers.push_back({".safetensors", [&](const std::string &p) { checkpoint.restore(p); }});
  }
  {
    // IDX: unsigned bytes [3, 2, 2], big-endian dims.
    std::string idx("\0\0\x08\x03", 4);
    for (int dim : {3, 2, 2})
      idx += std::string("\0\0\0", 3) + static_cast<char>(dim);
    for (int i = 0; i < 12; ++i)
      idx += static_cast<char>(i * 7);
    originals.push_back(idx);
    readers.push_back({".idx", [](const std::string &p) { (void)data::read_idx(p); }});
  }
  for (size_t r = 0; r < readers.size(); ++r) {
    std::string path = dir + "/valid" + std::to_string(r) + readers[r].first;
    writeBytes(path, originals[r]);
    ASSERT_NO_THROW(readers[r].second(path)) << path; // the file as written reads
  }
  // Empty arrays whose other dims hold more than 2^60 elements (no data to
  // read, but no ember shape either): refused naming the file (they threw
  // ember's shape error without it).
  {
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1099511627776, "
                       "1099511627776), }";
    std::string header = dict + std::string(64 - (10 + dict.size() + 1) % 64, ' ') + "\n";
    std::string npy = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
                      static_cast<char>(header.size() >> 8) + header;
    std::string idx("\0\0\x08\x04\0\0\0\0", 8);
    for (int d = 0; d < 3; ++d)
      idx += std::string("\xff\xff\xff\xff", 4);
    for (auto [bytes, reader] : {std::pair{npy, size_t(0)}, std::pair{idx, readers.size() - 1}}) {
      std::string path = dir + "/huge-empty" + readers[reader].first;
      writeBytes(path, bytes);
      try {
        readers[reader].second(path);
        ADD_FAILURE() << path << " was read";
      } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      }
    }
  }
  for (int round = 0, total = rounds(60); round < total; ++round) {
    size_t r = std::uniform_int_distribution<size_t>(0, readers.size() - 1)(rng);
    std::string how;
    std::string path = dir + "/case" + std::to_string(round) + readers[r].first;
    writeBytes(path, corrupt(rng, originals[r], how));
    try {
      readers[r].second(path);
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos)
          << "case " << round << " (" << how << "): " << e.what();
    } catch (const std::exception &e) {
      ADD_FAILURE() << "case " << round << " (" << path << ", " << how
                    << "): not an ember::Error: " << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}

//===----------------------------------------------------------------------===//
// Second derivatives
//===----------------------------------------------------------------------===//

TEST(Randomized, SecondDerivativesMatchFiniteDifferencesOfTheFirst) {
  std::mt19937_64 rng = generator(2203);
  for (int round = 0, total = rounds(12); round < total; ++round) {
    // f(x) = sum(w * e(x)), every leaf x: grad(grad(f))(x) is the derivative
    // of sum(grad(f)), the Hessian's row sums.
    ExprPtr expr = randomExpr(rng, kFloat64, std::uniform_int_distribution<int>(1, 3)(rng));
    std::vector<int64_t> shape = {pickOne(rng, std::vector<int64_t>{1, 2, 3}), pickOne(rng, std::vector<int64_t>{1, 4})};
    Tensor x = randomTensor(rng, shape, kFloat64);
    Tensor w = randomTensor(rng, shape, kFloat64);
    std::ostringstream what;
    what << "case " << round << ": grad(grad(sum(w * " << describe(*expr) << "))) at " << str(shape);
    auto f = [&](const Tensor &t) { return reduce_sum(broadcast_to(evaluate(*expr, {t, t, t}), Shape(std::span(shape))) * w); };
    Tensor first, second;
    try {
      first = grad(f)(x);
      second = grad(grad(f))(x);
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    Array want = centralDifferences(hostArray(x), 1e-5, [&](const Array &at) {
      return reduce_sum(grad(f)(float64Tensor(at))).item<double>();
    });
    std::vector<double> tolerance(want.values.size());
    for (size_t e = 0; e < want.values.size(); ++e)
      tolerance[e] = 1e-4 * (1 + std::abs(want.values[e]) + expr->bound * 4);
    expectClose(hostArray(second), want, tolerance, what.str());
  }
}

//===----------------------------------------------------------------------===//
// tf.data pipelines
//===----------------------------------------------------------------------===//

namespace {

/// A dataset element as the reference holds it: one int64 component.
using RefElement = Array;

} // namespace

TEST(Randomized, DatasetPipelinesYieldWhatTfDataWould) {
  std::mt19937_64 rng = generator(1301);
  for (int round = 0, total = rounds(40); round < total; ++round) {
    int64_t start = std::uniform_int_distribution<int64_t>(-5, 5)(rng);
    int64_t stop = start + std::uniform_int_distribution<int64_t>(0, 23)(rng);
    bool slices = coin(rng);
    data::Dataset ds = data::Dataset::range(start, stop);
    std::vector<RefElement> ref;
    for (int64_t v = start; v < stop; ++v)
      ref.push_back({{}, {static_cast<double>(v)}});
    std::ostringstream what;
    if (slices) {
      // from_tensor_slices of [n, 2]: element i is {2i', 2i' + 1}.
      std::vector<int64_t> values;
      for (int64_t v = start; v < stop; ++v)
        values.insert(values.end(), {2 * v, 2 * v + 1});
      ds = data::Dataset::from_tensor_slices(Tensor::from_vector(
          values, Shape{stop - start, 2}, kInt64));
      for (size_t i = 0; i < ref.size(); ++i)
        ref[i] = {{2}, {2 * ref[i].values[0], 2 * ref[i].values[0] + 1}};
      what << "case " << round << ": from_tensor_slices([" << stop - start << ", 2])";
    } else {
      what << "case " << round << ": range(" << start << ", " << stop << ")";
    }
    bool mayFail = false; // a batch of unequal shapes, unbatch of scalars
    bool known = true;
    for (int step = 0, steps = std::uniform_int_distribution<int>(1, 5)(rng); step < steps; ++step) {
      switch (std::uniform_int_distribution<int>(0, 8)(rng)) {
      case 0: { // batch
        int64_t size = std::uniform_int_distribution<int64_t>(1, 5)(rng);
        bool drop = coin(rng);
        ds = ds.batch(size, drop);
        what << " .batch(" << size << (drop ? ", drop" : "") << ")";
        std::vector<RefElement> out;
        for (size_t i = 0; i < ref.size(); i += static_cast<size_t>(size)) {
          size_t n = std::min(ref.size() - i, static_cast<size_t>(size));
          if (drop && n < static_cast<size_t>(size))
            break;
          RefElement b{{static_cast<int64_t>(n)}, {}};
          b.shape.insert(b.shape.end(), ref[i].shape.begin(), ref[i].shape.end());
          for (size_t j = i; j < i + n; ++j) {
            mayFail = mayFail || ref[j].shape != ref[i].shape;
            b.values.insert(b.values.end(), ref[j].values.begin(), ref[j].values.end());
          }
          out.push_back(b);
        }
        ref = out;
        break;
      }
      case 1: { // unbatch
        ds = ds.unbatch();
        what << " .unbatch()";
        known = false;
        std::vector<RefElement> out;
        for (const RefElement &e : ref) {
          if (e.shape.empty()) {
            mayFail = true;
            break;
          }
          std::vector<int64_t> inner(e.shape.begin() + 1, e.shape.end());
          size_t n = static_cast<size_t>(count(inner));
          for (int64_t i = 0; i < e.shape[0]; ++i)
            out.push_back({inner, std::vector<double>(e.values.begin() + static_cast<int64_t>(i * n),
                                                      e.values.begin() + static_cast<int64_t>((i + 1) * n))});
        }
        ref = out;
        break;
      }
      case 2: { // skip
        int64_t k = std::uniform_int_distribution<int64_t>(-1, 6)(rng);
        ds = ds.skip(k);
        what << " .skip(" << k << ")";
        ref.erase(ref.begin(), ref.begin() + (k < 0 ? static_cast<int64_t>(ref.size())
                                                    : std::min<int64_t>(k, static_cast<int64_t>(ref.size()))));
        break;
      }
      case 3: { // take
        int64_t k = std::uniform_int_distribution<int64_t>(-1, 12)(rng);
        ds = ds.take(k);
        what << " .take(" << k << ")";
        if (k >= 0 && static_cast<size_t>(k) < ref.size())
          ref.resize(static_cast<size_t>(k));
        break;
      }
      case 4: { // repeat, finite
        int64_t c = std::uniform_int_distribution<int64_t>(0, 3)(rng);
        ds = ds.repeat(c);
        what << " .repeat(" << c << ")";
        std::vector<RefElement> out;
        for (int64_t r = 0; r < c; ++r)
          out.insert(out.end(), ref.begin(), ref.end());
        ref = out;
        break;
      }
      case 5: { // repeat forever, then take
        int64_t k = std::uniform_int_distribution<int64_t>(0, 30)(rng);
        ds = ds.repeat().take(k);
        what << " .repeat().take(" << k << ")";
        if (ref.empty()) {
          // An empty dataset repeated is empty (tf.data).
        } else {
          std::vector<RefElement> out;
          for (int64_t i = 0; i < k; ++i)
            out.push_back(ref[static_cast<size_t>(i) % ref.size()]);
          ref = out;
        }
        break;
      }
      case 6: { // filter: element sums that are even
        ds = ds.filter([](const data::Element &e) {
          return static_cast<int64_t>(reduce_sum(e[0]).item<int64_t>()) % 2 == 0;
        });
        what << " .filter(even sum)";
        known = false;
        std::vector<RefElement> out;
        for (const RefElement &e : ref) {
          double sum = 0;
          for (double v : e.values)
            sum += v;
          if (static_cast<int64_t>(sum) % 2 == 0)
            out.push_back(e);
        }
        ref = out;
        break;
      }
      case 7: { // map
        ds = ds.map([](const data::Element &e) { return data::Element{e[0] * 3 - 1}; });
        what << " .map(3x - 1)";
        for (RefElement &e : ref)
          for (double &v : e.values)
            v = 3 * v - 1;
        break;
      }
      default: { // prefetch, or a shuffle that keeps the order
        bool prefetch = coin(rng);
        ds = prefetch ? ds.prefetch(std::uniform_int_distribution<int64_t>(1, 3)(rng)) : ds.shuffle(1, 7);
        what << (prefetch ? " .prefetch()" : " .shuffle(1)");
        break;
      }
      }
    }
    std::vector<RefElement> got;
    try {
      for (const data::Element &e : ds) {
        EXPECT_EQ(e.size(), 1u) << what.str();
        got.push_back(hostArray(e.at(0)));
        if (got.size() > 10000)
          break;
      }
    } catch (const Error &e) {
      if (!mayFail)
        ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    if (mayFail)
      continue; // the reference cannot tell where tf.data would have failed
    ASSERT_EQ(got.size(), ref.size()) << what.str();
    for (size_t i = 0; i < ref.size(); ++i) {
      ASSERT_EQ(got[i].shape, ref[i].shape) << what.str() << ", element " << i;
      ASSERT_EQ(got[i].values, ref[i].values) << what.str() << ", element " << i;
    }
    // Without a filter or unbatch, the cardinality is the number of
    // elements. (After one, tf.data's rules take repeat() of an unknown
    // number as endless, even when the filter lets nothing through; ember
    // follows them.)
    if (known)
      EXPECT_EQ(ds.cardinality(), static_cast<int64_t>(got.size())) << what.str();
  }
}

//===----------------------------------------------------------------------===//
// Training steps: traced and eager alike
//===----------------------------------------------------------------------===//

TEST(Randomized, TracedTrainingStepsMatchEagerOnes) {
  std::mt19937_64 rng = generator(1709);
  const std::vector<std::string> activations = {"linear", "relu", "tanh", "sigmoid", "softmax"};
  for (int round = 0, total = rounds(10); round < total; ++round) {
    // The same random model twice (same seeds): one trained eagerly with a
    // tape, one by a traced step; float64, so that both agree closely.
    int layerCount = std::uniform_int_distribution<int>(1, 3)(rng);
    std::vector<int64_t> units;
    std::vector<std::string> acts;
    for (int l = 0; l < layerCount; ++l) {
      units.push_back(std::uniform_int_distribution<int64_t>(1, 17)(rng));
      acts.push_back(pickOne(rng, activations));
    }
    bool sequenceInput = coin(rng, 0.3); // [batch, steps, features] into Dense
    // Or images through Conv2D, pooling and Flatten first; sometimes Dropout
    // (seeded alike: the same masks in both).
    bool images = !sequenceInput && coin(rng, 0.35);
    bool dropout = coin(rng, 0.3);
    std::string convActivation = pickOne(rng, activations);
    std::array<int64_t, 2> convStrides = {std::uniform_int_distribution<int64_t>(1, 2)(rng), 1};
    std::string convPadding = coin(rng) ? "same" : "valid";
    bool maxPool = coin(rng);
    int64_t batch = std::uniform_int_distribution<int64_t>(1, 9)(rng);
    int64_t features = std::uniform_int_distribution<int64_t>(1, 7)(rng);
    bool classify = coin(rng);
    int optimizerKind = std::uniform_int_distribution<int>(0, 2)(rng);
    double momentum = optimizerKind == 1 ? 0.9 : 0;
    auto makeModel = [&] {
      std::vector<std::shared_ptr<layers::Layer>> stack;
      if (images) {
        stack.push_back(std::make_shared<layers::Conv2D>(3, std::array<int64_t, 2>{3, 2},
                                                         convActivation, convStrides, convPadding, 11));
        if (maxPool)
          stack.push_back(std::make_shared<layers::MaxPooling2D>(std::array<int64_t, 2>{2, 2}));
        else
          stack.push_back(std::make_shared<layers::AveragePooling2D>(
              std::array<int64_t, 2>{2, 2}, std::nullopt, "same"));
        stack.push_back(std::make_shared<layers::Flatten>());
      }
      if (dropout)
        stack.push_back(std::make_shared<layers::Dropout>(0.3, 5));
      for (int l = 0; l < layerCount; ++l)
        stack.push_back(std::make_shared<layers::Dense>(units[static_cast<size_t>(l)],
                                                        acts[static_cast<size_t>(l)], true,
                                                        100 + static_cast<uint64_t>(l)));
      return std::make_shared<layers::Sequential>(stack);
    };
    auto makeOptimizer = [&]() -> std::shared_ptr<optimizers::Optimizer> {
      if (optimizerKind == 2)
        return std::make_shared<optimizers::Adam>(0.05);
      return std::make_shared<optimizers::SGD>(0.1, momentum, coin(rng));
    };
    std::vector<int64_t> inputShape = sequenceInput ? std::vector<int64_t>{batch, 3, features}
                                      : images      ? std::vector<int64_t>{batch, 7, 6, features}
                                                    : std::vector<int64_t>{batch, features};
    Tensor x = randomTensor(rng, inputShape, kFloat64);
    std::vector<int64_t> outShape = inputShape;
    if (images)
      outShape = {batch, 0};
    outShape.back() = units.back();
    std::vector<int64_t> labelShape(outShape.begin(), outShape.end() - 1);
    Tensor labels = Tensor::from_vector(std::vector<int64_t>(static_cast<size_t>(count(labelShape)), 0),
                                        Shape(std::span(labelShape)), kInt64);
    if (classify) {
      std::vector<int64_t> values(static_cast<size_t>(count(labelShape)));
      for (int64_t &v : values)
        v = std::uniform_int_distribution<int64_t>(0, units.back() - 1)(rng);
      labels = Tensor::from_vector(values, Shape(std::span(labelShape)), kInt64);
    }
    Tensor targets = randomTensor(rng, outShape, kFloat64);
    std::ostringstream what;
    what << "case " << round << ": Dense";
    for (int l = 0; l < layerCount; ++l)
      what << " " << units[static_cast<size_t>(l)] << " " << acts[static_cast<size_t>(l)];
    if (images)
      what << " after Conv2D " << convActivation << " strides " << convStrides[0] << " "
           << convPadding << (maxPool ? ", MaxPooling2D" : ", AveragePooling2D same") << ", Flatten";
    if (dropout)
      what << ", Dropout 0.3";
    what << " on " << str(inputShape) << (classify ? ", cross-entropy" : ", MSE") << ", "
         << (optimizerKind == 2 ? "Adam" : optimizerKind == 1 ? "SGD with momentum" : "SGD");

    auto eagerModel = makeModel(), tracedModel = makeModel();
    std::mt19937_64 nesterovDraw = rng; // the same Nesterov choice for both
    auto eagerOptimizer = makeOptimizer();
    rng = nesterovDraw;
    auto tracedOptimizer = makeOptimizer();
    losses::SparseCategoricalCrossentropy crossEntropy(/*from_logits=*/true);
    losses::MeanSquaredError mse;
    auto lossOf = [&](layers::Sequential &model, const Tensor &input) {
      Tensor y = model(input, /*training=*/true);
      return classify ? crossEntropy(labels, y) : mse(targets, y);
    };
    auto step = [&](layers::Sequential &model, optimizers::Optimizer &optimizer, const Tensor &input) {
      GradientTape tape;
      Tensor loss = lossOf(model, input);
      std::vector<Variable> variables = model.trainable_variables();
      optimizer.apply_gradients(tape.gradient(loss, variables), variables);
      return loss;
    };
    try {
      (*eagerModel)(x); // build both before tracing
      (*tracedModel)(x);
      auto traced = function([&](const Tensor &input) { return step(*tracedModel, *tracedOptimizer, input); });
      for (int s = 0; s < 3; ++s) {
        Tensor eagerLoss = step(*eagerModel, *eagerOptimizer, x);
        Tensor tracedLoss = traced(x);
        EXPECT_NEAR(tracedLoss.item<double>(), eagerLoss.item<double>(),
                    1e-9 * (1 + std::abs(eagerLoss.item<double>())))
            << what.str() << ", step " << s;
      }
    } catch (const std::exception &e) {
      ADD_FAILURE() << what.str() << ": " << firstLine(e.what());
      continue;
    }
    std::vector<Variable> a = eagerModel->trainable_variables(), b = tracedModel->trainable_variables();
    ASSERT_EQ(a.size(), b.size()) << what.str();
    for (size_t v = 0; v < a.size(); ++v) {
      Array want = hostArray(a[v].value());
      std::vector<double> tolerance(want.values.size());
      for (size_t e = 0; e < want.values.size(); ++e)
        tolerance[e] = 1e-9 * (1 + std::abs(want.values[e]));
      expectClose(hostArray(b[v].value()), want, tolerance, what.str() + ", variable " + std::to_string(v));
    }
    EXPECT_EQ(eagerOptimizer->iterations().value().item<int64_t>(), 3) << what.str();
    EXPECT_EQ(tracedOptimizer->iterations().value().item<int64_t>(), 3) << what.str();
  }
}
