//===- Layers.cpp - modules that own their variables -----------------------===//

#include "ember/Train/Layers.h"

#include "ember/Frontend/Error.h"

#include "ember/Frontend/UserCallSite.h"

#include <atomic>
#include <cctype>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>

using namespace ember;
using namespace ember::layers;

namespace {

/// "dense", then "dense_1", "dense_2", ... as Keras names layers.
std::string uniqueName(const std::string &kind) {
  static std::mutex mutex;
  static std::map<std::string, int> used;
  std::lock_guard<std::mutex> lock(mutex);
  int n = used[kind]++;
  return n == 0 ? kind : kind + "_" + std::to_string(n);
}

/// A seed for a layer's initializer: `seed`, or (0) the next one of the
/// process, so that two layers do not start from the same weights.
uint64_t seedOf(uint64_t seed) {
  static std::atomic<uint64_t> next{1};
  return seed != 0 ? seed : next.fetch_add(1);
}

/// Keras's glorot_uniform: U(-limit, limit), limit = sqrt(6 / (fan_in + fan_out)).
Tensor glorotUniform(const Shape &shape, int64_t fanIn, int64_t fanOut, uint64_t seed,
                     DType dtype) {
  double limit = std::sqrt(6.0 / static_cast<double>(fanIn + fanOut));
  return random_uniform(shape, seed, -limit, limit, dtype);
}

const char *const kActivations = "linear, relu, sigmoid, tanh or softmax";

Tensor activate(const std::string &activation, const Tensor &x) {
  if (activation == "linear" || activation.empty())
    return x;
  if (activation == "relu")
    return relu(x);
  if (activation == "sigmoid")
    return sigmoid(x);
  if (activation == "tanh")
    return tanh(x);
  if (activation == "softmax")
    return nn::softmax(x);
  throw Error("unknown activation \"" + activation + "\" (" + kActivations + ")");
}

/// Checks the name alone: nothing runs (applied to a scalar, softmax
/// refused every Dense(n, "softmax")).
void checkActivation(const std::string &activation) {
  for (const char *known : {"", "linear", "relu", "sigmoid", "tanh", "softmax"})
    if (activation == known)
      return;
  throw Error("unknown activation \"" + activation + "\" (" + kActivations + ")");
}


/// Throws an error of layer `layer`, at the user's call of the layer.
[[noreturn]] void throwLayerError(const std::string &layer, const std::string &message,
                                  const SourceLoc &loc) {
  throw OpError(error_at(loc) + "layer '" + layer + "' " + message);
}

/// Throws unless `x` has rank `rank` (or, `orMore`, at least `rank`).
void checkRank(const std::string &layer, const Tensor &x, int rank, const SourceLoc &loc,
               bool orMore = false) {
  if (orMore ? x.shape().rank() >= rank : x.shape().rank() == rank)
    return;
  throwLayerError(layer,
                  "needs an input of rank " + std::to_string(rank) + (orMore ? " or more" : "") +
                      ", got " + describe(x),
                  loc);
}

/// A layer's padding as nn's ops take it: Keras spells it "valid" / "same"
/// and takes any case.
std::string layerPadding(const std::string &layer, std::string padding) {
  std::string upper = padding;
  for (char &c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper != "VALID" && upper != "SAME")
    throw Error(layer + ": padding must be \"valid\" or \"same\", got \"" + padding + "\"");
  return upper;
}

DType floatDType(const Tensor &x) {
  return x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
}

/// A weight as a layer computes with it: float16 and bfloat16 inputs keep
/// float32 variables and compute in their own type, as Keras's
/// mixed_float16 / mixed_bfloat16 policies do (the variable is cast when
/// read; its gradient is cast back, so updates stay in float32).
Tensor weightFor(const Tensor &x, const Variable &weight, const SourceLoc &loc) {
  if (isHalfPrecision(x.dtype()) && weight.dtype() != x.dtype())
    return cast(weight.value(), x.dtype(), loc);
  return weight.value();
}

} // namespace

Module::Module(const std::string &name, const std::string &kind)
    : name_(name.empty() ? uniqueName(kind) : name), kind_(kind) {}

Module::~Module() = default;

Variable Module::add_weight(const std::string &name, const Tensor &initial, bool trainable) {
  Variable variable(initial, name_ + "/" + name);
  weights_.push_back({name, variable, trainable});
  return variable;
}

void Module::add_module(std::shared_ptr<Module> child) { children_.push_back(std::move(child)); }

/// The variables with their paths: all (trainable < 0), or those whose
/// trainability is `trainable`.
std::vector<std::pair<std::string, Variable>> Module::collect(int trainable) const {
  std::vector<std::pair<std::string, Variable>> all;
  for (const Weight &weight : weights_)
    if (trainable < 0 || weight.trainable == (trainable == 1))
      all.emplace_back(name_ + "/" + weight.name, weight.variable);
  for (const auto &child : children_)
    for (auto &[path, variable] : child->collect(trainable))
      all.emplace_back(name_ + "/" + path, variable);
  return all;
}

std::vector<std::pair<std::string, Variable>> Module::checkpoint_variables() const {
  std::vector<std::pair<std::string, Variable>> all;
  for (const Weight &weight : weights_)
    all.emplace_back(weight.name, weight.variable);
  std::map<std::string, int> siblings; // of each kind so far
  for (const auto &child : children_) {
    int n = siblings[child->kind_]++;
    std::string prefix = n == 0 ? child->kind_ : child->kind_ + "_" + std::to_string(n);
    for (auto &[path, variable] : child->checkpoint_variables())
      all.emplace_back(prefix + "/" + path, variable);
  }
  return all;
}

std::vector<std::pair<std::string, Variable>> Module::named_variables() const {
  return collect(-1);
}

static std::vector<Variable> withoutPaths(std::vector<std::pair<std::string, Variable>> named) {
  std::vector<Variable> variables;
  for (auto &[path, variable] : named)
    variables.push_back(variable);
  return variables;
}

std::vector<Variable> Module::variables() const { return withoutPaths(collect(-1)); }
std::vector<Variable> Module::trainable_variables() const { return withoutPaths(collect(1)); }
std::vector<Variable> Module::non_trainable_variables() const {
  return withoutPaths(collect(0));
}

Tensor Layer::operator()(const Tensor &x, bool training, SourceLoc loc) {
  // The outermost call names the user's line; sub-layers' calls keep it.
  UserCallSite site(loc);
  // What the layer makes (its weights at the first call, dropout's counters)
  // is made where its input is.
  std::optional<DeviceScope> beside;
  if (x.defined() && x.device().is_cuda())
    beside.emplace(x.device());
  return call(x, training);
}

const SourceLoc &Layer::call_site() {
  static const SourceLoc none = SourceLoc::current();
  const SourceLoc *site = UserCallSite::current();
  return site ? *site : none;
}

Dense::Dense(int64_t units, std::string activation, bool use_bias, uint64_t seed,
             const std::string &name)
    : Layer(name, "dense"), units_(units), activation_(std::move(activation)),
      useBias_(use_bias), seed_(seedOf(seed)) {
  if (units < 1)
    throw Error("Dense: units must be positive, got " + std::to_string(units));
  checkActivation(activation_);
}

Tensor Dense::call(const Tensor &x, bool training) {
  // Keras's Dense: inputs of rank 2 or more, the kernel applied along the
  // last axis ([batch, steps, features] -> [batch, steps, units]).
  checkRank(name(), x, 2, call_site(), /*orMore=*/true);
  int64_t in = x.shape()[x.shape().rank() - 1];
  if (in == kNone)
    throwLayerError(name(), "needs its inputs' features (the last dim) known, got " + describe(x),
                    call_site());
  if (!kernel_) {
    DType dtype = floatDType(x);
    kernel_ = add_weight("kernel", glorotUniform({in, units_}, in, units_, seed_, dtype));
    if (useBias_)
      bias_ = add_weight("bias", zeros({units_}, dtype));
  } else if (kernel_->shape()[0] != in) {
    throwLayerError(name(),
                    "was built for inputs of " + std::to_string(kernel_->shape()[0]) +
                        " features, got " + describe(x),
                    call_site());
  }
  Tensor y;
  if (x.rank() == 2) {
    y = matmul(x, weightFor(x, *kernel_, call_site()), call_site());
  } else {
    // None dims (a batch, steps, traced with an input signature) make the
    // rows -1, and x gives their sizes back.
    std::vector<int64_t> shape = x.shape().vec();
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < shape.size(); ++d)
      rows = shape[d] == kNone || rows < 0 ? -1 : rows * shape[d];
    shape.back() = units_;
    y = reshape(matmul(reshape(x, {rows, in}, call_site()), weightFor(x, *kernel_, call_site()),
                       call_site()),
                shape, x, call_site());
  }
  if (bias_)
    y = y + weightFor(x, *bias_, call_site());
  return activate(activation_, y);
}

Conv2D::Conv2D(int64_t filters, std::array<int64_t, 2> kernel_size, std::string activation,
               std::array<int64_t, 2> strides, std::string padding, uint64_t seed,
               const std::string &name)
    : Layer(name, "conv2d"), filters_(filters), kernelSize_(kernel_size), strides_(strides),
      activation_(std::move(activation)), padding_(layerPadding("Conv2D", std::move(padding))),
      seed_(seedOf(seed)) {
  if (filters < 1 || kernel_size[0] < 1 || kernel_size[1] < 1)
    throw Error("Conv2D: filters and kernel sizes must be positive");
  checkActivation(activation_);
}

Tensor Conv2D::call(const Tensor &x, bool training) {
  checkRank(name(), x, 4, call_site());
  int64_t channels = x.shape()[3];
  if (channels == kNone)
    throwLayerError(name(), "needs its inputs' channels (the last dim) known, got " + describe(x),
                    call_site());
  if (!kernel_) {
    DType dtype = floatDType(x);
    int64_t window = kernelSize_[0] * kernelSize_[1];
    kernel_ = add_weight("kernel",
                         glorotUniform({kernelSize_[0], kernelSize_[1], channels, filters_},
                                       window * channels, window * filters_, seed_, dtype));
    bias_ = add_weight("bias", zeros({filters_}, dtype));
  }
  Tensor y = nn::conv2d(x, weightFor(x, *kernel_, call_site()), strides_, padding_, {1, 1},
                        call_site()) +
             weightFor(x, *bias_, call_site());
  return activate(activation_, y);
}

GlobalAveragePooling2D::GlobalAveragePooling2D(const std::string &name)
    : Layer(name, "global_average_pooling2d") {}

Tensor GlobalAveragePooling2D::call(const Tensor &x, bool training) {
  checkRank(name(), x, 4, call_site());
  return reduce_mean(x, {1, 2}, false, call_site());
}

Flatten::Flatten(const std::string &name) : Layer(name, "flatten") {}

Tensor Flatten::call(const Tensor &x, bool training) {
  checkRank(name(), x, 1, call_site(), /*orMore=*/true);
  int64_t rest = 1; // the product of the other dims, also when the batch is empty
  for (int d = 1; d < x.rank(); ++d) {
    if (x.shape()[d] == kNone)
      throwLayerError(name(),
                      "flattens the dims after the batch, which must be known: dim " +
                          std::to_string(d) + " of " + describe(x) + " is None",
                      call_site());
    rest *= x.shape()[d];
  }
  return reshape(x, {x.shape()[0], rest}, call_site());
}

Pooling2D::Pooling2D(std::array<int64_t, 2> pool_size,
                     std::optional<std::array<int64_t, 2>> strides, std::string padding,
                     const std::string &name, const std::string &kind)
    : Layer(name, kind), poolSize_(pool_size), strides_(strides ? *strides : pool_size),
      padding_(layerPadding(kind == "max_pooling2d" ? "MaxPooling2D" : "AveragePooling2D",
                            std::move(padding))) {}

MaxPooling2D::MaxPooling2D(std::array<int64_t, 2> pool_size,
                           std::optional<std::array<int64_t, 2>> strides, std::string padding,
                           const std::string &name)
    : Pooling2D(pool_size, strides, std::move(padding), name, "max_pooling2d") {}

Tensor MaxPooling2D::call(const Tensor &x, bool training) {
  checkRank(name(), x, 4, call_site());
  return nn::max_pool2d(x, poolSize_, strides_, padding_, call_site());
}

AveragePooling2D::AveragePooling2D(std::array<int64_t, 2> pool_size,
                                   std::optional<std::array<int64_t, 2>> strides,
                                   std::string padding, const std::string &name)
    : Pooling2D(pool_size, strides, std::move(padding), name, "average_pooling2d") {}

Tensor AveragePooling2D::call(const Tensor &x, bool training) {
  checkRank(name(), x, 4, call_site());
  return nn::avg_pool2d(x, poolSize_, strides_, padding_, call_site());
}

Dropout::Dropout(double rate, uint64_t seed, const std::string &name)
    : Layer(name, "dropout"), rate_(rate), seed_(seedOf(seed)),
      state_(add_weight("seed_state", Tensor(int64_t{0}, DType::Int64), /*trainable=*/false)) {
  if (!(rate >= 0 && rate < 1))
    throw Error("Dropout: rate must be in [0, 1), got " + std::to_string(rate));
}

/// Each element's row-major number, from 1, in x's shape (int64): a None
/// dim's size and indices are read when the traced function runs.
static Tensor elementNumbers(const Tensor &x) {
  if (x.shape().is_fully_defined())
    return reshape(arange(int64_t{1}, x.numel() + 1, int64_t{1}, DType::Int64), x.shape().vec());
  Tensor sizes = shape(x);
  Tensor number = iota_like(x, 0);
  for (int d = 1; d < x.rank(); ++d) {
    Tensor size = x.shape()[d] == kNone ? gather(sizes, Tensor(int64_t{d}, DType::Int64), 0)
                                        : Tensor(x.shape()[d], DType::Int64);
    number = number * size + iota_like(x, d);
  }
  return number + Tensor(int64_t{1}, DType::Int64);
}

/// Uniform [0, 1) numbers in x's shape, one per element, from a
/// counter-based hash of (element number, seed, step) in int64 ember ops:
/// so that a compiled step draws new numbers at each call from its step
/// input, and a None batch draws what its known size would.
static Tensor hashedUniform(const Tensor &x, uint64_t seed, const Tensor &step) {
  constexpr int64_t kPrime = 2147483647; // 2^31 - 1: products of two residues fit in int64
  auto i64 = [](int64_t v) { return Tensor(v, DType::Int64); };
  auto mod = [&](const Tensor &t) { return ember::mod(t, i64(kPrime)); };
  Tensor base = mod(step * i64(1000003) + i64(static_cast<int64_t>(seed % kPrime)));
  Tensor s = mod(elementNumbers(x) * i64(69621) + base);
  // Rounds of squaring (non-linear, so that neighbours do not fall on a
  // lattice) and MINSTD's multiplier (to spread the small squares).
  for (int64_t salt : {12345, 67891}) {
    s = mod(s * s + i64(salt));
    s = mod(s * i64(48271));
  }
  return cast(s, x.dtype()) / Tensor(static_cast<double>(kPrime), x.dtype());
}

Tensor Dropout::call(const Tensor &x, bool training) {
  // (tf.nn.dropout: "x has to be a floating point tensor", since it scales.)
  if (!isFloatingPoint(x.dtype()))
    throwLayerError(name(), "needs a floating-point input, got " + describe(x),
                    call_site());
  if (!training || rate_ == 0)
    return x;
  Tensor step = state_.value();
  state_.assign_add(Tensor(int64_t{1}, DType::Int64));
  Tensor keep = hashedUniform(x, seed_, step) >= Tensor(rate_, x.dtype());
  return where(keep, x * Tensor(1 / (1 - rate_), x.dtype()), zeros({}, x.dtype()));
}

Sequential::Sequential(std::vector<std::shared_ptr<Layer>> layers, const std::string &name)
    : Layer(name, "sequential"), layers_(std::move(layers)) {
  for (const auto &layer : layers_)
    add_module(layer);
}

Tensor Sequential::call(const Tensor &x, bool training) {
  Tensor y = x;
  for (const auto &layer : layers_)
    y = (*layer)(y, training);
  return y;
}
