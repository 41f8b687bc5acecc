// ember::onnx's C++ door: models built here with ONNX's own protobuf
// classes, loaded, run through the JIT and checked against the same
// computation written with ember's ops.
#include "ember/ember.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <tuple>

#include <unistd.h>

using namespace ember;

namespace {

/// A graph of one opset-13 model, saved to a temporary file by save().
struct ModelBuilder {
  ::onnx::ModelProto model;
  ::onnx::GraphProto *graph;
  ModelBuilder() {
    model.set_ir_version(8);
    model.add_opset_import()->set_version(13);
    graph = model.mutable_graph();
    graph->set_name("test");
  }
  void value(::onnx::ValueInfoProto *info, const std::string &name, int type,
             std::vector<int64_t> dims) {
    info->set_name(name);
    auto *tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(type);
    auto *shape = tensor->mutable_shape();
    for (int64_t d : dims) {
      if (d < 0)
        shape->add_dim()->set_dim_param("batch");
      else
        shape->add_dim()->set_dim_value(d);
    }
  }
  void input(const std::string &name, std::vector<int64_t> dims,
             int type = ::onnx::TensorProto::FLOAT) {
    value(graph->add_input(), name, type, dims);
  }
  void output(const std::string &name, std::vector<int64_t> dims,
              int type = ::onnx::TensorProto::FLOAT) {
    value(graph->add_output(), name, type, dims);
  }
  void weight(const std::string &name, std::vector<int64_t> dims, std::vector<float> values) {
    ::onnx::TensorProto *t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      t->add_dims(d);
    for (float v : values)
      t->add_float_data(v);
  }
  ::onnx::NodeProto *node(const std::string &type, std::vector<std::string> inputs,
                          std::vector<std::string> outputs) {
    ::onnx::NodeProto *n = graph->add_node();
    n->set_op_type(type);
    n->set_name(type + "_" + std::to_string(graph->node_size()));
    for (const std::string &i : inputs)
      n->add_input(i);
    for (const std::string &o : outputs)
      n->add_output(o);
    return n;
  }
  std::string save(const std::string &stem) {
    std::string path = (std::filesystem::temp_directory_path() /
                        (stem + "-" + std::to_string(::getpid()) + ".onnx"))
                           .string();
    std::ofstream file(path, std::ios::binary);
    model.SerializeToOstream(&file);
    return path;
  }
};

/// y = tanh(x @ w + b), x: float32[batch, 2].
std::string denseModel() {
  ModelBuilder m;
  m.input("x", {-1, 2});
  m.output("y", {-1, 3});
  m.weight("w", {2, 3}, {0.5f, -1.f, 0.25f, 2.f, 0.f, -0.5f});
  m.weight("b", {3}, {0.1f, 0.2f, -0.3f});
  m.node("MatMul", {"x", "w"}, {"xw"});
  m.node("Add", {"xw", "b"}, {"z"});
  m.node("Tanh", {"z"}, {"y"});
  return m.save("dense");
}

Tensor denseByHand(const Tensor &x) {
  Tensor w = Tensor::from_vector(std::vector<float>{0.5f, -1.f, 0.25f, 2.f, 0.f, -0.5f}, {2, 3});
  Tensor b = Tensor::from_vector(std::vector<float>{0.1f, 0.2f, -0.3f}, {3});
  return tanh(matmul(x, w) + b);
}

void expectClose(const Tensor &got, const Tensor &want, double tolerance = 1e-6) {
  ASSERT_EQ(got.shape().vec(), want.shape().vec());
  std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
  for (size_t i = 0; i < g.size(); ++i)
    EXPECT_NEAR(g[i], w[i], tolerance) << "element " << i;
}

} // namespace

TEST(ONNXModel, RunsLikeTheSameOpsWrittenByHandForEveryBatch) {
  std::string path = denseModel();
  ember::onnx::Model model = ember::onnx::load(path);
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].name, "x");
  EXPECT_EQ(model.inputs()[0].shape, (std::vector<int64_t>{kNone, 2}));
  EXPECT_EQ(model.outputs()[0].shape, (std::vector<int64_t>{kNone, 3}));
  for (int64_t rows : {1, 4, 4, 7}) {
    Tensor x = random_uniform({rows, 2}, 7 + rows) * 2.f - 1.f;
    std::vector<Tensor> y = model({x});
    ASSERT_EQ(y.size(), 1u);
    expectClose(y[0], denseByHand(x));
  }
  EXPECT_NE(model.traced_ir({ones({4, 2})}).find("ember.tanh"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(ONNXModel, CallsThatDoNotFitTheInputsAreRefused) {
  std::string path = denseModel();
  ember::onnx::Model model = ember::onnx::load(path);
  auto message = [&](const std::vector<Tensor> &inputs) {
    try {
      model(inputs);
    } catch (const ember::onnx::ImportError &error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({ones({2, 3})}).find("input 0 ('x') must be float32[?, 2], not"),
            std::string::npos);
  EXPECT_NE(message({ones({2, 2}, DType::Float64)}).find("must be float32[?, 2]"),
            std::string::npos);
  EXPECT_NE(message({}).find("takes 1 inputs, not 0"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(ONNXModel, InputsNeededWhileCompilingCanBeGivenAsConstants) {
  ModelBuilder m;
  m.input("x", {2, 3});
  m.input("shape", {2}, ::onnx::TensorProto::INT64);
  m.output("y", {3, 2});
  m.node("Reshape", {"x", "shape"}, {"y"});
  std::string path = m.save("reshape");
  ember::onnx::Model plain = ember::onnx::load(path);
  Tensor x = reshape(arange(0, 6, 1, DType::Float32), {2, 3});
  try {
    plain({x, Tensor::from_vector(std::vector<int64_t>{3, 2}, {2})});
    FAIL() << "no error";
  } catch (const ember::onnx::NeedsConstantError &error) {
    EXPECT_EQ(error.input, "shape");
    EXPECT_NE(std::string(error.what()).find("(Reshape): input 1 ('shape') must be known"),
              std::string::npos)
        << error.what();
  }
  ember::onnx::LoadOptions options;
  options.constants["shape"] = Tensor::from_vector(std::vector<int64_t>{3, -1}, {2});
  ember::onnx::Model model = ember::onnx::load(path, options);
  ASSERT_EQ(model.inputs().size(), 1u); // the constant left the inputs
  expectClose(model({x})[0], reshape(x, {3, 2}));
  std::filesystem::remove(path);
}

TEST(ONNXModel, AttributesEmberDoesNotImplementAreNamed) {
  ModelBuilder m;
  m.input("x", {2, 3});
  m.output("y", {3, 3});
  ::onnx::TensorProto *pads = m.graph->add_initializer();
  pads->set_name("pads");
  pads->set_data_type(::onnx::TensorProto::INT64);
  pads->add_dims(4);
  for (int64_t p : {1, 0, 0, 0})
    pads->add_int64_data(p);
  ::onnx::NodeProto *pad = m.node("Pad", {"x", "pads"}, {"y"});
  pad->set_name("mirror");
  auto *mode = pad->add_attribute();
  mode->set_name("mode");
  mode->set_type(::onnx::AttributeProto::STRING);
  mode->set_s("wrap"); // opset 19's
  std::string path = m.save("pad");
  try {
    ember::onnx::load(path)({ones({2, 3})});
    FAIL() << "no error";
  } catch (const ember::onnx::ImportError &error) {
    EXPECT_NE(std::string(error.what())
                  .find("node 'mirror' (Pad): attribute mode = wrap is not supported"),
              std::string::npos)
        << error.what();
  }
  std::filesystem::remove(path);
}

TEST(ONNXModel, RecurrentSequenceLengthsMaskEachSequenceItsOwnWay) {
  // A bidirectional LSTM over a batch of a 4-step and a 2-step sequence is
  // the same LSTM over each sequence alone: zeros past the shorter one's
  // end, its final states at its own end (its reverse pass starting there).
  const int64_t features = 2, hidden = 3;
  auto values = [](int64_t n, float scale) {
    std::vector<float> v;
    for (int64_t i = 0; i < n; ++i)
      v.push_back(scale * std::sin(0.7f * float(i) + 0.3f));
    return v;
  };
  std::vector<std::string> paths;
  auto lstm = [&](int64_t steps, int64_t batch, const char *way = "bidirectional") {
    int64_t directions = std::string(way) == "bidirectional" ? 2 : 1;
    ModelBuilder m;
    m.input("x", {steps, batch, features});
    m.input("lengths", {batch}, ::onnx::TensorProto::INT32);
    m.weight("w", {directions, 4 * hidden, features},
             values(directions * 4 * hidden * features, 0.5f));
    m.weight("r", {directions, 4 * hidden, hidden}, values(directions * 4 * hidden * hidden, 0.4f));
    m.weight("b", {directions, 8 * hidden}, values(directions * 8 * hidden, 0.2f));
    m.output("y", {steps, directions, batch, hidden});
    m.output("h", {directions, batch, hidden});
    m.output("c", {directions, batch, hidden});
    ::onnx::NodeProto *n = m.node("LSTM", {"x", "w", "r", "b", "lengths"}, {"y", "h", "c"});
    auto *direction = n->add_attribute();
    direction->set_name("direction");
    direction->set_type(::onnx::AttributeProto::STRING);
    direction->set_s(way);
    auto *size = n->add_attribute();
    size->set_name("hidden_size");
    size->set_type(::onnx::AttributeProto::INT);
    size->set_i(hidden);
    paths.push_back(m.save(std::string("lstm-") + way + "-" + std::to_string(steps) + "x" +
                           std::to_string(batch)));
    return ember::onnx::load(paths.back());
  };
  Tensor x = Tensor::from_vector(values(4 * 2 * features, 1.0f), {4, 2, features});
  std::vector<Tensor> both = lstm(4, 2)({x, Tensor({4, 2})});
  std::vector<Tensor> first = lstm(4, 1)({slice(x, {0, 0, 0}, {kNone, 1, kNone}), Tensor({4})});
  std::vector<Tensor> second = lstm(2, 1)({slice(x, {0, 1, 0}, {2, 2, kNone}), Tensor({2})});
  auto expectNear = [](const Tensor &got, const Tensor &expected, const char *what) {
    std::vector<float> g = got.to_vector<float>(), e = expected.to_vector<float>();
    ASSERT_EQ(g.size(), e.size()) << what;
    for (size_t i = 0; i < g.size(); ++i)
      EXPECT_NEAR(g[i], e[i], 1e-5f) << what << " [" << i << "]";
  };
  for (int k = 0; k < 3; ++k) {
    int64_t batchDim = k == 0 ? 2 : 1; // y: [T, D, B, H]; h, c: [D, B, H]
    auto ofSequence = [&](const Tensor &t, int64_t b, int64_t steps) {
      std::vector<int64_t> start(static_cast<size_t>(t.rank()), 0), limit(start.size(), kNone);
      start[batchDim] = b;
      limit[batchDim] = b + 1;
      if (k == 0)
        limit[0] = steps;
      return slice(t, start, limit);
    };
    expectNear(ofSequence(both[k], 0, 4), first[k], "the 4-step sequence");
    expectNear(ofSequence(both[k], 1, 2), second[k], "the 2-step sequence");
  }
  std::vector<float> past =
      slice(both[0], {2, 0, 1, 0}, {kNone, kNone, 2, kNone}).to_vector<float>();
  EXPECT_EQ(past, std::vector<float>(past.size(), 0.f)) << "outputs past the shorter sequence";
  // A length past the steps, or below 0, is refused when the model runs, in
  // either direction.
  for (const char *way : {"forward", "reverse"})
    for (int length : {5, -1})
      EXPECT_THROW(lstm(4, 1, way)({slice(x, {0, 0, 0}, {kNone, 1, kNone}), Tensor({length})}),
                   ember::Error)
          << way << " " << length;
  for (const std::string &path : paths)
    std::filesystem::remove(path);
}

TEST(ONNXModel, AGradientTapeDifferentiatesThroughAnImportedModel) {
  // d/dx sum(tanh(x @ w + b)) by a tape over the compiled model, against
  // central finite differences.
  std::string path = denseModel();
  ember::onnx::Model model = ember::onnx::load(path);
  Tensor x = Tensor::from_vector(std::vector<float>{0.3f, -0.7f, 0.1f, 0.9f}, {2, 2});
  GradientTape tape;
  tape.watch(x);
  Tensor loss = reduce_sum(model({x})[0]);
  std::optional<Tensor> gradient = tape.gradient(loss, {x})[0];
  ASSERT_TRUE(gradient.has_value()) << "the tape did not see the model's call";
  Tensor grad = *gradient;
  std::vector<float> values = x.to_vector<float>(), g = grad.to_vector<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    auto at = [&](float delta) {
      std::vector<float> shifted = values;
      shifted[i] += delta;
      return reduce_sum(denseByHand(Tensor::from_vector(shifted, {2, 2}))).item<double>();
    };
    double eps = 1e-2, numeric = (at(eps) - at(-eps)) / (2 * eps);
    EXPECT_NEAR(g[i], numeric, 2e-3) << "element " << i;
  }
  std::filesystem::remove(path);
}

TEST(ONNXModel, AGroupedConvolutionConvolvesEachGroupWithItsFilters) {
  // 4 input channels in 2 groups, 2 filters a group (1x1), against the same
  // computed by hand: output channel o of group g sums the group's inputs.
  ModelBuilder m;
  m.input("x", {1, 4, 2, 2});
  m.output("y", {1, 4, 2, 2});
  std::vector<float> weights = {1, 2, 3, 4, 5, 6, 7, 8}; // [4 outputs][2 inputs of its group]
  m.weight("w", {4, 2, 1, 1}, weights);
  ::onnx::NodeProto *conv = m.node("Conv", {"x", "w"}, {"y"});
  auto *group = conv->add_attribute();
  group->set_name("group");
  group->set_type(::onnx::AttributeProto::INT);
  group->set_i(2);
  std::string path = m.save("grouped");
  Tensor x = random_uniform({1, 4, 2, 2}, 3);
  Tensor y = ember::onnx::load(path)({x})[0];
  std::vector<float> in = x.to_vector<float>(), want(16);
  for (int o = 0; o < 4; ++o)
    for (int p = 0; p < 4; ++p) {
      int g = o / 2;
      want[o * 4 + p] = weights[o * 2] * in[(2 * g) * 4 + p] + weights[o * 2 + 1] * in[(2 * g + 1) * 4 + p];
    }
  expectClose(y, Tensor::from_vector(want, {1, 4, 2, 2}), 1e-5);
  std::filesystem::remove(path);
}

TEST(ONNXModel, AGroupedTransposedConvolutionIsItsGroupsSideBySide) {
  // ConvTranspose with 2 groups (strides 2, pads 1) against each group run
  // as a ConvTranspose of its own on its channel.
  auto model = [](const std::string &stem, int64_t channels, int64_t groups,
                  const std::vector<float> &weights) {
    ModelBuilder m;
    m.input("x", {1, channels, 3, 3});
    m.output("y", {1, channels, 5, 5});
    m.weight("w", {channels, 1, 3, 3}, weights);
    ::onnx::NodeProto *conv = m.node("ConvTranspose", {"x", "w"}, {"y"});
    auto set = [&](const std::string &name, std::vector<int64_t> values) {
      auto *a = conv->add_attribute();
      a->set_name(name);
      a->set_type(::onnx::AttributeProto::INTS);
      for (int64_t v : values)
        a->add_ints(v);
    };
    set("strides", {2, 2});
    set("pads", {1, 1, 1, 1});
    auto *group = conv->add_attribute();
    group->set_name("group");
    group->set_type(::onnx::AttributeProto::INT);
    group->set_i(groups);
    return m.save(stem);
  };
  std::vector<float> w(18);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = 0.25f * float(i) - 2.f;
  std::string both = model("transposed-both", 2, 2, w);
  std::string first = model("transposed-first", 1, 1, {w.begin(), w.begin() + 9});
  std::string second = model("transposed-second", 1, 1, {w.begin() + 9, w.end()});
  Tensor x = random_uniform({1, 2, 3, 3}, 5);
  Tensor y = ember::onnx::load(both)({x})[0];
  Tensor y0 = ember::onnx::load(first)({slice(x, {0, 0, 0, 0}, {kNone, 1, kNone, kNone})})[0];
  Tensor y1 = ember::onnx::load(second)({slice(x, {0, 1, 0, 0}, {kNone, 2, kNone, kNone})})[0];
  expectClose(y, concat({y0, y1}, 1), 1e-5);
  for (const std::string &path : {both, first, second})
    std::filesystem::remove(path);
}

TEST(ONNXModel, EinsumComputesAttentionScoresAndSums) {
  // bhqd,bhkd->bhqk (attention's scores) and, from the same operands, a
  // contraction that also sums a letter of one operand alone (ij,jk->i).
  ModelBuilder m;
  m.input("q", {2, 3, 4, 5});
  m.input("k", {2, 3, 6, 5});
  m.input("a", {2, 3});
  m.input("b", {3, 4});
  m.output("scores", {2, 3, 4, 6});
  m.output("rows", {2});
  auto equation = [](::onnx::NodeProto *node, const std::string &text) {
    auto *e = node->add_attribute();
    e->set_name("equation");
    e->set_type(::onnx::AttributeProto::STRING);
    e->set_s(text);
  };
  equation(m.node("Einsum", {"q", "k"}, {"scores"}), "bhqd, bhkd -> bhqk");
  equation(m.node("Einsum", {"a", "b"}, {"rows"}), "ij,jk->i");
  std::string path = m.save("einsum");
  Tensor q = random_uniform({2, 3, 4, 5}, 1), k = random_uniform({2, 3, 6, 5}, 2);
  Tensor a = random_uniform({2, 3}, 3), b = random_uniform({3, 4}, 4);
  std::vector<Tensor> y = ember::onnx::load(path)({q, k, a, b});
  expectClose(y[0], matmul(q, transpose(k, {0, 1, 3, 2})), 1e-5);
  expectClose(y[1], reduce_sum(matmul(a, b), {1}), 1e-5);
  std::filesystem::remove(path);
}

// TopK with what a sort would get right and k rounds of argmax might not:
// ties (the lower index first), and values equal to the lowest one (-inf,
// the most negative integer), which mark what a round took.
TEST(ONNXModel, TopKTakesTiesInOrderAndTheLowestValuesToo) {
  ModelBuilder m;
  m.input("x", {2, 4});
  m.input("i", {2, 4}, ::onnx::TensorProto::INT64);
  m.output("values", {2, 4});
  m.output("indices", {2, 4}, ::onnx::TensorProto::INT64);
  m.output("smallest", {2, 3}, ::onnx::TensorProto::INT64);
  m.output("where", {2, 3}, ::onnx::TensorProto::INT64);
  ::onnx::TensorProto *k4 = m.graph->add_initializer(), *k3 = m.graph->add_initializer();
  for (auto [t, name, v] : {std::tuple{k4, "k4", 4}, {k3, "k3", 3}}) {
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(1);
    t->add_int64_data(v);
  }
  m.node("TopK", {"x", "k4"}, {"values", "indices"});
  ::onnx::NodeProto *smallest = m.node("TopK", {"i", "k3"}, {"smallest", "where"});
  ::onnx::AttributeProto *attr = smallest->add_attribute();
  attr->set_name("largest");
  attr->set_type(::onnx::AttributeProto::INT);
  attr->set_i(0);
  std::string path = m.save("topk");
  ember::onnx::Model model = ember::onnx::load(path);
  float inf = std::numeric_limits<float>::infinity();
  int64_t least = std::numeric_limits<int64_t>::min();
  Tensor x = Tensor::from_vector(std::vector<float>{-inf, -inf, 5, 5, 1, -inf, 2, 1}, {2, 4});
  Tensor i = Tensor::from_vector(std::vector<int64_t>{3, 1, 1, least, 7, 7, 7, 7}, {2, 4});
  std::vector<Tensor> out = model({x, i});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{5, 5, -inf, -inf, 2, 1, 1, -inf}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{2, 3, 0, 1, 2, 0, 3, 1}));
  EXPECT_EQ(out[2].to_vector<int64_t>(), (std::vector<int64_t>{least, 1, 1, 7, 7, 7}));
  EXPECT_EQ(out[3].to_vector<int64_t>(), (std::vector<int64_t>{3, 1, 2, 0, 1, 2}));
  std::filesystem::remove(path);
}
