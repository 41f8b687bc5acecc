// Traced functions whose shapes change: an input signature with None dims
// (kNone) traces once for every batch size; reduce_retracing generalizes
// after the first size change; sizes that must agree are checked at the
// call, naming the op; traced and eager agree.
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>

using namespace ember;

namespace {

Tensor randomTensor(std::mt19937 &rng, const Shape &shape) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(shape.numel()));
  for (float &v : values)
    v = value(rng);
  return Tensor::from_vector(values, shape);
}

void expectClose(const Tensor &got, const Tensor &expected, float tolerance = 1e-5f) {
  ASSERT_EQ(got.shape(), expected.shape());
  std::vector<float> a = got.to_vector<float>(), b = expected.to_vector<float>();
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], tolerance) << "element " << i;
}

/// Checks `gradient`, loss(x, other)'s with respect to x, at the flat
/// `elements` of x against central differences.
template <typename Loss>
void expectFiniteDifferences(Loss &&loss, const Tensor &x, const Tensor &other,
                             const Tensor &gradient, std::initializer_list<size_t> elements) {
  std::vector<float> values = x.to_vector<float>(), computed = gradient.to_vector<float>();
  const float h = 1e-2f;
  for (size_t e : elements) {
    auto lossAt = [&](float delta) {
      std::vector<float> moved = values;
      moved[e] += delta;
      Tensor value = loss(Tensor::from_vector(moved, x.shape()), other);
      return double(value.item<float>());
    };
    EXPECT_NEAR(computed[e], (lossAt(h) - lossAt(-h)) / (2 * h), 2e-3)
        << "shape " << x.shape().str() << " element " << e;
  }
}

} // namespace

TEST(TracedShapes, InputSignatureTracesOnceForEveryBatchSize) {
  std::mt19937 rng(1);
  Tensor w = randomTensor(rng, {64}), b = randomTensor(rng, {64});
  auto body = [&](const Tensor &x) { return reduce_sum(relu(x * w + b), {1}); };
  auto f = function(body, "sweep", {.input_signature = {{{kNone, 64}}}});
  for (int64_t rows : {1000, 1001, 7, 2, 1, 64}) {
    Tensor x = randomTensor(rng, {rows, 64});
    Tensor y = f(x);
    EXPECT_EQ(y.shape(), Shape({rows}));
    expectClose(y, body(x), 1e-4f);
  }
  std::vector<ConcreteFunctionInfo> concretes = f.concrete_functions();
  ASSERT_EQ(concretes.size(), 1u);
  EXPECT_EQ(concretes[0].signature, "sweep(arg0: float32[?, 64]) -> float32[?]");
}

TEST(TracedShapes, ACallThatDoesNotFitTheSignatureThrows) {
  auto f = function([](const Tensor &x) { return x * 2.0; }, "double",
                    {.input_signature = {{{kNone, 3}}}});
  (void)f(ones({4, 3}));
  EXPECT_THROW((void)f(ones({4, 4})), SignatureMismatchError);
  EXPECT_THROW((void)f(ones({4, 3, 1})), SignatureMismatchError);
  EXPECT_THROW((void)f(ones({4, 3}, DType::Float64)), SignatureMismatchError);
  try {
    (void)f(ones({4, 4}));
  } catch (const SignatureMismatchError &e) {
    EXPECT_NE(std::string(e.what()).find("float32[4, 4]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("float32[?, 3]"), std::string::npos) << e.what();
  }
}

TEST(TracedShapes, SizesThatMustAgreeAreCheckedNamingTheOp) {
  // Two None batch dims meet in an add: equal at every call, or an error.
  auto f = function([](const Tensor &x, const Tensor &y) { return x + y; }, "sum",
                    {.input_signature = {{{kNone, 3}}, {{kNone, 3}}}});
  expectClose(f(ones({5, 3}), ones({5, 3})), full({5, 3}, 2.0));
  try {
    (void)f(ones({5, 3}), ones({6, 3}));
    FAIL() << "no error";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("'ember.add' op"), std::string::npos) << message;
    EXPECT_NE(message.find("TracedShapesTest.cpp:"), std::string::npos) << message;
    EXPECT_NE(message.find("must be equal"), std::string::npos) << message;
  }
}

TEST(TracedShapes, ADenseLayerOnANoneBatch) {
  std::mt19937 rng(3);
  Tensor w1 = randomTensor(rng, {20, 16}), b1 = randomTensor(rng, {16});
  Tensor w2 = randomTensor(rng, {16, 4}), b2 = randomTensor(rng, {4});
  auto mlp = [&](const Tensor &x) { return matmul(relu(matmul(x, w1) + b1), w2) + b2; };
  auto f = function(mlp, "mlp", {.input_signature = {{{kNone, 20}}}});
  for (int64_t batch : {3, 50, 1, 17}) {
    Tensor x = randomTensor(rng, {batch, 20});
    expectClose(f(x), mlp(x), 1e-4f);
  }
  EXPECT_EQ(f.concrete_functions().size(), 1u);
  // The contracting dim is known, so a wrong width is refused at the call.
  EXPECT_THROW((void)f(randomTensor(rng, {3, 21})), SignatureMismatchError);
}

TEST(TracedShapes, ReduceRetracingGeneralizesAfterTheFirstSizeChange) {
  std::mt19937 rng(4);
  Tensor w = randomTensor(rng, {8});
  auto body = [&](const Tensor &x) { return reduce_mean(tanh(x * w), {0}); };
  auto f = function(body, "relaxed", {.reduce_retracing = true});
  for (int64_t rows = 10; rows < 74; ++rows) {
    Tensor x = randomTensor(rng, {rows, 8});
    expectClose(f(x), body(x), 1e-5f);
  }
  std::vector<ConcreteFunctionInfo> concretes = f.concrete_functions();
  ASSERT_EQ(concretes.size(), 2u); // [10, 8], then [?, 8]
  EXPECT_EQ(concretes[1].signature, "relaxed(arg0: float32[?, 8]) -> float32[8]");
}

TEST(TracedShapes, ReduceRetracingFallsBackPerShapeForOpsWithoutNoneDims) {
  // A pooling's window takes no `?` height yet: each height keeps its own
  // trace.
  auto body = [](const Tensor &x) { return nn::max_pool2d(x * 2.0, {2, 2}, {2, 2}); };
  auto f = function(body, "per_shape", {.reduce_retracing = true});
  for (int64_t height : {4, 6, 8})
    EXPECT_EQ(f(ones({1, height, 4, 1})).to_vector<float>(),
              body(ones({1, height, 4, 1})).to_vector<float>());
  EXPECT_EQ(f.concrete_functions().size(), 3u);
  // A slice of part of the relaxed dim takes it: [3, 2], then [?, 2]; a
  // size its bounds do not fit (1 row: Python's empty slice) gets its own
  // trace, not the error an input signature's None would raise.
  auto rows = [](const Tensor &x) { return slice(x * 2.0, {1, 0}, {2, 2}); };
  auto g = function(rows, "relaxed_slice", {.reduce_retracing = true});
  for (int64_t n : {3, 4, 5, 1, 1}) {
    Tensor got = g(ones({n, 2})), want = rows(ones({n, 2}));
    EXPECT_EQ(got.shape(), want.shape()) << n;
    EXPECT_EQ(got.to_vector<float>(), want.to_vector<float>()) << n;
  }
  EXPECT_EQ(g.concrete_functions().size(), 3u);
}

// argmax and concatenations along a known axis take a None batch; their
// values and the gradient through the concatenation agree with per-shape
// traces and finite differences.
TEST(TracedShapes, ArgmaxAndConcatOnANoneBatch) {
  std::mt19937 rng(8);
  Tensor w = randomTensor(rng, {6, 3});
  auto features = [&](const Tensor &x) { return concat({x, tanh(x) * 0.5, x * x}, 1); };
  auto classify = [&](const Tensor &x) { return argmax(matmul(features(x), w), 1); };
  auto loss = [&](const Tensor &x) { return reduce_sum(matmul(features(x), w) * 0.25); };
  auto predict = function(classify, "predict", {.input_signature = {{{kNone, 2}}}});
  auto gradient = value_and_grad(loss, "loss", {.input_signature = {{{kNone, 2}}}});
  for (int64_t batch : {6, 1, 13}) {
    // Values spread far enough apart that float rounding decides no argmax.
    Tensor x = randomTensor(rng, {batch, 2}) * 3.0;
    EXPECT_EQ(predict(x).to_vector<int64_t>(), classify(x).to_vector<int64_t>()) << batch;
    auto [value, grad] = gradient(x);
    auto [expectedValue, expected] = value_and_grad(loss, "loss_static")(x);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-4) << batch;
    expectClose(grad, expected, 1e-5f);
    std::vector<float> v = x.to_vector<float>();
    const float h = 1e-2f;
    auto lossAt = [&](float delta) {
      std::vector<float> moved = v;
      moved.back() += delta;
      return double(loss(Tensor::from_vector(moved, x.shape())).item<float>());
    };
    EXPECT_NEAR(grad.to_vector<float>().back(), (lossAt(h) - lossAt(-h)) / (2 * h), 2e-3) << batch;
  }
  EXPECT_EQ(predict.concrete_functions().size(), 1u);
  EXPECT_EQ(gradient.concrete_functions().size(), 1u);
  EXPECT_EQ(predict.concrete_functions()[0].signature, "predict(arg0: float32[?, 2]) -> int64[?]");
}

// Reshapes that fold a None batch with a known dim ([B, T, D] -> [B * T, D],
// a sequence model's dense layer) and split it again, and a concatenation
// along the None batch: one trace for every batch, values and gradients
// equal to per-shape traces.
TEST(TracedShapes, ReshapesAcrossAndConcatenationsAlongANoneBatch) {
  std::mt19937 rng(9);
  Tensor w = randomTensor(rng, {4, 5});
  auto sequence = [&](const Tensor &x) {
    Tensor h = tanh(matmul(reshape(x, {-1, 4}), w)); // [B * 3, 5]
    return reshape(h, {-1, 3, 5});                   // [B, 3, 5]
  };
  auto loss = [&](const Tensor &x) { return reduce_sum(sequence(x) * sequence(x)); };
  auto generic = function(sequence, "sequence", {.input_signature = {{{kNone, 3, 4}}}});
  auto gradient = value_and_grad(loss, "sequence_loss", {.input_signature = {{{kNone, 3, 4}}}});
  auto both = function(
      [](const Tensor &a, const Tensor &b) {
        return concat({a, b * 2.0}, 0);
      },
      "rows", {.input_signature = {{{kNone, 3}}, {{kNone, 3}}}});
  for (int64_t batch : {2, 5, 1}) {
    Tensor x = randomTensor(rng, {batch, 3, 4});
    Tensor y = generic(x);
    EXPECT_EQ(y.shape(), Shape({batch, 3, 5}));
    expectClose(y, sequence(x), 1e-5f);
    auto [value, grad] = gradient(x);
    auto [expectedValue, expected] = value_and_grad(loss, "sequence_loss_static")(x);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-4) << batch;
    expectClose(grad, expected, 1e-5f);
    Tensor a = randomTensor(rng, {batch, 3}), b = randomTensor(rng, {batch + 2, 3});
    Tensor rows = both(a, b);
    EXPECT_EQ(rows.shape(), Shape({2 * batch + 2, 3}));
    expectClose(rows, concat({a, b * 2.0}, 0));
  }
  EXPECT_EQ(generic.concrete_functions().size(), 1u);
  EXPECT_EQ(gradient.concrete_functions().size(), 1u);
  EXPECT_EQ(both.concrete_functions().size(), 1u);
  EXPECT_EQ(both.concrete_functions()[0].signature,
            "rows(arg0: float32[?, 3], arg1: float32[?, 3]) -> float32[?, 3]");
}

// A None sequence between known rows (a start token and padding, learned):
// the gradient of each piece of the concatenation along the None dim is a
// slice at offsets counted from the start and from the end.
TEST(TracedShapes, AConcatenationsGradientAlongANoneDim) {
  std::mt19937 rng(13);
  Tensor start = randomTensor(rng, {1, 3}), pad = randomTensor(rng, {2, 3});
  auto loss = [](const Tensor &s, const Tensor &x, const Tensor &p) {
    Tensor rows = concat({s, tanh(x), p * 3.0}, 0);
    return reduce_sum(rows * rows * rows);
  };
  auto generic = value_and_grad(loss, Argnums{0, 1, 2}, "padded",
                                {.input_signature = {{{1, 3}}, {{kNone, 3}}, {{2, 3}}}});
  for (int64_t rows : {4, 1, 7}) {
    Tensor x = randomTensor(rng, {rows, 3});
    auto [value, gradients] = generic(start, x, pad);
    auto [expectedValue, expected] =
        value_and_grad(loss, Argnums{0, 1, 2}, "padded_static")(start, x, pad);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-4) << rows;
    ASSERT_EQ(gradients.size(), 3u);
    for (size_t i = 0; i < 3; ++i)
      expectClose(gradients[i], expected[i], 1e-5f);
  }
  EXPECT_EQ(generic.concrete_functions().size(), 1u);
  // An empty piece after the None one (before: its slice took the whole
  // cotangent, and the trace failed).
  auto empty = value_and_grad([](const Tensor &x,
                                 const Tensor &z) { return reduce_sum(square(concat({x, z}, 0))); },
                              Argnums{0, 1}, "empty_piece",
                              {.input_signature = {{{kNone, 3}}, {{0, 3}}}});
  auto [value, gradients] = empty(ones({4, 3}), zeros({0, 3}));
  EXPECT_EQ(value.item<float>(), 12.f);
  ASSERT_EQ(gradients.size(), 2u);
  EXPECT_EQ(gradients[0].to_vector<float>(), std::vector<float>(12, 2.f));
  EXPECT_EQ(gradients[1].shape(), Shape({0, 3}));
}

// Two None inputs along the axis (a sequence and its padding, both None):
// each gradient piece is gathered at an offset summed at run time. Values
// and gradients as the per-shape traces', empty pieces included.
TEST(TracedShapes, AConcatenationsGradientAlongTwoNoneDims) {
  std::mt19937 rng(14);
  Tensor middle = randomTensor(rng, {2, 3});
  auto loss = [](const Tensor &x, const Tensor &m, const Tensor &y) {
    Tensor rows = concat({tanh(x), m, y * 2.0}, 0);
    return reduce_sum(rows * rows * rows * iota_like(rows, 0, DType::Float32));
  };
  auto generic = value_and_grad(loss, Argnums{0, 1, 2}, "two_none",
                                {.input_signature = {{{kNone, 3}}, {{2, 3}}, {{kNone, 3}}}});
  for (auto [n, k] : {std::pair<int64_t, int64_t>{3, 2}, {1, 4}, {0, 2}, {5, 0}}) {
    Tensor x = randomTensor(rng, {n, 3}), y = randomTensor(rng, {k, 3});
    auto [value, gradients] = generic(x, middle, y);
    auto [expectedValue, expected] =
        value_and_grad(loss, Argnums{0, 1, 2}, "two_none_static")(x, middle, y);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-4) << n << ", " << k;
    ASSERT_EQ(gradients.size(), 3u);
    for (size_t i = 0; i < 3; ++i)
      expectClose(gradients[i], expected[i], 1e-4f);
  }
  EXPECT_EQ(generic.concrete_functions().size(), 1u);
}

// An embedding's lookups on a None batch of token ids: the table's gradient
// (a scatter-add of the rows' cotangents) is traced once for every batch and
// agrees with per-shape traces and finite differences.
TEST(TracedShapes, AnEmbeddingsGradientOnANoneBatch) {
  std::mt19937 rng(10);
  Tensor table = randomTensor(rng, {5, 2});
  auto loss = [](const Tensor &t, const Tensor &ids) {
    Tensor rows = gather(t, ids); // [B, 3, 2]
    return reduce_sum(tanh(rows) * rows);
  };
  auto generic = value_and_grad(loss, Argnums{0}, "embedding",
                                {.input_signature = {{{5, 2}}, {{kNone, 3}, DType::Int32}}});
  auto perShape = value_and_grad(loss, Argnums{0}, "embedding_static");
  for (int64_t batch : {2, 4, 1}) {
    std::vector<int32_t> ids;
    for (int64_t i = 0; i < batch * 3; ++i)
      ids.push_back(static_cast<int32_t>((i * 7 + batch) % 5) - (i % 4 == 0 ? 5 : 0)); // some < 0
    Tensor tokens = Tensor::from_vector(ids, {batch, 3});
    auto [value, grads] = generic(table, tokens);
    auto [expectedValue, expected] = perShape(table, tokens);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-5) << batch;
    expectClose(grads[0], expected[0], 1e-5f);
    expectFiniteDifferences(loss, table, tokens, grads[0], {0, 7});
  }
  EXPECT_EQ(generic.concrete_functions().size(), 1u);
}

// Gathers from an operand with None dims have gradients: columns of a None
// batch, rows of a None batch by None indices (negative ones too), a None
// axis between None and known dims, and the last axis behind two None dims
// (a product of both as the matmul's batch). Values and gradients as the
// per-shape traces', and finite differences; one trace each.
TEST(TracedShapes, GatherGradientsFromNoneDims) {
  struct Case {
    std::vector<int64_t> signature;
    std::vector<int64_t> indicesSignature;
    int64_t axis;
  };
  for (const Case &c : {Case{{kNone, 5}, {3}, 1}, Case{{kNone, 3}, {kNone}, 0},
                        Case{{kNone, kNone, 3}, {2}, 1}, Case{{kNone, kNone, 4}, {3}, 2}}) {
    auto loss = [axis = c.axis](const Tensor &x, const Tensor &ids) {
      Tensor taken = gather(x, ids, axis);
      return reduce_sum(tanh(taken) * taken);
    };
    auto generic =
        value_and_grad(loss, Argnums{0}, "gather_none",
                       {.input_signature = {{c.signature}, {c.indicesSignature, DType::Int32}}});
    auto perShape = value_and_grad(loss, Argnums{0}, "gather_static");
    for (int64_t n : {2, 3, 1}) {
      std::vector<int64_t> dims = c.signature;
      for (int64_t &d : dims)
        d = d == kNone ? n + 1 : d; // the axis holds every index below
      int64_t axisSize = dims[static_cast<size_t>(c.axis)];
      int64_t count = c.indicesSignature[0] == kNone ? n + 2 : c.indicesSignature[0];
      std::vector<int32_t> ids;
      for (int64_t i = 0; i < count; ++i) // repeats, and one from the end
        ids.push_back(i == 0 ? -1 : static_cast<int32_t>((i * 2) % axisSize));
      std::mt19937 rng(static_cast<unsigned>(n));
      Tensor x = randomTensor(rng, Shape(std::span<const int64_t>(dims)));
      Tensor indices = Tensor::from_vector(ids, {count});
      auto [value, grads] = generic(x, indices);
      auto [expectedValue, expected] = perShape(x, indices);
      EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-5) << n;
      expectClose(grads[0], expected[0], 1e-5f);
      expectFiniteDifferences(loss, x, indices, grads[0], {0, static_cast<size_t>(x.numel()) - 1});
    }
    EXPECT_EQ(generic.concrete_functions().size(), 1u) << "axis " << c.axis;
    // The same gradient taken on a tape inside the traced function (its
    // derivative planned with the rest: products of sizes as a merge's).
    auto taped = function(
        [&](const Tensor &x, const Tensor &ids) {
          GradientTape tape;
          tape.watch(x);
          Tensor value = loss(x, ids);
          return *tape.gradient(value, {x})[0];
        },
        "gather_tape", {.input_signature = {{c.signature}, {c.indicesSignature, DType::Int32}}});
    for (int64_t n : {2, 3}) {
      std::vector<int64_t> dims = c.signature;
      for (int64_t &d : dims)
        d = d == kNone ? n + 1 : d;
      int64_t count = c.indicesSignature[0] == kNone ? n + 2 : c.indicesSignature[0];
      std::vector<int32_t> ids(static_cast<size_t>(count), 1);
      std::mt19937 rng(static_cast<unsigned>(n + 7));
      Tensor x = randomTensor(rng, Shape(std::span<const int64_t>(dims)));
      Tensor indices = Tensor::from_vector(ids, {count});
      expectClose(taped(x, indices), perShape(x, indices).gradients[0], 1e-5f);
    }
  }
}

// Splitting a None dim needs it whole: rows of 4 into [?, 3, 4] need a
// multiple of 3 rows, checked at the call, naming the reshape and the line.
TEST(TracedShapes, ASplitOfANoneDimMustComeOutWhole) {
  auto split = function(
      [](const Tensor &x) {
        return reshape(x, {-1, 3, 4});
      },
      "split", {.input_signature = {{{kNone, 4}}}});
  EXPECT_EQ(split(ones({6, 4})).shape(), Shape({2, 3, 4}));
  try {
    (void)split(ones({5, 4}));
    FAIL() << "no error";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("'ember.reshape' op in ember::function 'split': dim 0 of argument 0 "
                           "(5) must be a multiple of 3"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("TracedShapesTest.cpp:"), std::string::npos) << message;
  }
  // Split and merged back in a step that takes its gradient on a tape (a
  // function planned after its folds): the split's check still runs (before, the two
  // reshapes folded into one and 5 rows passed, where eagerly they raise).
  auto roundTrip = function(
      [](const Tensor &x) {
        GradientTape tape;
        tape.watch(x);
        Tensor loss = reduce_sum(square(reshape(reshape(x, {-1, 3, 4}), {-1, 4})));
        return *tape.gradient(loss, {x})[0];
      },
      "round_trip", {.input_signature = {{{kNone, 4}}}});
  EXPECT_EQ(roundTrip(ones({6, 4})).shape(), Shape({6, 4}));
  EXPECT_THROW((void)roundTrip(ones({5, 4})), OpError);
  EXPECT_THROW((void)reshape(reshape(ones({5, 4}), {-1, 3, 4}), {-1, 4}), OpError);
}

// Slices of a None dim, whole or in part, as a sequence model takes them
// (x[1:] against x[:-1], the last rows x[-2:], the first x[:3:2]): one trace
// serves every size and agrees with the per-shape traces, values and
// gradients. A size that cannot hold the bounds raises at the call, naming
// the slice and the line; forms a None dim does not take are refused by name.
TEST(TracedShapes, SlicesOfANoneDimWholeOrInPart) {
  auto loss = [](const Tensor &x) {
    Tensor next = slice(x, {1}, {kNone}), previous = slice(x, {kNone}, {-1});
    Tensor middle = slice(x, {1}, {-1}), last = slice(x, {-2}, {kNone});
    Tensor first = slice(x, {0}, {3}, {2}), columns = slice(x, {kNone, 1}, {kNone, 3});
    // Step -1: x[::-1] (first row against last), x[-2::-1], x[2:0:-1].
    Tensor reversed = slice(x, {kNone}, {kNone}, {-1}), butLast = slice(x, {-2}, {kNone}, {-1});
    Tensor down = slice(x, {2}, {0}, {-1});
    return reduce_sum(square(next - previous)) + reduce_sum(tanh(middle) * 0.5f) +
           reduce_sum(last * last * last) + reduce_sum(exp(first)) + reduce_mean(columns) +
           reduce_sum(reversed * x * x) + reduce_sum(tanh(slice(butLast, {0}, {1}) * x)) +
           reduce_sum(down * slice(x, {0}, {2}) * 2.0f);
  };
  auto generic = value_and_grad(loss, "slices_none", {.input_signature = {{{kNone, 4}}}});
  std::mt19937 rng(11);
  for (int64_t rows : {3, 5, 8}) {
    Tensor x = randomTensor(rng, {rows, 4});
    auto [value, gradients] = generic(x);
    auto [expectedValue, expected] = value_and_grad(loss, "slices_static")(x);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-4) << "rows " << rows;
    expectClose(gradients, expected, 1e-4f);
  }
  EXPECT_EQ(generic.concrete_functions().size(), 1u);
  try {
    (void)generic(ones({2, 4})); // x[0:3:2] needs 3 rows
    FAIL() << "no error";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("'ember.slice' op in "), std::string::npos) << message;
    EXPECT_NE(message.find("dim 0 of argument 0 (2) must be at least 3"), std::string::npos)
        << message;
    EXPECT_NE(message.find("TracedShapesTest.cpp:"), std::string::npos) << message;
  }
  auto refused = [](std::vector<int64_t> start, std::vector<int64_t> limit,
                    std::vector<int64_t> stride, const std::string &why) {
    auto f = function([&](const Tensor &x) { return slice(x, start, limit, stride); }, "refused",
                      {.input_signature = {{{kNone, 4}}}});
    try {
      (void)f(ones({3, 4}));
      ADD_FAILURE() << "no error for " << why;
    } catch (const OpError &e) {
      std::string message = e.what();
      EXPECT_NE(message.find("'ember.slice' op dim 0 of float32 tensor of shape (None, 4) is "
                             "None (its size is known at the call only): " +
                             why),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("TracedShapesTest.cpp:"), std::string::npos) << message;
      EXPECT_EQ(message.find("9223372036854775808"), std::string::npos) << message;
    }
  };
  // A function without results checks its sizes all the same (before, its
  // print read past the argument's buffer).
  auto first = function([](const Tensor &x) { print(slice(x, {0}, {5}), "first: "); }, "first",
                        {.input_signature = {{{kNone}}}});
  try {
    first(ones({3}));
    FAIL() << "no error";
  } catch (const OpError &e) {
    EXPECT_NE(std::string(e.what()).find("dim 0 of argument 0 (3) must be at least 5"),
              std::string::npos)
        << e.what();
  }
  refused({-2}, {1}, {1}, "a start counted from the end (-2) needs a limit counted from the end");
  refused({1}, {kNone}, {2},
          "a slice from a start to a limit counted from the end (or None) "
          "takes step 1 only, not 2");
  refused({kNone}, {kNone}, {-2},
          "a negative step other than -1 takes elements that depend on the size (its parity, "
          "...): not yet");
  refused({5}, {-3}, {-1},
          "a step of -1 from a start counted from the front (5) needs a stop counted from the "
          "front too, not -3");
}

// The integer mean over a None dim divides by its size read at the call
// (before, by the None marker's product: a wrong answer).
TEST(TracedShapes, AnIntegerMeanOverANoneDim) {
  auto mean = [](const Tensor &x) { return reduce_mean(x, {0}); };
  auto f = function(mean, "int_mean", {.input_signature = {{{kNone, 2}, DType::Int32}}});
  for (int64_t rows : {3, 4}) {
    std::vector<int32_t> values;
    for (int64_t i = 0; i < rows * 2; ++i)
      values.push_back(static_cast<int32_t>(7 * i + 1));
    Tensor x = Tensor::from_vector(values, {rows, 2}, DType::Int32);
    EXPECT_EQ(f(x).to_vector<int32_t>(), mean(x).to_vector<int32_t>()) << rows;
  }
  auto all = function([](const Tensor &x) { return reduce_mean(x); }, "int_mean_all",
                      {.input_signature = {{{kNone, 2}, DType::Int64}}});
  Tensor x = Tensor::from_vector(std::vector<int64_t>{1, 2, 3, 4, 5, 9}, {3, 2}, DType::Int64);
  EXPECT_EQ(all(x).item<int64_t>(), 4);
}

// A None batch broadcast against a known one (checked equal at the call):
// the gradient summed back to the None operand's type (before, its reshape
// from [5, 3] to [?, 3] failed to compile).
TEST(TracedShapes, AGradientFromAKnownSizeBackToANoneDim) {
  std::mt19937 rng(14);
  Tensor target = randomTensor(rng, {5, 3});
  auto loss = [&](const Tensor &x) { return reduce_sum(square(x - target)); };
  auto generic = value_and_grad(loss, "none_against_known", {.input_signature = {{{kNone, 3}}}});
  Tensor x = randomTensor(rng, {5, 3});
  auto [value, gradient] = generic(x);
  auto [expectedValue, expected] = value_and_grad(loss, "known_against_known")(x);
  EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-4);
  expectClose(gradient, expected, 1e-5f);
  EXPECT_THROW((void)generic(randomTensor(rng, {4, 3})), OpError);
}

// A None dim read from x.shape() cannot size a new tensor: the message says
// why and what to do (before: "negative dimension -9223372036854775808").
TEST(TracedShapes, ANoneDimCannotSizeANewTensor) {
  auto f = function(
      [](const Tensor &x) {
        return x + zeros({x.shape()[0], 2});
      },
      "zeros_none", {.input_signature = {{{kNone, 2}}}});
  try {
    (void)f(ones({3, 2}));
    FAIL() << "no error";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("a None dim cannot size a new tensor"), std::string::npos) << message;
    EXPECT_EQ(message.find("9223372036854775808"), std::string::npos) << message;
  }
}

// A None batch may be empty at the call: every kernel runs on no rows
// (before, a parallel loop divided its rows among zero blocks: SIGFPE), the
// gradient of the weights is zeros.
TEST(TracedShapes, AnEmptyNoneBatch) {
  std::mt19937 rng(12);
  Tensor w = randomTensor(rng, {256, 300});
  auto loss = [](const Tensor &weights, const Tensor &x) {
    return reduce_sum(exp(tanh(matmul(x, weights)))) + reduce_sum(x * x);
  };
  auto generic = value_and_grad(loss, Argnums{0, 1}, "empty_batch",
                                {.input_signature = {{{256, 300}}, {{kNone, 256}}}});
  for (int64_t rows : {300, 0}) {
    Tensor x = randomTensor(rng, {rows, 256});
    auto [value, gradients] = generic(w, x);
    auto [expectedValue, expected] = value_and_grad(loss, Argnums{0, 1}, "empty_static")(w, x);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(),
                1e-4 * std::abs(expectedValue.item<float>()))
        << "rows " << rows;
    ASSERT_EQ(gradients.size(), 2u);
    expectClose(gradients[0], expected[0], 1e-3f);
    EXPECT_EQ(gradients[1].shape(), (Shape{rows, 256}));
  }
}

// An argmax over a None axis that is empty at the call has no maximum: an
// error naming the op and the line, as for a known empty axis.
TEST(TracedShapes, ArgmaxOverAnEmptyNoneAxisRaises) {
  auto f = function([](const Tensor &x) { return argmax(x, 1); }, "argmax_none",
                    {.input_signature = {{{3, kNone}}}});
  EXPECT_EQ(
      f(Tensor::from_vector(std::vector<float>{0, 2, 1, 5, 4, 3}, {3, 2})).to_vector<int64_t>(),
      (std::vector<int64_t>{1, 1, 0}));
  try {
    (void)f(zeros({3, 0}));
    FAIL() << "no error";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("'ember.argmax' op"), std::string::npos) << message;
    EXPECT_NE(message.find("TracedShapesTest.cpp:"), std::string::npos) << message;
    EXPECT_NE(message.find("the reduced axis is empty: it has no maximum (axis 1 of "
                           "tensor<3x?xf32>)"),
              std::string::npos)
        << message;
  }
}

TEST(TracedShapes, InsideTheTraceANoneDimIsKNone) {
  Shape seen;
  auto f = function(
      [&](const Tensor &x) {
        seen = x.shape();
        return x + 1.0;
      },
      "shape", {.input_signature = {{{kNone, 2}}}});
  (void)f(ones({3, 2}));
  EXPECT_EQ(seen.rank(), 2);
  EXPECT_EQ(seen[0], kNone);
  EXPECT_EQ(seen[1], 2);
  EXPECT_FALSE(seen.is_fully_defined());
  EXPECT_EQ(seen.str(), "(None, 2)");
  // A tensor of values cannot take it.
  auto g = function([](const Tensor &x) { return x + zeros(x.shape()); }, "zeros",
                    {.input_signature = {{{kNone, 2}}}});
  try {
    (void)g(ones({3, 2}));
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("(None, 2)"), std::string::npos) << e.what();
  }
}

TEST(TracedShapes, FlattenAndDenseOnANoneBatch) {
  std::mt19937 rng(5);
  Tensor w = randomTensor(rng, {12, 5});
  auto body = [&](const Tensor &x) { return matmul(reshape(x, {-1, 12}), w); };
  auto f = function(body, "flatten", {.input_signature = {{{kNone, 3, 4}}}});
  for (int64_t batch : {2, 9, 1}) {
    Tensor x = randomTensor(rng, {batch, 3, 4});
    expectClose(f(x), body(x), 1e-5f);
  }
  EXPECT_EQ(f.concrete_functions().size(), 1u);
  // Regrouping elements across the None dim: [n, 4] -> [2, 2n].
  auto regroup = [](const Tensor &x) { return reshape(x, {2, -1}) * 3.0; };
  auto g = function(regroup, "regroup", {.input_signature = {{{kNone, 4}}}});
  for (int64_t rows : {3, 8}) {
    Tensor x = randomTensor(rng, {rows, 4});
    EXPECT_EQ(g(x).shape(), Shape({2, 2 * rows}));
    expectClose(g(x), regroup(x));
  }
  EXPECT_EQ(g.concrete_functions().size(), 1u);
}

// A function traced with None dims is on disk like any other: a new
// function object (a second process) called with another size loads it.
TEST(TracedShapes, TheGenericTraceIsCachedOnDisk) {
  std::string dir = (std::filesystem::temp_directory_path() / "ember-traced-shapes-cache").string();
  std::filesystem::remove_all(dir);
  ::setenv("EMBER_CACHE_DIR", dir.c_str(), 1);
  auto body = [](const Tensor &x) { return reduce_sum(x * x, {1}); };
  FunctionOptions options{.input_signature = {{{kNone, 3}}}};
  auto first = function(body, "cached_generic", options);
  EXPECT_EQ(first(ones({4, 3})).shape(), Shape({4}));
  EXPECT_FALSE(first.concrete_functions().front().from_disk_cache);
  auto second = function(body, "cached_generic", options);
  EXPECT_EQ(second(ones({9, 3})).to_vector<float>(), std::vector<float>(9, 3.f));
  EXPECT_TRUE(second.concrete_functions().front().from_disk_cache);
  ::unsetenv("EMBER_CACHE_DIR");
  std::filesystem::remove_all(dir);
}

// value_and_grad with a None batch: one trace and one compiled derivative
// for every batch size, agreeing with the per-shape derivative (gradients of
// the weights, static, and of the batch, None), and with finite differences.
TEST(TracedShapes, GradientsOnANoneBatch) {
  std::mt19937 rng(6);
  Tensor w = randomTensor(rng, {3, 2}), b = randomTensor(rng, {2});
  auto loss = [&](const Tensor &weights, const Tensor &x) {
    Tensor h = relu(matmul(x, weights) + b);
    return reduce_mean(h * h) + reduce_sum(tanh(x)) * 0.1;
  };
  auto generic = value_and_grad(loss, "loss_none", {.input_signature = {{{3, 2}}, {{kNone, 3}}}});
  auto perShape = value_and_grad(loss, "loss_static");
  for (int64_t batch : {4, 1, 7}) {
    Tensor x = randomTensor(rng, {batch, 3});
    auto [value, gradients] = generic(w, x);
    auto [expectedValue, expected] = perShape(w, x);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-5) << "batch " << batch;
    ASSERT_EQ(gradients.size(), 2u);
    expectClose(gradients[0], expected[0], 1e-5f);
    expectClose(gradients[1], expected[1], 1e-5f);
    // Finite differences on one element of each.
    auto at = [&](const Tensor &t, int64_t i, float delta) {
      std::vector<float> v = t.to_vector<float>();
      v[static_cast<size_t>(i)] += delta;
      return Tensor::from_vector(v, t.shape());
    };
    const float h = 1e-2f;
    for (int which = 0; which < 2; ++which) {
      Tensor base = which == 0 ? w : x;
      int64_t i = base.numel() - 1;
      auto evaluate = [&](const Tensor &t) {
        return double(which == 0 ? loss(t, x).item<float>() : loss(w, t).item<float>());
      };
      double numeric = (evaluate(at(base, i, h)) - evaluate(at(base, i, -h))) / (2 * h);
      EXPECT_NEAR(gradients[which].to_vector<float>()[i], numeric, 2e-3) << "batch " << batch;
    }
  }
  EXPECT_EQ(generic.concrete_functions().size(), 1u);
  EXPECT_EQ(generic.concrete_functions()[0].signature.find("float32[?, 3]") != std::string::npos,
            true)
      << generic.concrete_functions()[0].signature;
}

// A traced training step on a None batch (a partial last batch compiles
// nothing): a tape inside the function, a variable assigned.
TEST(TracedShapes, ATrainingStepOnANoneBatch) {
  Variable w(random_uniform({3, 2}, 1), "w"), reference(w.value(), "reference");
  auto stepOf = [](Variable &v) {
    return [&v](const Tensor &x, const Tensor &y) {
      GradientTape tape;
      Tensor l = reduce_mean(square(matmul(x, v) - y));
      auto grads = tape.gradient(l, {v});
      v.assign_sub(*grads[0] * 0.1f);
      return l;
    };
  };
  auto step = function(stepOf(w), "step", {.input_signature = {{{kNone, 3}}, {{kNone, 2}}}});
  auto perShape = function(stepOf(reference), "step_static");
  for (int64_t n : {8, 8, 3}) {
    Tensor x = random_uniform({n, 3}, static_cast<uint64_t>(n)),
           y = random_uniform({n, 2}, static_cast<uint64_t>(n + 1));
    EXPECT_NEAR(step(x, y).item<float>(), perShape(x, y).item<float>(), 1e-5) << "batch " << n;
    expectClose(w.value(), reference.value(), 1e-5f);
  }
  EXPECT_EQ(step.concrete_functions().size(), 1u);
}

// ember::shape: the sizes as a tensor, a None dim's read at run time.
TEST(TracedShapes, ShapeGivesTheRunTimeSizes) {
  EXPECT_EQ(shape(ones({4, 3})).to_vector<int64_t>(), (std::vector<int64_t>{4, 3}));
  auto f = function(
      [](const Tensor &x) {
        // The mean over the rows, counted with the run-time row count.
        Tensor rows = cast(slice(shape(x), {0}, {1}), DType::Float32);
        return reduce_sum(x, {0}) / rows;
      },
      "mean_rows", {.input_signature = {{{kNone, 3}}}});
  for (int64_t n : {2, 5}) {
    Tensor x = random_uniform({n, 3}, static_cast<uint64_t>(n));
    expectClose(f(x), reduce_mean(x, {0}), 1e-5f);
  }
  EXPECT_EQ(f.concrete_functions().size(), 1u);
}

// Reshapes of several None dims: merged with -1 (the rows are their
// product, a result sized at the call), split back by a tensor's sizes
// (checked at the call: counts that disagree raise, naming the reshape and
// the line), and their gradients.
TEST(TracedShapes, ReshapesOfSeveralNoneDims) {
  auto merge = function(
      [](const Tensor &x) {
        return reshape(x, {-1, 2});
      },
      "merge", {.input_signature = {{{kNone, kNone, 4}}}});
  for (auto [b, t] : {std::pair<int64_t, int64_t>{2, 3}, {1, 1}, {0, 4}}) {
    Tensor x = random_uniform({b, t, 4}, static_cast<uint64_t>(b + t));
    Tensor merged = merge(x);
    EXPECT_EQ(merged.shape(), Shape({b * t * 2, 2}));
    EXPECT_EQ(merged.to_vector<float>(), x.to_vector<float>());
  }
  EXPECT_EQ(merge.concrete_functions().size(), 1u);

  int line = __LINE__ + 3;
  auto split = function(
      [](const Tensor &rows, const Tensor &like) {
        return reshape(rows, {kNone, kNone, 3}, like);
      },
      "split", {.input_signature = {{{kNone, 3}}, {{kNone, kNone}}}});
  Tensor rows = random_uniform({6, 3}, 1);
  Tensor splitRows = split(rows, zeros({2, 3}));
  EXPECT_EQ(splitRows.shape(), Shape({2, 3, 3}));
  EXPECT_EQ(splitRows.to_vector<float>(), rows.to_vector<float>());
  EXPECT_EQ(split(rows, zeros({3, 2})).shape(), Shape({3, 2, 3}));
  try {
    (void)split(rows, zeros({2, 2}));
    FAIL() << "no error";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("'ember.reshape' op"), std::string::npos) << message;
    EXPECT_NE(message.find("TracedShapesTest.cpp:" + std::to_string(line)), std::string::npos)
        << message;
    EXPECT_NE(message.find("must be equal"), std::string::npos) << message;
  }
  EXPECT_EQ(split.concrete_functions().size(), 1u);

  // Sizes that regroup the rows (never the operand's own grouping): 24
  // elements as [24, 1, 1] and [1, 24, 1] from [2, 12, 1], as [6, 4] from
  // [2, 3, 4]; a constant split by the call's sizes.
  std::vector<float> counting(24);
  for (size_t i = 0; i < counting.size(); ++i)
    counting[i] = static_cast<float>(i);
  auto regroup = function(
      [](const Tensor &x, const Tensor &like) {
        return reduce_sum(reshape(x, {kNone, kNone, 1}, like), {1});
      },
      "regroup", {.input_signature = {{{kNone, kNone, 1}}, {{kNone, kNone}}}});
  auto collapse = function(
      [](const Tensor &x, const Tensor &like) {
        return reduce_sum(reshape(x, {kNone, kNone}, like), {1});
      },
      "collapse", {.input_signature = {{{kNone, kNone, kNone}}, {{kNone, kNone}}}});
  Tensor tall = Tensor::from_vector(counting, {2, 12, 1}),
         cube = Tensor::from_vector(counting, {2, 3, 4});
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{24, 1}, {1, 24}, {6, 4}}) {
    Tensor like = zeros({rows, cols});
    if (cols == 1 || rows == 1)
      EXPECT_EQ(regroup(tall, like).to_vector<float>(),
                reduce_sum(reshape(tall, {rows, cols, 1}), {1}).to_vector<float>());
    EXPECT_EQ(collapse(cube, like).to_vector<float>(),
              reduce_sum(reshape(cube, {rows, cols}), {1}).to_vector<float>());
  }
  Tensor constant = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {6});
  auto fromConstant = function(
      [&](const Tensor &like) {
        return reshape(constant, {kNone, kNone}, like) + like;
      },
      "from_constant", {.input_signature = {{{kNone, kNone}}}});
  EXPECT_EQ(fromConstant(zeros({3, 2})).to_vector<float>(), constant.to_vector<float>());
  EXPECT_EQ(fromConstant(zeros({3, 2})).shape(), Shape({3, 2}));
  EXPECT_THROW((void)fromConstant(zeros({4, 2})), OpError);
  // A None x into a known shape (like's sizes known): the count is checked.
  auto intoKnown = function(
      [](const Tensor &x) {
        return reshape(x, {kNone, 8}, zeros({2, 1}));
      },
      "into_known", {.input_signature = {{{kNone, 4}}}});
  EXPECT_EQ(intoKnown(ones({4, 4})).shape(), Shape({2, 8}));
  EXPECT_THROW((void)intoKnown(ones({3, 4})), OpError);
  // Sizes whose product does not fit in int64 fail the check (before: it
  // wrapped to 0, passed, and the kernel read far past the buffer).
  auto huge = function(
      [](const Tensor &x, const Tensor &like) {
        return reduce_sum(reshape(x, {kNone, 1024, kNone}, like));
      },
      "huge", {.input_signature = {{{kNone}}, {{kNone, kNone, kNone}}}});
  try {
    (void)huge(zeros({0}), zeros({int64_t{1} << 27, 0, int64_t{1} << 27}));
    FAIL() << "no error";
  } catch (const OpError &e) {
    EXPECT_NE(std::string(e.what()).find("(beyond int64) must be equal"), std::string::npos)
        << e.what();
  }

  // The gradient through both: each element's own weight, back in x's shape.
  auto weighted = value_and_grad(
      [](const Tensor &x) {
        Tensor merged = reshape(x, {-1, 4});
        Tensor back = reshape(merged * merged, {kNone, kNone, 4}, x);
        return reduce_sum(back * x);
      },
      "weighted", {.input_signature = {{{kNone, kNone, 4}}}});
  Tensor x = random_uniform({3, 2, 4}, 5);
  auto [value, grads] = weighted(x);
  expectClose(grads, x * x * Tensor(3.0f), 1e-4f); // d(x^3)/dx
  EXPECT_NEAR(value.item<float>(), reduce_sum(x * x * x).item<float>(), 1e-4);
  try {
    (void)reshape(zeros({2, 3}), {kNone, 3}, zeros({2}));
    (void)reshape(zeros({6}), {kNone, kNone}, zeros({2}));
    FAIL() << "no error";
  } catch (const OpError &e) {
    EXPECT_NE(std::string(e.what()).find("dim 1 of the target (None, None) is None, and float32 "
                                         "tensor of shape (2,) has no dim 1"),
              std::string::npos)
        << e.what();
  }
}

// A symbolic tensor with a None dim says it has no values yet (before:
// to_vector asked for a vector of 2^64 elements, nbytes wrapped around);
// one_hot takes indices with several None dims (its column reshape sized
// by the indices).
TEST(TracedShapes, SymbolicTensorsWithNoneDims) {
  auto expectMessage = [](auto &&read, const std::string &expected) {
    auto f = function(
        [&](const Tensor &x) {
          read(x);
          return x;
        },
        "reads", {.input_signature = {{{kNone, 3}}}});
    try {
      (void)f(ones({2, 3}));
      ADD_FAILURE() << "no error for " << expected;
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  expectMessage([](const Tensor &x) { (void)x.to_vector<float>(); },
                "cannot read the values of a symbolic tensor (float32, shape (None, 3))");
  expectMessage([](const Tensor &x) { (void)x.item<float>(); },
                "cannot read the values of a symbolic tensor (float32, shape (None, 3))");
  expectMessage([](const Tensor &x) { (void)x.nbytes(); },
                "the size in bytes of a tensor of shape (None, 3) is known only when the traced "
                "function is called");
  // A symbolic tensor kept after its trace ended: ops that size by its None
  // dims raise, naming the op (before: a null tracer was called).
  Tensor kept;
  auto keep = function(
      [&](const Tensor &x) {
        kept = x;
        return x;
      },
      "keep", {.input_signature = {{{kNone, 3}}}});
  (void)keep(ones({2, 3}));
  EXPECT_THROW((void)reshape(kept, {kNone, 3}, kept), OpError);
  EXPECT_THROW((void)iota_like(kept, 0), OpError);
  auto hot = function([](const Tensor &ids) { return nn::one_hot(ids, 4); }, "one_hot_none",
                      {.input_signature = {{{kNone, kNone}, DType::Int32}}});
  for (auto [b, t] : {std::pair<int64_t, int64_t>{2, 3}, {1, 5}}) {
    std::vector<int32_t> ids(static_cast<size_t>(b * t));
    for (size_t i = 0; i < ids.size(); ++i)
      ids[i] = static_cast<int32_t>(i % 5) - 1; // -1 and 4 are outside: rows of zeros
    Tensor indices = Tensor::from_vector(ids, {b, t});
    EXPECT_EQ(hot(indices).to_vector<float>(), nn::one_hot(indices, 4).to_vector<float>());
    EXPECT_EQ(hot(indices).shape(), Shape({b, t, 4}));
  }
  EXPECT_EQ(hot.concrete_functions().size(), 1u);
}

// iota_like numbers elements along a dim, eagerly and inside a trace,
// where a None dim's indices run to the size read at the call.
TEST(TracedShapes, IotaLikeNumbersANoneDimAtRunTime) {
  EXPECT_EQ(iota_like(zeros({2, 3}), 1).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(iota_like(zeros({2, 3}), -2, DType::Float32).to_vector<float>(),
            (std::vector<float>{0, 0, 0, 1, 1, 1}));
  auto f = function(
      [](const Tensor &x) {
        // Each element's row-major number, from the run-time width.
        Tensor width = gather(shape(x), Tensor(int64_t{1}, DType::Int64), 0);
        return iota_like(x, 0) * width + iota_like(x, 1);
      },
      "numbers", {.input_signature = {{{kNone, kNone}}}});
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{2, 3}, {4, 1}, {0, 2}}) {
    std::vector<int64_t> expected(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < expected.size(); ++i)
      expected[i] = static_cast<int64_t>(i);
    Tensor got = f(zeros({rows, cols}));
    EXPECT_EQ(got.shape(), Shape({rows, cols}));
    EXPECT_EQ(got.to_vector<int64_t>(), expected) << rows << "x" << cols;
  }
  EXPECT_EQ(f.concrete_functions().size(), 1u);
  try {
    (void)iota_like(zeros({2}), 1);
    FAIL() << "no error";
  } catch (const OpError &e) {
    EXPECT_NE(std::string(e.what()).find("'ember.iota' op axis 1 is out of range for float32 "
                                         "tensor of shape (2,)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)iota_like(zeros({2}), 0, DType::Bool), OpError);
}

// Convolutions and poolings on a None batch: one trace serves every batch
// size and agrees with the per-shape trace, values and gradients (the
// stride-2 convolution's input gradient is cropped: a `?` batch sliced
// whole), and with finite differences.
TEST(TracedShapes, ConvolutionsAndPoolingsOnANoneBatch) {
  std::mt19937 rng(8);
  Tensor w1 = randomTensor(rng, {3, 3, 2, 4}), w2 = randomTensor(rng, {2, 2, 4, 3});
  auto loss = [&](const Tensor &a, const Tensor &b, const Tensor &x) {
    Tensor h = relu(nn::conv2d(x, a, {1, 1}, "SAME"));
    h = nn::max_pool2d(h, {2, 2}, {2, 2});
    // Padding wider than the filter's reach: its input gradient is cropped.
    h = nn::conv2d(h, b, {2, 2}, std::array<int64_t, 4>{2, 0, 2, 0});
    h = nn::avg_pool2d(h, {2, 2}, {1, 1}, "SAME");
    return reduce_mean(h * h);
  };
  auto generic = value_and_grad(
      loss, "cnn_none", {.input_signature = {{{3, 3, 2, 4}}, {{2, 2, 4, 3}}, {{kNone, 9, 9, 2}}}});
  auto perShape = value_and_grad(loss, "cnn_static");
  for (int64_t batch : {3, 1, 5}) {
    Tensor x = randomTensor(rng, {batch, 9, 9, 2});
    auto [value, gradients] = generic(w1, w2, x);
    auto [expectedValue, expected] = perShape(w1, w2, x);
    EXPECT_NEAR(value.item<float>(), expectedValue.item<float>(), 1e-5) << "batch " << batch;
    ASSERT_EQ(gradients.size(), 3u);
    for (size_t i = 0; i < 3; ++i)
      expectClose(gradients[i], expected[i], 1e-5f);
    // Finite differences on one element of the second filter (the loss is
    // smooth in it: past the relu and the max pooling).
    std::vector<float> plus = w2.to_vector<float>(), minus = plus;
    const float h = 1e-2f;
    plus[5] += h;
    minus[5] -= h;
    double numeric = (double(loss(w1, Tensor::from_vector(plus, w2.shape()), x).item<float>()) -
                      double(loss(w1, Tensor::from_vector(minus, w2.shape()), x).item<float>())) /
                     (2 * h);
    EXPECT_NEAR(gradients[1].to_vector<float>()[5], numeric, 2e-3) << "batch " << batch;
  }
  ASSERT_EQ(generic.concrete_functions().size(), 1u);
  EXPECT_NE(generic.concrete_functions()[0].signature.find("float32[?, 9, 9, 2]"),
            std::string::npos)
      << generic.concrete_functions()[0].signature;
}

// Randomized differential test of traced functions with gradients over many
// batch sizes: for each op family, value_and_grad traced once with a None
// batch (generic kernels) against the same traced per shape (specialized
// kernels) and against a float64 reference taken eagerly on a GradientTape
// (another road to the derivative), at random batch sizes.
namespace {

using Family3 = std::function<Tensor(const Tensor &, const Tensor &, const Tensor &)>;

struct RandomFamily {
  const char *name;
  Shape a, b, x; // x's dim 0 is the batch
  Family3 f;
};

void expectNearRelative(const Tensor &got, const Tensor &expected, double tolerance,
                        const std::string &what) {
  ASSERT_EQ(got.shape(), expected.shape()) << what;
  std::vector<double> a = cast(got, DType::Float64).to_vector<double>(),
                      b = cast(expected, DType::Float64).to_vector<double>();
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], tolerance * (1 + std::abs(b[i]))) << what << " element " << i;
}

} // namespace

TEST(TracedShapes, RandomBatchesAgreeWithSpecializedTracesAndAFloat64Tape) {
  std::vector<RandomFamily> families = {
      {"elementwise",
       {8},
       {8},
       {0, 8},
       [](const Tensor &a, const Tensor &b, const Tensor &x) {
         return reduce_mean(tanh(x * a + b) * sigmoid(x));
       }},
      {"reductions",
       {8},
       {1},
       {0, 8},
       [](const Tensor &a, const Tensor &b, const Tensor &x) {
         Tensor y = x * a;
         return reduce_mean(reduce_max(y, {1}) + reduce_sum(exp(y * 0.1), {1}) * b);
       }},
      {"dense",
       {8, 5},
       {5},
       {0, 8},
       [](const Tensor &a, const Tensor &b, const Tensor &x) {
         Tensor h = relu(matmul(x, a) + b);
         return reduce_mean(h * h);
       }},
      {"log_softmax",
       {8, 5},
       {5},
       {0, 8},
       [](const Tensor &a, const Tensor &b, const Tensor &x) {
         return -reduce_mean(nn::log_softmax(matmul(x, a) + b));
       }},
      {"flatten",
       {12, 3},
       {3},
       {0, 3, 4},
       [](const Tensor &a, const Tensor &b, const Tensor &x) {
         Tensor h = tanh(matmul(reshape(transpose(x, {0, 2, 1}), {-1, 12}), a) + b);
         return reduce_sum(h * h);
       }},
      {"conv",
       {3, 3, 2, 4},
       {4},
       {0, 6, 6, 2},
       [](const Tensor &a, const Tensor &b, const Tensor &x) {
         Tensor h = tanh(nn::conv2d(x, a, {1, 1}, "SAME") + b);
         return reduce_mean(nn::avg_pool2d(h * h, {2, 2}, {2, 2}));
       }},
  };
  std::mt19937 rng(25);
  std::uniform_int_distribution<int64_t> batchSize(1, 40);
  for (const RandomFamily &family : families) {
    SCOPED_TRACE(family.name);
    std::vector<int64_t> none = family.x.vec();
    none[0] = kNone;
    auto generic =
        value_and_grad(family.f, std::string("random_") + family.name,
                       {.input_signature = {{family.a.vec()}, {family.b.vec()}, {none}}});
    auto perShape = value_and_grad(family.f, std::string("random_static_") + family.name);
    Tensor a = randomTensor(rng, family.a), b = randomTensor(rng, family.b);
    for (int round = 0; round < 4; ++round) {
      std::vector<int64_t> dims = family.x.vec();
      dims[0] = batchSize(rng);
      Tensor x = randomTensor(rng, Shape(std::span<const int64_t>(dims)));
      std::string what = std::string(family.name) + " batch " + std::to_string(dims[0]);
      auto [value, gradients] = generic(a, b, x);
      auto [specializedValue, specialized] = perShape(a, b, x);
      // The float64 reference, eagerly on a tape.
      Tensor a64 = cast(a, DType::Float64), b64 = cast(b, DType::Float64),
             x64 = cast(x, DType::Float64);
      GradientTape tape;
      tape.watch(a64);
      tape.watch(b64);
      tape.watch(x64);
      Tensor reference = family.f(a64, b64, x64);
      std::vector<Tensor> references =
          tape.gradient(reference, {a64, b64, x64}, UnconnectedGradients::Zero);
      expectNearRelative(value, specializedValue, 1e-5, what + " value (specialized)");
      expectNearRelative(value, reference, 1e-4, what + " value (float64)");
      ASSERT_EQ(gradients.size(), 3u);
      for (size_t i = 0; i < 3; ++i) {
        std::string of = what + " gradient " + std::to_string(i);
        expectNearRelative(gradients[i], specialized[i], 1e-5, of + " (specialized)");
        expectNearRelative(gradients[i], references[i], 1e-4, of + " (float64)");
      }
    }
    EXPECT_EQ(generic.concrete_functions().size(), 1u);
  }
}
