//===- CheckpointTest.cpp - safetensors files, checkpoints, save_weights ---===//

#include "ErrorTestUtil.h"
#include "ember/IO/Safetensors.h"

#include "ember/ember.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ember;
using namespace ember::layers;
using ember::test::errorOf;
using ember::test::expectContains;
namespace fs = std::filesystem;

namespace {

/// A fresh directory for one test, removed after it.
class CheckpointTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "ember-ckpt-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string path(const std::string &name) const { return (fs::path(dir) / name).string(); }

  std::string dir;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// A safetensors file made by hand: `header` (JSON text) and `data`.
std::string safetensorsBytes(const std::string &header, const std::string &data,
                             uint64_t length = UINT64_MAX) {
  if (length == UINT64_MAX)
    length = header.size();
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  return bytes + header + data;
}

/// The header of a safetensors file parsed independently of ember's reader.
nlohmann::json headerOf(const std::string &bytes, uint64_t *length = nullptr) {
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  if (length)
    *length = n;
  return nlohmann::json::parse(bytes.substr(8, n));
}

std::string bytesOf(const Tensor &tensor) {
  Tensor host = tensor.cpu();
  return std::string(static_cast<const char *>(host.data()), host.nbytes());
}

/// Every variable's bytes by key.
std::map<std::string, std::string>
snapshot(const std::vector<std::pair<std::string, Variable>> &variables) {
  std::map<std::string, std::string> bytes;
  for (const auto &[key, variable] : variables)
    bytes[key] = bytesOf(variable.value());
  return bytes;
}

/// The model's and the optimizer's variables by key, as a checkpoint of
/// both keys them.
std::vector<std::pair<std::string, Variable>> trainingVariables(const Module &model,
                                                                const optimizers::Optimizer &opt) {
  std::vector<std::pair<std::string, Variable>> all;
  std::map<const void *, std::string> keyOf;
  for (const auto &[path, variable] : model.checkpoint_variables()) {
    all.emplace_back("model/" + path, variable);
    keyOf[variable.state().get()] = "model/" + path;
  }
  all.emplace_back("optimizer/iterations", opt.iterations());
  for (const auto &slot : opt.slots())
    all.emplace_back("optimizer/" + keyOf.at(slot.variable.state().get()) + "/" + slot.name,
                     slot.value);
  return all;
}

Sequential smallModel() {
  return Sequential({std::make_shared<Dense>(4, "relu"), std::make_shared<Dense>(2)});
}

// Made per call: a static Tensor would outlive the thread caches its
// buffer returns to at exit.
Tensor inputs() { return Tensor({{0.5f, -1.f, 2.f}, {1.5f, 0.25f, -0.75f}}); }

void trainSteps(Sequential &model, optimizers::Optimizer &opt, int steps) {
  for (int i = 0; i < steps; ++i) {
    GradientTape tape;
    Tensor loss = reduce_sum(square(model(inputs())));
    opt.apply_gradients(tape.gradient(loss, model.trainable_variables()),
                        model.trainable_variables());
  }
}

//===----------------------------------------------------------------------===//
// safetensors files
//===----------------------------------------------------------------------===//

TEST_F(CheckpointTest, SafetensorsRoundTripsEveryDTypeAndShape) {
  std::vector<std::pair<std::string, Tensor>> tensors = {
      {"f32",
       Tensor::from_vector(std::vector<float>{1.5f, -2.f, 3.25f, 0.f, 1e-30f, -0.f}, {2, 3})},
      {"f64 scalar", Tensor(3.141592653589793, DType::Float64)},
      {"i32 empty", Tensor::from_vector(std::vector<int32_t>{}, {0})},
      {"i64", Tensor::from_vector(std::vector<int64_t>{1, -2, INT64_MAX, INT64_MIN, 0, 7}, {2, 3})},
      {"bool",
       Tensor::from_vector(std::vector<bool>{true, false, true, true, false, false}, {2, 3})},
      {"f64",
       Tensor::from_vector(std::vector<double>{0.1, -0.2, 1e300, 4, 5, 6}, {2, 3}, DType::Float64)},
      {"i32", Tensor(int32_t{-7})},
      {"f32 empty", Tensor::from_vector(std::vector<float>{}, {2, 0, 3})},
  };
  std::string file = path("t.safetensors");
  safetensors::save_file(file, tensors, {{"format", "ember"}});

  // An independent reading of the bytes.
  std::string bytes = readFile(file);
  uint64_t length = 0;
  nlohmann::json header = headerOf(bytes, &length);
  EXPECT_EQ((8 + length) % 8, 0u) << "data aligned to 8 bytes";
  EXPECT_EQ(header["__metadata__"], nlohmann::json({{"format", "ember"}}));
  const std::map<DType, std::string> names = {{DType::Float32, "F32"},
                                              {DType::Float64, "F64"},
                                              {DType::Int32, "I32"},
                                              {DType::Int64, "I64"},
                                              {DType::Bool, "BOOL"}};
  uint64_t offset = 0;
  for (const auto &[name, tensor] : tensors) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(header.contains(name));
    const nlohmann::json &entry = header[name];
    EXPECT_EQ(entry["dtype"], names.at(tensor.dtype()));
    EXPECT_EQ(entry["shape"].get<std::vector<int64_t>>(), tensor.shape().vec());
    // In order, without gaps.
    EXPECT_EQ(entry["data_offsets"], nlohmann::json({offset, offset + tensor.nbytes()}));
    EXPECT_EQ(bytes.substr(8 + length + offset, tensor.nbytes()), bytesOf(tensor));
    offset += tensor.nbytes();
  }
  EXPECT_EQ(header.size(), tensors.size() + 1);
  EXPECT_EQ(bytes.size(), 8 + length + offset);

  safetensors::File read(file);
  EXPECT_EQ(read.metadata(), (std::map<std::string, std::string>{{"format", "ember"}}));
  ASSERT_EQ(read.entries().size(), tensors.size());
  for (const auto &[name, tensor] : tensors) {
    SCOPED_TRACE(name);
    const safetensors::File::Entry *entry = read.find(name);
    ASSERT_NE(entry, nullptr);
    Tensor back = read.tensor(*entry);
    EXPECT_EQ(back.dtype(), tensor.dtype());
    EXPECT_EQ(back.shape(), tensor.shape());
    EXPECT_EQ(bytesOf(back), bytesOf(tensor));
  }
}

TEST_F(CheckpointTest, SafetensorsRefusesCorruptFiles) {
  auto readError = [&](const std::string &bytes) {
    std::string file = path("bad.safetensors");
    writeFile(file, bytes);
    std::string message = errorOf([&] { safetensors::File read(file); });
    expectContains(message, "cannot read safetensors file '" + file + "'");
    return message;
  };
  std::string good = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  std::string data(8, '\0');
  expectContains(readError("abc"), "too short (3 bytes)");
  expectContains(readError(safetensorsBytes(good, data, 1000)),
                 "header length 1000 is beyond the end of the file");
  expectContains(readError(safetensorsBytes(good, data).substr(0, 50)), "beyond the end");
  expectContains(readError(safetensorsBytes(good, data.substr(0, 4))),
                 "beyond the 4 bytes of data (the file is truncated?)");
  expectContains(readError(safetensorsBytes("{\"a\": nope}", "")), "malformed JSON header at byte");
  // A number JSON cannot hold (found by the fuzzer: it escaped as an exception).
  expectContains(readError(safetensorsBytes("{\"a\": 24E323}", "")), "malformed JSON header");
  expectContains(readError(safetensorsBytes("[1, 2]", "")), "not a JSON object");
  expectContains(
      readError(safetensorsBytes(R"({"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}})",
                                 std::string(2, '\0'))),
      "tensor 'a' has dtype 'F8_E4M3', which ember does not support");
  expectContains(
      readError(
          safetensorsBytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data)),
      "tensor 'a': data_offsets [0, 8] hold 8 bytes, but float32 of shape (3,) needs 12");
  expectContains(
      readError(safetensorsBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},
                                               "b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}})",
                                 data)),
      "the data of tensors 'a' and 'b' overlap");
  expectContains(readError(safetensorsBytes(
                     R"({"a":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}})", data)),
                 "bytes 0 to 4 of the data belong to no tensor");
  expectContains(readError(safetensorsBytes(
                     R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data)),
                 "a dimension is not a non-negative integer: -2");
  expectContains(
      readError(safetensorsBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},
                                               "a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                                 data)),
      "the header names 'a' twice");
}

//===----------------------------------------------------------------------===//
// Checkpoint
//===----------------------------------------------------------------------===//

// Story C4: a variable saved, changed, restored from the latest checkpoint.
TEST_F(CheckpointTest, StoryC4RestoreTheLatestCheckpoint) {
  Variable x(Tensor(2.f), "x");
  Checkpoint checkpoint({{"x", x}});
  EXPECT_EQ(train::latest_checkpoint(dir), std::nullopt);
  std::string first = checkpoint.save(path("ckpt"));
  EXPECT_EQ(first, path("ckpt-1.safetensors"));
  EXPECT_EQ(checkpoint.save_counter().value().item<int64_t>(), 1);
  EXPECT_EQ(train::latest_checkpoint(dir), first);

  x.assign(Tensor(11.f));
  checkpoint.restore(*train::latest_checkpoint(dir));
  EXPECT_EQ(x.value().item<float>(), 2.f);

  x.assign(Tensor(5.f));
  std::string second = checkpoint.save(path("ckpt"));
  EXPECT_EQ(second, path("ckpt-2.safetensors"));
  EXPECT_EQ(train::latest_checkpoint(dir), second);
  // The index file is JSON naming the latest, relative to the directory.
  nlohmann::json index = nlohmann::json::parse(readFile(path("checkpoint")));
  EXPECT_EQ(index["model_checkpoint_path"], "ckpt-2.safetensors");

  // write: exactly the path, no count, no index; restoring it restores
  // the counter saved with it.
  x.assign(Tensor(7.f));
  EXPECT_EQ(checkpoint.write(path("exact.safetensors")), path("exact.safetensors"));
  EXPECT_EQ(checkpoint.save_counter().value().item<int64_t>(), 2);
  EXPECT_EQ(train::latest_checkpoint(dir), second);
  checkpoint.restore(first);
  EXPECT_EQ(x.value().item<float>(), 2.f);
  EXPECT_EQ(checkpoint.save_counter().value().item<int64_t>(), 1);
}

TEST_F(CheckpointTest, AModelAndAdamRestoreBitwiseSlotsAndIterationsIncluded) {
  Sequential model = smallModel();
  model(inputs());
  optimizers::Adam adam(0.05);
  trainSteps(model, adam, 3);
  Variable epoch(Tensor(int64_t{4}, DType::Int64), "epoch");
  Checkpoint checkpoint({{"model", model}, {"optimizer", adam}, {"epoch", epoch}});
  std::string file = checkpoint.write(path("train.safetensors"));

  auto variables = trainingVariables(model, adam);
  variables.emplace_back("epoch", epoch);
  std::map<std::string, std::string> saved = snapshot(variables);
  // Keys by structure; slots under their variable's key.
  nlohmann::json header = headerOf(readFile(file));
  for (const char *key :
       {"model/dense/kernel", "model/dense/bias", "model/dense_1/kernel", "model/dense_1/bias",
        "optimizer/iterations", "optimizer/model/dense/kernel/m", "optimizer/model/dense_1/bias/v",
        "epoch", "save_counter"})
    EXPECT_TRUE(header.contains(key)) << key;
  EXPECT_EQ(header.size(), 4 + 1 + 8 + 1 + 1 + 1u); // with __metadata__

  for (auto &[key, variable] : variables)
    variable.assign(variable.dtype() == DType::Int64
                        ? Tensor(int64_t{99}, DType::Int64)
                        : variable.value() * Tensor(3.f) + Tensor(1.f));
  ASSERT_NE(snapshot(variables), saved);
  checkpoint.restore(file);
  EXPECT_EQ(snapshot(variables), saved);
  EXPECT_EQ(adam.iterations().value().item<int64_t>(), 3);
}

// A fresh model and optimizer (no slots yet) resume where the saved ones
// were: the optimizer's slots come from the checkpoint, and the next step
// matches the original's bit for bit.
TEST_F(CheckpointTest, AFreshModelAndOptimizerResumeTraining) {
  Sequential model = smallModel();
  optimizers::Adam adam(0.05);
  trainSteps(model, adam, 2);
  std::string file = Checkpoint({{"model", model}, {"optimizer", adam}}).save(path("ckpt"));

  Sequential fresh = smallModel();
  fresh(inputs()); // makes the weights
  optimizers::Adam freshAdam(0.05);
  ASSERT_TRUE(freshAdam.slots().empty());
  Checkpoint({{"model", fresh}, {"optimizer", freshAdam}}).restore(file);
  EXPECT_EQ(freshAdam.slots().size(), adam.slots().size());
  EXPECT_EQ(snapshot(trainingVariables(fresh, freshAdam)),
            snapshot(trainingVariables(model, adam)));

  trainSteps(model, adam, 1);
  trainSteps(fresh, freshAdam, 1);
  EXPECT_EQ(snapshot(trainingVariables(fresh, freshAdam)),
            snapshot(trainingVariables(model, adam)));
}

// A slot of a variable the checkpoint does not hold is keyed by the
// variable's name, and restores into slots made by optimizer.build.
TEST_F(CheckpointTest, OptimizerBuildMakesSlotsToRestoreInto) {
  Variable w(Tensor({1.f, -2.f}), "w");
  optimizers::SGD sgd(0.1, 0.9);
  sgd.apply_gradients({Tensor({0.5f, 0.25f})}, {w});
  std::string file = Checkpoint({{"optimizer", sgd}}).write(path("sgd.safetensors"));
  EXPECT_TRUE(headerOf(readFile(file)).contains("optimizer/w/momentum"));

  optimizers::SGD fresh(0.1, 0.9);
  std::string message = errorOf([&] { Checkpoint({{"optimizer", fresh}}).restore(file); });
  expectContains(message, "unused key 'optimizer/w/momentum'");
  expectContains(message, "optimizer.build");
  EXPECT_TRUE(fresh.slots().empty());

  fresh.build({w});
  Checkpoint({{"optimizer", fresh}}).restore(file);
  EXPECT_EQ(bytesOf(fresh.slots()[0].value.value()), bytesOf(sgd.slots()[0].value.value()));
  EXPECT_EQ(fresh.iterations().value().item<int64_t>(), 1);
  // A checkpoint of the model alone reads a training checkpoint's model.
  Variable other(Tensor({0.f, 0.f}), "w");
  Checkpoint({{"w", other}}).write(path("w.safetensors"));
  Checkpoint({{"optimizer", sgd}, {"w", other}}).write(path("both.safetensors"));
  other.assign(Tensor({3.f, 3.f}));
  Checkpoint({{"w", other}}).restore(path("both.safetensors"));
  EXPECT_EQ(other.value().to_vector<float>(), (std::vector<float>{0.f, 0.f}));
}

TEST_F(CheckpointTest, SaveWeightsLoadWeightsIntoAFreshModel) {
  Sequential model = smallModel();
  Tensor expected = model(inputs());
  model.save_weights(path("model.weights.safetensors"));

  Sequential fresh = smallModel(); // other names: sequential_N/dense_M
  ASSERT_NE(fresh.name(), model.name());
  ASSERT_NE(bytesOf(fresh(inputs())), bytesOf(expected));
  fresh.load_weights(path("model.weights.safetensors"));
  EXPECT_EQ(bytesOf(fresh(inputs())), bytesOf(expected));
  std::vector<std::string> keys;
  nlohmann::json header = headerOf(readFile(path("model.weights.safetensors")));
  for (const auto &[key, value] : header.items())
    keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"__metadata__", "dense/bias", "dense/kernel",
                                            "dense_1/bias", "dense_1/kernel"}));

  // Another architecture: every problem named, no weight changed.
  Sequential wider({std::make_shared<Dense>(5, "relu"), std::make_shared<Dense>(2)});
  wider(inputs());
  std::map<std::string, std::string> before = snapshot(wider.checkpoint_variables());
  std::string message = errorOf([&] { wider.load_weights(path("model.weights.safetensors")); });
  expectContains(message,
                 "cannot restore from '" + path("model.weights.safetensors") + "': 3 problems");
  expectContains(message, "shape mismatch for key 'dense/kernel': the file has float32 of shape "
                          "(3, 4), variable '");
  expectContains(message, "shape mismatch for key 'dense/bias'");
  expectContains(message, "shape mismatch for key 'dense_1/kernel'");
  EXPECT_EQ(snapshot(wider.checkpoint_variables()), before);

  Sequential unbuilt = smallModel();
  message = errorOf([&] { unbuilt.load_weights(path("model.weights.safetensors")); });
  expectContains(message, "unused key 'dense/kernel'");
  expectContains(message, "call it once before load_weights");
}

//===----------------------------------------------------------------------===//
// Errors: one message naming every problem, nothing half-restored
//===----------------------------------------------------------------------===//

TEST_F(CheckpointTest, RestoreChecksEverythingBeforeAssigningAnything) {
  Variable a(Tensor({1.f, 2.f}), "a"), b(Tensor({1.f, 2.f}), "b"), c(Tensor({1.f, 2.f}), "c");
  std::string file = Checkpoint({{"a", a}, {"b", b}, {"c", c}}).write(path("abc.safetensors"));

  Variable a2(Tensor({5.f, 6.f}), "a2");                 // fine
  Variable b2(Tensor({5.f, 6.f, 7.f}), "b2");            // shape mismatch
  Variable c2(Tensor({5.0, 6.0}, DType::Float64), "c2"); // dtype mismatch
  Variable d2(Tensor(5.f), "d2");                        // missing
  Checkpoint checkpoint({{"a", a2}, {"b", b2}, {"c", c2}, {"d", d2}});
  std::string message = errorOf([&] { checkpoint.restore(file); });
  expectContains(message, "cannot restore from '" + file + "': 3 problems");
  expectContains(message, "shape mismatch for key 'b': the file has float32 of shape (2,), "
                          "variable 'b2' is float32 of shape (3,)");
  expectContains(message, "dtype mismatch for key 'c': the file has float32 of shape (2,), "
                          "variable 'c2' is float64 of shape (2,)");
  expectContains(message, "missing key 'd' (variable 'd2', float32 of shape ())");
  EXPECT_EQ(a2.value().to_vector<float>(), (std::vector<float>{5.f, 6.f}));
  EXPECT_EQ(checkpoint.save_counter().value().item<int64_t>(), 0);

  // Corrupt files: the reader's message, nothing restored.
  std::string bytes = readFile(file);
  Checkpoint same({{"a", a2}});
  writeFile(path("truncated.safetensors"), bytes.substr(0, bytes.size() - 3));
  expectContains(errorOf([&] { same.restore(path("truncated.safetensors")); }),
                 "the file is truncated?");
  std::string wrongLength = bytes;
  wrongLength[5] = '\x01'; // a header length of 2^40 and more
  writeFile(path("length.safetensors"), wrongLength);
  expectContains(errorOf([&] { same.restore(path("length.safetensors")); }),
                 "is beyond the end of the file");
  writeFile(path("garbage.safetensors"), safetensorsBytes("{\"a\": {garbage", ""));
  message = errorOf([&] { same.restore(path("garbage.safetensors")); });
  expectContains(message, "cannot read safetensors file '" + path("garbage.safetensors") + "'");
  expectContains(message, "malformed JSON header at byte");
  expectContains(errorOf([&] { same.restore(path("none.safetensors")); }),
                 "No such file or directory");
  EXPECT_EQ(a2.value().to_vector<float>(), (std::vector<float>{5.f, 6.f}));

  // An unbuilt model's keys go unused; expect_partial allows them.
  Sequential model = smallModel();
  model(inputs());
  std::string modelFile = Checkpoint({{"model", model}}).write(path("model.safetensors"));
  Sequential unbuilt = smallModel();
  message = errorOf([&] { Checkpoint({{"model", unbuilt}}).restore(modelFile); });
  expectContains(message, "unused key 'model/dense/kernel'");
  expectContains(message, "call it once before restoring");
  Checkpoint({{"model", unbuilt}}).restore(modelFile, /*expect_partial=*/true);

  // Slots of variables the checkpoint does not hold go under the variables'
  // names, which must then differ.
  Variable v1(Tensor(1.f)), v2(Tensor(2.f)); // both named "Variable"
  optimizers::SGD sgd(0.1, 0.9);
  sgd.apply_gradients({Tensor(1.f), Tensor(1.f)}, {v1, v2});
  expectContains(errorOf([&] { Checkpoint({{"opt", sgd}}).write(path("dup.safetensors")); }),
                 "two variables have the key 'opt/Variable/momentum'");
  Checkpoint({{"opt", sgd}, {"v1", v1}, {"v2", v2}}).write(path("dup.safetensors"));

  // Not while tracing: the values are symbolic there.
  auto traced = ember::function([&](const Tensor &t) {
    Checkpoint({{"a", a}}).write(path("traced.safetensors"));
    return t;
  });
  expectContains(errorOf([&] { traced(Tensor(1.f)); }),
                 "Checkpoint.write cannot run inside an ember::function");

  expectContains(errorOf([&] { Checkpoint({{"a/b", a}}); }), "object name 'a/b'");
  expectContains(errorOf([&] { Checkpoint({{"a", a}, {"a", b}}); }), "given twice");
}

//===----------------------------------------------------------------------===//
// CheckpointManager
//===----------------------------------------------------------------------===//

TEST_F(CheckpointTest, AManagerRemovesWhatAKilledSaveLeft) {
  fs::create_directories(path("stale"));
  // A process that has exited (reaped: its pid is free) and this one.
  pid_t child = fork();
  if (child == 0)
    _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);
  std::string dead = path("stale/ckpt-3.safetensors.tmp." + std::to_string(child) + ".0.12");
  std::string live = path("stale/ckpt-4.safetensors.tmp." + std::to_string(getpid()) + ".0.34");
  std::ofstream(dead) << "partial";
  std::ofstream(live) << "being written";
  Variable x(Tensor(0.f), "x");
  train::CheckpointManager manager(Checkpoint({{"x", x}}), path("stale"), 2);
  EXPECT_FALSE(fs::exists(dead)) << "a dead writer's temporary file is removed";
  EXPECT_TRUE(fs::exists(live)) << "a live writer's is left alone";
}

TEST_F(CheckpointTest, CheckpointManagerKeepsTheNewest) {
  Variable x(Tensor(0.f), "x");
  Checkpoint checkpoint({{"x", x}});
  train::CheckpointManager manager(checkpoint, path("run"), 2);
  EXPECT_EQ(manager.latest_checkpoint(), std::nullopt);
  std::vector<std::string> saved;
  for (int i = 1; i <= 4; ++i) {
    x.assign(Tensor(static_cast<float>(i)));
    saved.push_back(manager.save());
  }
  EXPECT_EQ(saved.back(), (fs::path(dir) / "run" / "ckpt-4.safetensors").string());
  EXPECT_EQ(manager.checkpoints(), (std::vector<std::string>{saved[2], saved[3]}));
  EXPECT_EQ(manager.latest_checkpoint(), saved[3]);
  EXPECT_EQ(train::latest_checkpoint(path("run")), saved[3]);
  std::vector<std::string> files;
  for (const auto &entry : fs::directory_iterator(path("run")))
    files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files,
            (std::vector<std::string>{"checkpoint", "ckpt-3.safetensors", "ckpt-4.safetensors"}));
  nlohmann::json index = nlohmann::json::parse(readFile(path("run/checkpoint")));
  EXPECT_EQ(index["all_model_checkpoint_paths"],
            nlohmann::json({"ckpt-3.safetensors", "ckpt-4.safetensors"}));

  x.assign(Tensor(-1.f));
  checkpoint.restore(*manager.latest_checkpoint());
  EXPECT_EQ(x.value().item<float>(), 4.f);

  // A later manager of the directory continues: numbering from the restored
  // counter, the earlier checkpoints counted against max_to_keep.
  train::CheckpointManager later(checkpoint, path("run"), 2);
  EXPECT_EQ(later.checkpoints(), manager.checkpoints());
  EXPECT_EQ(later.save(), path("run/ckpt-5.safetensors"));
  EXPECT_FALSE(fs::exists(saved[2]));
  EXPECT_EQ(later.checkpoints(),
            (std::vector<std::string>{saved[3], path("run/ckpt-5.safetensors")}));
  expectContains(errorOf([&] { train::CheckpointManager(checkpoint, dir, 0); }),
                 "max_to_keep must be positive");
}

//===----------------------------------------------------------------------===//
// A crash in the middle of a save
//===----------------------------------------------------------------------===//

// A child process saves a 32 MB variable over and over into `dir` (each
// save's values all equal its number), also writing it over one fixed path
// each time, and is killed with SIGKILL at a random moment; the index then
// names a checkpoint that restores whole, and so does the fixed path
// (written whole or not at all). The child runs no kernel (values from host
// vectors, the counter counted on the host), only file I/O, so forking the
// test process is safe. Returns how many saves completed.
int64_t killMidSave(const std::string &dir, std::mt19937 &random) {
  constexpr int64_t kCount = 8 << 20; // floats: 32 MB
  auto path = [&](const std::string &name) { return (fs::path(dir) / name).string(); };
  int ready[2];
  if (::pipe(ready) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return 0;
  }
  pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    ::alarm(60); // never outlives a broken parent
    try {
      Variable big(Tensor::from_vector(std::vector<float>(kCount, 0.f), {kCount}), "big");
      Checkpoint checkpoint({{"big", big}});
      for (int i = 1; i <= 1000; ++i) {
        big.assign(
            Tensor::from_vector(std::vector<float>(kCount, static_cast<float>(i)), {kCount}));
        checkpoint.write(path("fixed.safetensors")); // with save_counter i - 1
        checkpoint.save(path("ckpt"));
        if (i == 1 && ::write(ready[1], "1", 1) != 1)
          ::_exit(2);
      }
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  pollfd wait{ready[0], POLLIN, 0};
  char byte = 0;
  bool started = child > 0 && ::poll(&wait, 1, 60000) == 1 && ::read(ready[0], &byte, 1) == 1;
  ::close(ready[0]);
  if (child < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return 0;
  }
  if (started)
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + random() % 400));
  ::kill(child, SIGKILL);
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  if (!started) {
    ADD_FAILURE() << "the child did not finish its first save";
    return 0;
  }
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child ended before the kill (status " << status << ")";

  std::optional<std::string> latest = train::latest_checkpoint(dir);
  if (!latest) {
    ADD_FAILURE() << "no latest checkpoint";
    return 0;
  }
  Variable big(Tensor::from_vector(std::vector<float>(kCount, -1.f), {kCount}), "big");
  Checkpoint checkpoint({{"big", big}});
  checkpoint.restore(*latest);
  int64_t number = checkpoint.save_counter().value().item<int64_t>();
  EXPECT_GE(number, 1);
  EXPECT_EQ(*latest, path("ckpt-" + std::to_string(number) + ".safetensors"));
  std::vector<float> values = big.value().to_vector<float>();
  EXPECT_EQ(std::count(values.begin(), values.end(), static_cast<float>(number)), kCount);

  checkpoint.restore(path("fixed.safetensors"));
  values = big.value().to_vector<float>();
  int64_t fixed = checkpoint.save_counter().value().item<int64_t>() + 1;
  EXPECT_GE(fixed, number);
  EXPECT_EQ(std::count(values.begin(), values.end(), static_cast<float>(fixed)), kCount);
  return number;
}

// Three crashes: each stops a write to the fixed path about one time in
// three, so a writer that is not atomic fails here most of the time.
TEST_F(CheckpointTest, ASigkillMidSaveLeavesTheLatestCheckpointWhole) {
  unsigned seed = std::random_device{}();
  std::mt19937 random(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  int interrupted = 0; // temporary files of interrupted writes
  for (int round = 0; round < 3; ++round) {
    std::string run = path("run" + std::to_string(round));
    fs::create_directory(run);
    EXPECT_GE(killMidSave(run, random), 1);
    for (const auto &entry : fs::directory_iterator(run))
      interrupted += entry.path().filename().string().find(".tmp.") != std::string::npos;
  }
  RecordProperty("interrupted_writes", interrupted);
}

} // namespace
