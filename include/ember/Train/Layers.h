//===- Layers.h - modules that own their variables (Keras layers) -*- C++ -*-===//
//
// A Module (tf.Module) owns Variables and sub-modules; trainable_variables()
// collects them depth first, and named_variables() names them by their path
// ("sequential/dense/kernel"); checkpoints key them by structure
// (checkpoint_variables(): "dense/kernel"), and save_weights/load_weights
// write and read them (safetensors files). Layers follow
// Keras: their weights are made at the first call, when the input's shape is
// known, initialized as Keras does (Glorot-uniform kernels from a seed, zero
// biases). A layer called inside an ember::function reads its weights as
// inputs of the compiled function, so a traced step trains them. Weights are
// float64 for float64 inputs, else float32; float16 and bfloat16 inputs
// compute in their own type with the weights cast when read (Keras's
// mixed_float16 / mixed_bfloat16), so gradients and updates stay float32.
//
//   ember::layers::Sequential model({
//       std::make_shared<ember::layers::Conv2D>(16, std::array<int64_t, 2>{3, 3}, "relu"),
//       std::make_shared<ember::layers::GlobalAveragePooling2D>(),
//       std::make_shared<ember::layers::Dense>(10)});
//   ember::Tensor logits = model(ember::zeros({1, 28, 28, 1}));   // shape (1, 10)
//   // model.named_variables(): sequential/conv2d/kernel [3, 3, 1, 16],
//   // sequential/conv2d/bias, sequential/dense/kernel [16, 10], sequential/dense/bias
//   if (model.trainable_variables().size() != 4) throw ember::Error("4 weights expected");
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LAYERS_H
#define EMBER_LAYERS_H

#include "ember/Frontend/NN.h"
#include "ember/Frontend/Variable.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ember::layers {

class Module {
public:
  virtual ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const std::string &name() const { return name_; }
  /// Every variable of this module, then of its sub-modules, depth first,
  /// each with its path: "<module>/<sub-module>/.../<variable>" (what
  /// checkpoints save: trainable or not).
  std::vector<std::pair<std::string, Variable>> named_variables() const;
  /// The variables, in that order (Keras's `variables`).
  std::vector<Variable> variables() const;
  /// Those an optimizer trains (weights), and the others (state such as
  /// Dropout's seed counter).
  std::vector<Variable> trainable_variables() const;
  std::vector<Variable> non_trainable_variables() const;

  /// The same keyed by structure, not by names, as checkpoints and
  /// save_weights key them (and Keras's weights files): the module's own
  /// name left out, each sub-module named by its kind, numbered among its
  /// siblings ("dense/kernel", "dense_1/kernel"). Unlike names, which are
  /// unique in the process ("sequential_1/dense_3"), these keys are the same
  /// for every model built alike, so one loads another's weights.
  std::vector<std::pair<std::string, Variable>> checkpoint_variables() const;

  /// Keras's save_weights: the variables to a safetensors file keyed by
  /// checkpoint_variables(), written whole or not at all.
  void save_weights(const std::string &path) const;
  /// Keras's load_weights: reads a file save_weights wrote into a module
  /// built alike (layers make their weights at their first call: call it
  /// once before). Every key must match a variable of the same dtype and
  /// shape and the reverse; otherwise an ember::Error listing each problem,
  /// and no variable changes.
  void load_weights(const std::string &path);

protected:
  /// `name`, or (empty) `kind` made unique in the process as Keras does:
  /// "dense", "dense_1", "dense_2", ...
  Module(const std::string &name, const std::string &kind);
  /// A variable of this module named `name` (its path adds the module's).
  Variable add_weight(const std::string &name, const Tensor &initial, bool trainable = true);
  /// Makes `child` a sub-module (its variables become this module's too).
  void add_module(std::shared_ptr<Module> child);

private:
  struct Weight {
    std::string name;
    Variable variable;
    bool trainable;
  };
  std::vector<std::pair<std::string, Variable>> collect(int trainable) const;

  std::string name_, kind_;
  std::vector<Weight> weights_;
  std::vector<std::shared_ptr<Module>> children_;
};

/// A module computing one tensor from one tensor. `training` (Keras's
/// `training` argument) selects training behaviour: Dropout drops only then.
///
/// Errors inside a layer (a bad input's rank, an op's) name the line that
/// called it: the outermost layer call of the thread (a model's, not its
/// sub-layers'), which call() implementations pass to their ops as
/// call_site().
class Layer : public Module {
public:
  Tensor operator()(const Tensor &x, bool training = false, EMBER_LOC);

protected:
  using Module::Module;
  virtual Tensor call(const Tensor &x, bool training) = 0;
  /// Where the user called the outermost layer now running on this thread.
  static const SourceLoc &call_site();
};

/// `activation(x @ kernel + bias)`: kernel [in, units] Glorot-uniform,
/// bias zeros. `activation`: "linear" (none), "relu", "sigmoid", "tanh",
/// "softmax". Inputs of rank 2 or more, the kernel applied along the last
/// axis (Keras's Dense: [batch, steps, in] -> [batch, steps, units]).
class Dense : public Layer {
public:
  explicit Dense(int64_t units, std::string activation = "linear", bool use_bias = true,
                 uint64_t seed = 0, const std::string &name = "");

protected:
  Tensor call(const Tensor &x, bool training) override;

private:
  int64_t units_;
  std::string activation_;
  bool useBias_;
  uint64_t seed_;
  std::optional<Variable> kernel_, bias_;
};

/// `activation(nn::conv2d(x, kernel, strides, padding) + bias)`: x NHWC,
/// kernel [KH, KW, C, filters] Glorot-uniform, bias zeros; padding "valid"
/// or "same" (any case, as Keras).
class Conv2D : public Layer {
public:
  Conv2D(int64_t filters, std::array<int64_t, 2> kernel_size, std::string activation = "linear",
         std::array<int64_t, 2> strides = {1, 1}, std::string padding = "VALID",
         uint64_t seed = 0, const std::string &name = "");

protected:
  Tensor call(const Tensor &x, bool training) override;

private:
  int64_t filters_;
  std::array<int64_t, 2> kernelSize_, strides_;
  std::string activation_, padding_;
  uint64_t seed_;
  std::optional<Variable> kernel_, bias_;
};

/// [N, H, W, C] -> [N, C], the mean over H and W.
class GlobalAveragePooling2D : public Layer {
public:
  explicit GlobalAveragePooling2D(const std::string &name = "");

protected:
  Tensor call(const Tensor &x, bool training) override;
};

/// [N, ...] -> [N, everything else].
class Flatten : public Layer {
public:
  explicit Flatten(const std::string &name = "");

protected:
  Tensor call(const Tensor &x, bool training) override;
};

/// What 2-D pooling layers share: `pool_size` windows, `strides` apart (by
/// default the window, as Keras), "valid" or "same" padding (any case).
class Pooling2D : public Layer {
protected:
  Pooling2D(std::array<int64_t, 2> pool_size, std::optional<std::array<int64_t, 2>> strides,
            std::string padding, const std::string &name, const std::string &kind);

  std::array<int64_t, 2> poolSize_, strides_;
  std::string padding_;
};

/// 2-D max pooling (tf.keras.layers.MaxPooling2D).
class MaxPooling2D : public Pooling2D {
public:
  explicit MaxPooling2D(std::array<int64_t, 2> pool_size = {2, 2},
                        std::optional<std::array<int64_t, 2>> strides = std::nullopt,
                        std::string padding = "VALID", const std::string &name = "");

protected:
  Tensor call(const Tensor &x, bool training) override;
};
using MaxPool2D = MaxPooling2D;

/// 2-D average pooling (tf.keras.layers.AveragePooling2D).
class AveragePooling2D : public Pooling2D {
public:
  explicit AveragePooling2D(std::array<int64_t, 2> pool_size = {2, 2},
                            std::optional<std::array<int64_t, 2>> strides = std::nullopt,
                            std::string padding = "VALID", const std::string &name = "");

protected:
  Tensor call(const Tensor &x, bool training) override;
};
using AvgPool2D = AveragePooling2D;

/// Keras's Dropout: in training, each element zeroed with probability
/// `rate`, the others scaled by 1 / (1 - rate); the identity otherwise. The
/// mask is drawn from `seed` and a step counter (a non-trainable int64
/// Variable, "seed_state") counted up at each training call, so that each
/// step, eager or compiled, gets a new mask and a seeded run is repeatable.
/// A step traced with a None batch draws the mask its known size would.
class Dropout : public Layer {
public:
  explicit Dropout(double rate, uint64_t seed = 0, const std::string &name = "");

protected:
  Tensor call(const Tensor &x, bool training) override;

private:
  double rate_;
  uint64_t seed_;
  Variable state_;
};

/// Its layers applied in order.
class Sequential : public Layer {
public:
  explicit Sequential(std::vector<std::shared_ptr<Layer>> layers, const std::string &name = "");

protected:
  Tensor call(const Tensor &x, bool training) override;

private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

} // namespace ember::layers

#endif // EMBER_LAYERS_H
