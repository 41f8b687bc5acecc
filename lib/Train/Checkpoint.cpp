//===- Checkpoint.cpp - object-based checkpoints ---------------------------===//
//
// Saving collects each variable under its key and writes one safetensors
// file. Restoring plans first: every target is checked against the file and
// every value read into a new tensor (on the variable's device) before the
// first assignment, so a failure leaves every variable as it was. The
// assignments that follow cannot fail. Module::save_weights/load_weights
// are the same with a module's keys alone.
//
//===----------------------------------------------------------------------===//

#include "ember/Train/Checkpoint.h"

#include "ember/Support/AtomicFile.h"
#include "ember/IO/Safetensors.h"

#include "ember/Frontend/Error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <signal.h>

using namespace ember;
namespace fs = std::filesystem;

namespace {

constexpr const char *kSaveCounter = "save_counter";
constexpr const char *kIndexFile = "checkpoint";
const std::map<std::string, std::string> kMetadata = {{"format", "ember"}};

std::string inQuotes(const std::string &text) { return "'" + text + "'"; }

std::string typeText(DType dtype, const Shape &shape) {
  return std::string(dtypeName(dtype)) + " of shape " + shape.str();
}

/// Saving and restoring read and replace concrete values: not while tracing.
void checkNotTracing(const std::string &what) {
  if (!executing_eagerly())
    throw Error(what + " cannot run inside an ember::function (its variables are symbolic "
                       "there): call it outside");
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

using KeyedVariables = std::vector<std::pair<std::string, Variable>>;

void writeVariables(const std::string &path, const KeyedVariables &variables) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::set<std::string> keys;
  for (const auto &[key, variable] : variables) {
    if (!keys.insert(key).second)
      throw Error("cannot save " + inQuotes(path) + ": two variables have the key " +
                  inQuotes(key) +
                  " (slots of variables the checkpoint does not hold go under the variables' "
                  "names: give the variables distinct names)");
    tensors.emplace_back(key, variable.value());
  }
  safetensors::save_file(path, tensors, kMetadata);
}

//===----------------------------------------------------------------------===//
// Restoring
//===----------------------------------------------------------------------===//

/// A value restore looks for: its key, the dtype and shape it needs, what
/// to call it in messages, and the variable to assign (made on demand: a
/// slot the optimizer has yet to create).
struct Target {
  std::string key;
  DType dtype;
  Shape shape;
  std::string what;
  std::function<Variable()> variable;
};

Target targetOf(const std::string &key, const Variable &variable) {
  return {key, variable.dtype(), variable.shape(), "variable " + inQuotes(variable.name()),
          [variable] { return variable; }};
}

/// Checks every target against `file` and that every key `mustUse` accepts
/// is some target's; then assigns them all, or throws one error listing
/// every problem with nothing assigned.
void restoreTargets(const safetensors::File &file, const std::vector<Target> &targets,
                    const std::function<bool(const std::string &)> &mustUse,
                    const std::string &unusedHint) {
  std::vector<std::string> problems;
  std::set<std::string> used;
  for (const Target &target : targets) {
    used.insert(target.key);
    const safetensors::File::Entry *entry = file.find(target.key);
    if (!entry) {
      problems.push_back("missing key " + inQuotes(target.key) + " (" + target.what + ", " +
                         typeText(target.dtype, target.shape) + ")");
    } else if (entry->dtype != target.dtype || !(entry->shape == target.shape)) {
      problems.push_back(std::string(entry->dtype != target.dtype ? "dtype" : "shape") +
                         " mismatch for key " + inQuotes(target.key) + ": the file has " +
                         typeText(entry->dtype, entry->shape) + ", " + target.what + " is " +
                         typeText(target.dtype, target.shape));
    }
  }
  bool unused = false;
  for (const auto &[key, entry] : file.entries())
    if (!used.count(key) && mustUse(key)) {
      problems.push_back("unused key " + inQuotes(key) + " (" + typeText(entry.dtype, entry.shape) +
                         "): no variable of this name");
      unused = true;
    }
  if (!problems.empty()) {
    std::string message = "cannot restore from " + inQuotes(file.path()) + ": " +
                          std::to_string(problems.size()) +
                          (problems.size() == 1 ? " problem" : " problems");
    for (const std::string &problem : problems)
      message += "\n  " + problem;
    if (unused)
      message += "\n" + unusedHint;
    throw Error(message);
  }

  // Every value is read (and copied to its device) before the first
  // assignment, so that a failure here changes nothing either.
  std::vector<Tensor> values;
  for (const Target &target : targets) {
    Tensor value = file.tensor(*file.find(target.key));
    values.push_back(value);
  }
  std::vector<Variable> variables;
  for (size_t i = 0; i < targets.size(); ++i) {
    variables.push_back(targets[i].variable());
    values[i] = values[i].to(variables[i].value().device());
  }
  for (size_t i = 0; i < targets.size(); ++i)
    variables[i].assign(values[i]);
}

//===----------------------------------------------------------------------===//
// The index file
//===----------------------------------------------------------------------===//

/// What the "checkpoint" file of a directory says: the latest checkpoint and
/// the ones kept, as paths (relative ones are to the directory).
struct IndexState {
  std::string latest;
  std::vector<std::string> all;
};

std::string indexPath(const std::string &directory) {
  return (fs::path(directory) / kIndexFile).string();
}

/// The index of `directory`, or nullopt when it has none.
std::optional<IndexState> readIndex(const std::string &directory) {
  std::string path = indexPath(directory);
  std::error_code error;
  if (!fs::exists(path, error))
    return std::nullopt;
  auto fail = [&](const std::string &why) -> IOError {
    return IOError("cannot read the checkpoint index file " + inQuotes(path) + ": " + why);
  };
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    throw fail(std::strerror(errno));
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file)) > 0;)
    text.append(buffer, n);
  std::fclose(file);
  try {
    nlohmann::json json = nlohmann::json::parse(text);
    IndexState state{json.at("model_checkpoint_path").get<std::string>(),
                     json.at("all_model_checkpoint_paths").get<std::vector<std::string>>()};
    state.latest = (fs::path(directory) / state.latest).string();
    for (std::string &entry : state.all)
      entry = (fs::path(directory) / entry).string();
    return state;
  } catch (const nlohmann::json::exception &e) {
    throw fail(e.what());
  }
}

/// Writes the index of `directory` atomically. Its checkpoints are files of
/// the directory: it names them relative to it, so the directory can move.
void writeIndex(const std::string &directory, const IndexState &state) {
  auto relative = [](const std::string &path) { return fs::path(path).filename().string(); };
  nlohmann::ordered_json json;
  json["model_checkpoint_path"] = relative(state.latest);
  json["all_model_checkpoint_paths"] = nlohmann::json::array();
  for (const std::string &path : state.all)
    json["all_model_checkpoint_paths"].push_back(relative(path));
  std::string text = json.dump(2) + "\n";
  std::string path = indexPath(directory);
  std::string_view pieces[] = {text};
  if (std::string why = support::writeFileWhole(path, pieces); !why.empty())
    throw IOError("cannot write the checkpoint index file " + inQuotes(path) + ": " + why);
}

std::string directoryOf(const std::string &path) { return fs::path(path).parent_path().string(); }

void makeDirectory(const std::string &directory) {
  std::error_code error;
  if (!directory.empty() && !fs::create_directories(directory, error) && error)
    throw IOError("cannot create the checkpoint directory " + inQuotes(directory) + ": " +
                  error.message());
}

} // namespace

//===----------------------------------------------------------------------===//
// Checkpoint
//===----------------------------------------------------------------------===//

namespace {

/// Every variable a checkpoint's objects hold, by key (save_counter aside).
/// A slot goes under its variable's key when the checkpoint holds the
/// variable: then the key does not depend on names.
KeyedVariables
keyedVariables(const std::vector<std::pair<std::string, Checkpoint::Object>> &objects) {
  std::map<const void *, std::string> keyOf; // a variable's state -> its key
  KeyedVariables all;
  for (const auto &[name, object] : objects) {
    if (auto *module = std::get_if<layers::Module *>(&object.target()))
      for (auto &[path, variable] : (*module)->checkpoint_variables())
        all.emplace_back(name + "/" + path, variable);
    else if (auto *variable = std::get_if<Variable>(&object.target()))
      all.emplace_back(name, *variable);
  }
  for (const auto &[key, variable] : all)
    keyOf.emplace(variable.state().get(), key);
  for (const auto &[name, object] : objects) {
    auto *optimizer = std::get_if<optimizers::Optimizer *>(&object.target());
    if (!optimizer)
      continue;
    all.emplace_back(name + "/iterations", (*optimizer)->iterations());
    for (const auto &slot : (*optimizer)->slots()) {
      auto it = keyOf.find(slot.variable.state().get());
      all.emplace_back(name + "/" + (it != keyOf.end() ? it->second : slot.variable.name()) + "/" +
                           slot.name,
                       slot.value);
    }
  }
  return all;
}

} // namespace

Checkpoint::Checkpoint(std::vector<std::pair<std::string, Object>> objects)
    : objects_(std::move(objects)), saveCounter_(Tensor(int64_t{0}, DType::Int64), kSaveCounter) {
  std::set<std::string> names;
  for (const auto &[name, object] : objects_)
    if (name.empty() || name.find('/') != std::string::npos || name == kSaveCounter ||
        !names.insert(name).second)
      throw Error("Checkpoint: object name " + inQuotes(name) +
                  " is empty, has a '/', is 'save_counter' or is given twice");
}

std::string Checkpoint::write(const std::string &file_path) const {
  checkNotTracing("Checkpoint.write");
  KeyedVariables variables = keyedVariables(objects_);
  variables.emplace_back(kSaveCounter, saveCounter_);
  writeVariables(file_path, variables);
  return file_path;
}

std::string Checkpoint::writeNumbered(const std::string &file_prefix) {
  checkNotTracing("Checkpoint.save");
  makeDirectory(directoryOf(file_prefix));
  // Counted on the host (no kernel runs): the file holds the new count, and
  // a failed write leaves the old one.
  Tensor previous = saveCounter_.value();
  int64_t number = previous.item<int64_t>() + 1;
  saveCounter_.assign(Tensor(number, DType::Int64));
  try {
    return write(file_prefix + "-" + std::to_string(number) + ".safetensors");
  } catch (...) {
    saveCounter_.assign(previous);
    throw;
  }
}

std::string Checkpoint::save(const std::string &file_prefix) {
  std::string path = writeNumbered(file_prefix);
  writeIndex(directoryOf(path), {path, {path}});
  return path;
}

void Checkpoint::restore(const std::string &save_path, bool expect_partial) {
  checkNotTracing("Checkpoint.restore");
  safetensors::File file(save_path);
  std::vector<Target> targets;
  KeyedVariables keyed = keyedVariables(objects_);
  for (const auto &[key, variable] : keyed)
    targets.push_back(targetOf(key, variable));
  if (file.find(kSaveCounter))
    targets.push_back(targetOf(kSaveCounter, saveCounter_));

  // Slots the file holds for this checkpoint's variables that an optimizer
  // has yet to make: made (all of the variable's) just before assignment.
  std::set<std::string> saved;
  for (const auto &[key, variable] : keyed)
    saved.insert(key);
  for (const auto &[name, object] : objects_) {
    auto *optimizerPointer = std::get_if<optimizers::Optimizer *>(&object.target());
    if (!optimizerPointer)
      continue;
    optimizers::Optimizer &optimizer = **optimizerPointer;
    for (const auto &[key, variable] : keyed) {
      if (!isFloatingPoint(variable.dtype()) || key.rfind(name + "/", 0) == 0)
        continue; // not a variable an optimizer updates, or its own
      std::vector<std::string> missing;
      bool inFile = false;
      for (const std::string &slotName : optimizer.slot_names()) {
        std::string slotKey = name + "/" + key + "/" + slotName;
        inFile = inFile || file.find(slotKey);
        if (!saved.count(slotKey))
          missing.push_back(slotName);
      }
      if (!inFile)
        continue;
      for (const std::string &slotName : missing) {
        Variable owner = variable;
        targets.push_back(
            {name + "/" + key + "/" + slotName, variable.dtype(), variable.shape(),
             "slot " + inQuotes(slotName) + " of variable " + inQuotes(variable.name()),
             [&optimizer, owner, slotName] {
               optimizer.build({owner});
               for (const auto &slot : optimizer.slots())
                 if (slot.variable.state() == owner.state() && slot.name == slotName)
                   return slot.value;
               throw Error("internal: optimizer.build made no slot " + slotName);
             }});
      }
    }
  }

  auto underAnObject = [&](const std::string &key) {
    for (const auto &[name, object] : objects_)
      if (key == name || key.rfind(name + "/", 0) == 0)
        return true;
    return false;
  };
  restoreTargets(
      file, targets, [&](const std::string &key) { return !expect_partial && underAnObject(key); },
      "(a module makes its weights at its first call: call it once before restoring; an "
      "optimizer's slots of variables the checkpoint does not hold need optimizer.build "
      "first; restore(path, /*expect_partial=*/true) ignores unused keys)");
}

//===----------------------------------------------------------------------===//
// CheckpointManager and latest_checkpoint
//===----------------------------------------------------------------------===//

std::optional<std::string> train::latest_checkpoint(const std::string &directory) {
  std::optional<IndexState> state = readIndex(directory);
  std::error_code error;
  if (!state || !fs::exists(state->latest, error))
    return std::nullopt;
  return state->latest;
}

/// Removes the temporary files in `directory` that a save killed part way
/// left ("<file>.tmp.<pid>.<...>", FileWrite's names) when that process is
/// gone: files of a live process may still be being written.
static void removeStaleTemporaries(const std::string &directory) {
  std::error_code error;
  for (const auto &entry : fs::directory_iterator(directory, error)) {
    std::string name = entry.path().filename().string();
    size_t at = name.rfind(".tmp.");
    if (at == std::string::npos)
      continue;
    char *end = nullptr;
    long pid = std::strtol(name.c_str() + at + 5, &end, 10);
    if (pid <= 0 || *end != '.')
      continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue; // alive (or not ours to ask about)

    fs::remove(entry.path(), error);
  }
}

train::CheckpointManager::CheckpointManager(Checkpoint checkpoint, std::string directory,
                                            std::optional<int> max_to_keep,
                                            std::string checkpoint_name)
    : checkpoint_(std::move(checkpoint)), directory_(std::move(directory)),
      prefix_((fs::path(directory_) / checkpoint_name).string()), maxToKeep_(max_to_keep) {
  if (max_to_keep && *max_to_keep < 1)
    throw Error("CheckpointManager: max_to_keep must be positive (or nullopt to keep all), got " +
                std::to_string(*max_to_keep));
  removeStaleTemporaries(directory_);
  if (std::optional<IndexState> state = readIndex(directory_)) {
    std::error_code error;
    for (const std::string &path : state->all)
      if (fs::exists(path, error))
        checkpoints_.push_back(path);
  }
}

std::string train::CheckpointManager::save() {
  std::string path = checkpoint_.writeNumbered(prefix_);
  std::erase(checkpoints_, path); // a number saved again after a restore
  checkpoints_.push_back(path);
  std::vector<std::string> dropped;
  while (maxToKeep_ && checkpoints_.size() > static_cast<size_t>(*maxToKeep_)) {
    dropped.push_back(checkpoints_.front());
    checkpoints_.erase(checkpoints_.begin());
  }
  // The index first: a crash in between leaves an extra file, never an
  // index naming a deleted one.
  writeIndex(directory_, {path, checkpoints_});
  for (const std::string &old : dropped) {
    std::error_code error;
    fs::remove(old, error); // already gone is fine
  }
  return path;
}

std::optional<std::string> train::CheckpointManager::latest_checkpoint() const {
  if (checkpoints_.empty())
    return std::nullopt;
  return checkpoints_.back();
}

//===----------------------------------------------------------------------===//
// Keras's save_weights and load_weights
//===----------------------------------------------------------------------===//

void layers::Module::save_weights(const std::string &path) const {
  checkNotTracing("save_weights");
  writeVariables(path, checkpoint_variables());
}

void layers::Module::load_weights(const std::string &path) {
  checkNotTracing("load_weights");
  safetensors::File file(path);
  std::vector<Target> targets;
  for (const auto &[key, variable] : checkpoint_variables())
    targets.push_back(targetOf(key, variable));
  restoreTargets(
      file, targets, [](const std::string &) { return true; },
      "(a module makes its weights at its first call: call it once before load_weights)");
}
