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
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ember;

namespace {

int rounds(int byDefault) {
  if (const char *text = std::getenv("EMBER_RANDOMIZED_ROUNDS"))
    return std::max(1, std::atoi(text));
  return byDefault;
}

/// A tensor's values and shape on the host, in double.
struct Array {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

Array hostArray(const Tensor &t) { return {t.shape().vec(), t.to_vector<double>()}; }

int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string str(const std::vector<int64_t> &shape) { return Shape(std::span(shape)).str(); }

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
  std::mt19937_64 rng(20261123);
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
