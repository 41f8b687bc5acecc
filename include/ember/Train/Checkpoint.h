//===- Checkpoint.h - object-based checkpoints (tf.train.Checkpoint) -*- C++ -*-===//
//
// A Checkpoint saves the variables of named objects — modules (their
// weights), optimizers (the step counter and slots) and single variables —
// to a safetensors file, and restores them, as tf.train.Checkpoint does.
// Keys are "<object>/<path>": "model/dense/kernel" (a module's
// checkpoint_variables(), keyed by structure, so a model built alike loads
// them), "optimizer/iterations", "optimizer/model/dense/kernel/m" (a slot,
// under the key of its variable when the checkpoint holds that variable,
// else under the variable's name), "x"; and "save_counter". Files are
// written whole or not at all (a crash leaves the old file or the new one),
// and the "checkpoint" index file of the directory names the latest.
//
//   ember::layers::Sequential model({std::make_shared<ember::layers::Dense>(4),
//                                    std::make_shared<ember::layers::Dense>(2)});
//   model(ember::zeros({1, 3}));                       // makes the weights
//   ember::optimizers::Adam adam(0.01);
//   ember::Variable epoch(ember::Tensor(0, ember::kInt64), "epoch");
//   ember::Checkpoint checkpoint({{"model", model}, {"optimizer", adam}, {"epoch", epoch}});
//   ember::train::CheckpointManager manager(checkpoint, "training_checkpoints", 3);
//   if (std::optional<std::string> latest = manager.latest_checkpoint())
//     checkpoint.restore(*latest);                     // resumes, slots and all
//   epoch.assign(ember::Tensor(epoch.value().item<int64_t>() + 1, ember::kInt64));
//   std::string saved = manager.save();     // "training_checkpoints/ckpt-<N>.safetensors"
//   if (ember::train::latest_checkpoint("training_checkpoints") != saved)
//     throw ember::Error("the index names the latest checkpoint");
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_CHECKPOINT_H
#define EMBER_CHECKPOINT_H

#include "ember/Train/Layers.h"
#include "ember/Train/Optimizers.h"
#include "ember/Frontend/Variable.h"

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ember {

namespace train {
class CheckpointManager;
} // namespace train

class Checkpoint {
public:
  /// What a checkpoint saves under one name. Modules and optimizers are
  /// held by reference (they must outlive the checkpoint); a Variable is a
  /// handle already.
  class Object {
  public:
    // Implicit, so that objects are given as {"model", model}.
    Object(layers::Module &module) : target_(&module) {}
    Object(optimizers::Optimizer &optimizer) : target_(&optimizer) {}
    Object(Variable variable) : target_(std::move(variable)) {}

    using Target = std::variant<layers::Module *, optimizers::Optimizer *, Variable>;
    const Target &target() const { return target_; }

  private:
    Target target_;
  };

  /// `objects` by name: names are unique, non-empty, without '/', and not
  /// "save_counter". Copies of a Checkpoint share its save counter.
  explicit Checkpoint(std::vector<std::pair<std::string, Object>> objects);

  /// Counts a save and writes "<file_prefix>-<save_counter>.safetensors"
  /// (making its directory), then names it in the directory's "checkpoint"
  /// index file as the latest. Returns the file's path.
  std::string save(const std::string &file_prefix);
  /// Writes the checkpoint to `file_path` exactly: no counting, no index.
  /// Returns `file_path`.
  std::string write(const std::string &file_path) const;

  /// Restores every variable from `save_path` (a path save or write
  /// returned). Everything is checked before any variable changes: each
  /// variable's key must be in the file with its dtype and shape, and every
  /// key of the file under one of this checkpoint's object names must be
  /// used (a module not yet built, a different model or optimizer) unless
  /// `expect_partial`; otherwise one ember::Error naming the file and every
  /// problem, and nothing is restored. Keys of other objects are ignored, so
  /// a checkpoint of just the model reads a training checkpoint. An
  /// optimizer's slots the file holds for a variable of this checkpoint are
  /// made when the optimizer has not made them yet (as TensorFlow's
  /// deferred slot restoration); slots of variables the checkpoint does not
  /// hold need optimizer.build(variables) first. save_counter is restored
  /// when the file has it.
  void restore(const std::string &save_path, bool expect_partial = false);

  /// The number of saves (an int64 scalar Variable), restored with the rest.
  const Variable &save_counter() const { return saveCounter_; }

private:
  friend class train::CheckpointManager;
  /// Counts a save and writes "<file_prefix>-<N>.safetensors".
  std::string writeNumbered(const std::string &file_prefix);

  std::vector<std::pair<std::string, Object>> objects_;
  Variable saveCounter_;
};

namespace train {

/// The latest checkpoint the "checkpoint" index file of `directory` names
/// (tf.train.latest_checkpoint); nullopt when there is none, or when the
/// file it names is gone. An index file that is not one is an IOError.
std::optional<std::string> latest_checkpoint(const std::string &directory);

/// Numbered checkpoints in `directory` ("ckpt-1.safetensors", ...), the
/// oldest deleted beyond `max_to_keep` (nullopt keeps all), as
/// tf.train.CheckpointManager. It picks up the checkpoints an earlier
/// manager of the directory kept.
class CheckpointManager {
public:
  CheckpointManager(Checkpoint checkpoint, std::string directory, std::optional<int> max_to_keep,
                    std::string checkpoint_name = "ckpt");

  /// Saves, updates the index file, then deletes the checkpoints beyond
  /// max_to_keep. Returns the new file's path.
  std::string save();
  /// The newest checkpoint kept, if any.
  std::optional<std::string> latest_checkpoint() const;
  /// The checkpoints kept, oldest first.
  const std::vector<std::string> &checkpoints() const { return checkpoints_; }
  const std::string &directory() const { return directory_; }

private:
  Checkpoint checkpoint_;
  std::string directory_, prefix_;
  std::optional<int> maxToKeep_;
  std::vector<std::string> checkpoints_;
};

} // namespace train
} // namespace ember

#endif // EMBER_CHECKPOINT_H
