//===- Function.h - traced functions (ember's tf.function) -------*- C++ -*-===//
//
// `ember::function(f)` wraps a C++ callable of tensors. Each call computes a
// signature (dtype and shape of every tensor argument, the value of every
// host argument); a new signature traces `f` once with symbolic tensors into
// one ember function, which is optimized and compiled as a whole (a
// "concrete function"); a known signature runs the compiled code directly.
//
// While tracing, ops record instead of running; C++ functions that `f` calls
// become part of the same graph; tensors captured from the enclosing scope
// (or made inside by host fills such as zeros()) become constants of the
// compiled function, with the values they had when it was traced.
//
// Functions may be called from several threads: the first call with a new
// signature traces and compiles it while the others with that signature wait
// for it (one trace per signature); other signatures are not held up.
//
// A traced function is exported for ahead-of-time compilation (story F1,
// then `ember-compile predict.mlir -o predict.o --header predict.h`), the
// variables it reads as named weights:
//   #include <filesystem>
//   ember::Variable w(ember::Tensor(2.f), "w");
//   auto predict = ember::function([&](const ember::Tensor &x) { return x * w; }, "predict");
//   std::string path = std::filesystem::temp_directory_path() / "predict.mlir";
//   predict.export_mlir(path, ember::Tensor({1.f, 2.f}));  // func.func @predict(...)
//   std::filesystem::remove(path);
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_FUNCTION_H
#define EMBER_FUNCTION_H

#include "ember/Frontend/Tensor.h"

#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ember {

/// Makes every ember::function run its C++ body eagerly (for debugging), or
/// traced again; applies to all functions and threads.
void run_functions_eagerly(bool eagerly);
bool functions_run_eagerly();

/// A concrete function of a traced function, as listed by concrete_functions().
struct ConcreteFunctionInfo {
  std::string signature;      ///< "power(x: int32[10, 10], n=100) -> int32[10, 10]"
  double trace_seconds = 0;   ///< running the C++ body symbolically
  double compile_seconds = 0; ///< optimizing and JIT-compiling the trace
  bool from_disk_cache = false; ///< the machine code came from the disk cache
};

/// The IR of a concrete function at every stage of its compilation.
struct IRStages {
  std::string traced;       ///< ember dialect as traced, with source locations
  std::string optimized;    ///< after ember-optimize (folded, pruned, CSE)
  std::string linalg;       ///< linalg on tensors, elementwise chains fused
  std::string llvm_dialect; ///< MLIR's LLVM dialect
  std::string llvm_ir;      ///< LLVM IR after LLVM's optimizations
};

/// The type of a tensor argument in an input signature: its dims, kNone for
/// a dim of any size, and its dtype (TensorFlow's tf.TensorSpec([None, 64])).
struct TensorSpec {
  std::vector<int64_t> shape;
  DType dtype = DType::Float32;
};

/// How a traced function traces (tf.function's arguments of the same names).
struct FunctionOptions {
  /// One TensorSpec per tensor argument, in order: the function is traced
  /// once, for any sizes of the kNone dims; a call whose tensors do not fit
  /// it (a known dim, the rank or the dtype differs) throws
  /// SignatureMismatchError, as TensorFlow raises a TypeError.
  std::vector<TensorSpec> input_signature;
  /// After a call whose tensor shapes differ from the traced ones only in
  /// sizes, trace once more with the dims that differed as kNone, so that
  /// later sizes trace nothing. A trace that cannot take None dims (an op
  /// that does not take them yet) is traced per shape, as without it.
  bool reduce_retracing = false;
};

/// A call that does not fit a function's input signature.
class SignatureMismatchError : public Error {
public:
  using Error::Error;
};

namespace detail {

/// A call's signature: host arguments as words (tensors as a marker, their
/// types are added by FunctionCore), and a readable form of the host values.
struct CallKey {
  std::vector<int64_t> words;
  std::vector<const Tensor *> tensors;
  std::vector<std::string> hostArgs; ///< "n=100" per host argument ("" for tensors)
};

constexpr int64_t kTensorArg = 0x7e4501;

inline void collectArg(CallKey &key, const Tensor &tensor) {
  key.words.push_back(kTensorArg);
  key.tensors.push_back(&tensor);
  key.hostArgs.emplace_back();
}

inline void collectArg(CallKey &key, const std::string &text) {
  key.words.push_back(0x5757);
  key.words.push_back(static_cast<int64_t>(text.size()));
  for (size_t i = 0; i < text.size(); i += 8) {
    int64_t word = 0;
    std::memcpy(&word, text.data() + i, std::min<size_t>(8, text.size() - i));
    key.words.push_back(word);
  }
  key.hostArgs.push_back("\"" + text + "\"");
}

inline void collectArg(CallKey &key, const char *text) { collectArg(key, std::string(text)); }

template <typename T>
void collectArg(CallKey &key, const T &value) {
  static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>,
                "ember::function arguments are Tensors, numbers, bools, enums or strings");
  if constexpr (std::is_floating_point_v<T>) {
    double d = static_cast<double>(value);
    int64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    key.words.push_back(0xf10a7);
    key.words.push_back(bits);
    key.hostArgs.push_back(std::to_string(d));
  } else {
    key.words.push_back(std::is_enum_v<T> ? 0xe1 : std::is_same_v<T, bool> ? 0xb0 : 0x17);
    key.words.push_back(static_cast<int64_t>(value));
    if constexpr (std::is_same_v<T, bool>)
      key.hostArgs.push_back(value ? "true" : "false");
    else
      key.hostArgs.push_back(std::to_string(static_cast<int64_t>(value)));
  }
}

/// The argument `f` sees while tracing: the symbolic tensor for a tensor
/// argument, the value itself otherwise.
inline const Tensor &pick(const Tensor &, const std::vector<Tensor> &symbolic, int slot) {
  return symbolic[static_cast<size_t>(slot)];
}
template <typename T>
const T &pick(const T &value, const std::vector<Tensor> &, int) {
  return value;
}

/// An argument kept by value in a trace that outlives its call (a
/// GradientTape differentiating a call traces the body again later): C
/// strings are copied, since the caller's buffer may be gone by then.
struct KeptText {
  std::string text;
};
template <typename T>
T keep(const T &value) {
  return value;
}
inline KeptText keep(const char *text) { return {text}; }
template <typename T>
const T &unkeep(const T &value) {
  return value;
}
inline const char *unkeep(const KeptText &kept) { return kept.text.c_str(); }

// Results: a Tensor, a std::tuple / std::pair of Tensors, or a std::vector.
inline std::vector<Tensor> flatten(Tensor t) { return {std::move(t)}; }
inline std::vector<Tensor> flatten(std::vector<Tensor> v) { return v; }
template <typename... Ts>
std::vector<Tensor> flatten(std::tuple<Ts...> t) {
  return std::apply([](auto &...items) { return std::vector<Tensor>{items...}; }, t);
}
template <typename A, typename B>
std::vector<Tensor> flatten(std::pair<A, B> p) {
  return {std::move(p.first), std::move(p.second)};
}

template <typename R>
struct Unflatten;
template <>
struct Unflatten<Tensor> {
  static Tensor from(std::vector<Tensor> v) { return std::move(v.front()); }
};
template <>
struct Unflatten<std::vector<Tensor>> {
  static std::vector<Tensor> from(std::vector<Tensor> v) { return v; }
};
template <typename... Ts>
struct Unflatten<std::tuple<Ts...>> {
  static std::tuple<Ts...> from(std::vector<Tensor> v) {
    return from(std::move(v), std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static std::tuple<Ts...> from(std::vector<Tensor> v, std::index_sequence<I...>) {
    return std::tuple<Ts...>{std::move(v[I])...};
  }
};
template <typename A, typename B>
struct Unflatten<std::pair<A, B>> {
  static std::pair<A, B> from(std::vector<Tensor> v) { return {std::move(v[0]), std::move(v[1])}; }
};

/// The signature of a call with these arguments.
template <typename... Args>
CallKey keyOf(const Args &...args) {
  CallKey key;
  (collectArg(key, args), ...);
  return key;
}

/// The tensor index of each argument position (-1 for host values), left to right.
template <typename... Args>
std::array<int, sizeof...(Args)> tensorSlots() {
  std::array<int, sizeof...(Args)> slots{};
  int next = 0, position = 0;
  ((slots[static_cast<size_t>(position++)] = std::is_same_v<Args, Tensor> ? next++ : -1), ...);
  return slots;
}

/// Whether an eager GradientTape of this thread records what runs now (a
/// call of a compiled function is then recorded as one op).
bool tapeRecordsCalls();

/// The type-erased part of a traced function: signature cache, tracing,
/// compiling and calling concrete functions.
class FunctionCore {
public:
  using Trace = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;
  /// Makes a Trace that owns copies of the call's arguments (asked for only
  /// when an eager GradientTape records the call).
  using KeepTrace = std::function<Trace()>;
  explicit FunctionCore(std::string name, bool differentiate = false,
                        std::optional<std::vector<int>> argnums = std::nullopt,
                        FunctionOptions options = {});
  ~FunctionCore();
  std::vector<Tensor> call(const CallKey &key, const Trace &trace,
                           const KeepTrace &keepTrace = {});
  std::vector<ConcreteFunctionInfo> concreteFunctions() const;
  /// The ember IR of the concrete function for `key`, as traced.
  std::string tracedIR(const CallKey &key, const Trace &trace);
  /// The IR of every compilation stage of the concrete function for `key`.
  IRStages irStages(const CallKey &key, const Trace &trace);
  /// Writes the function traced for `key` to `path` (see export_mlir).
  void exportMLIR(const std::string &path, const CallKey &key, const Trace &trace);

private:
  struct Impl;
  std::shared_ptr<Impl> impl_; // shared with the tapes that recorded calls
};

/// A KeepTrace whose Trace owns copies of `args` (C strings copied) and
/// calls `body(symbolic, args...)`: what a tape recording a call keeps.
template <typename Body, typename... Args>
FunctionCore::KeepTrace keepingTrace(Body body, const Args &...args) {
  return [body, &args...]() -> FunctionCore::Trace {
    return [body, ... kept = keep(args)](const std::vector<Tensor> &symbolic) {
      return body(symbolic, unkeep(kept)...);
    };
  };
}

} // namespace detail

/// A traced function; copies share their concrete functions.
template <typename F>
class Function {
public:
  Function(F f, std::string name, FunctionOptions options = {})
      : f_(std::make_shared<const F>(std::move(f))),
        core_(std::make_shared<detail::FunctionCore>(std::move(name), false, std::nullopt,
                                                     std::move(options))) {}

  template <typename... Args>
  auto operator()(const Args &...args) const {
    using R = std::decay_t<std::invoke_result_t<const F &, const Args &...>>;
    if constexpr (std::is_void_v<R>) { // e.g. a training step that assigns variables
      if (functions_run_eagerly())
        (*f_)(args...);
      else
        core_->call(keyOf(args...), traceOf<R>(args...), keepTraceOf<R>(args...));
    } else {
      if (functions_run_eagerly())
        return R((*f_)(args...));
      return detail::Unflatten<R>::from(
          core_->call(keyOf(args...), traceOf<R>(args...), keepTraceOf<R>(args...)));
    }
  }

  /// Every signature traced so far, with argument and result types.
  std::vector<ConcreteFunctionInfo> concrete_functions() const {
    return core_->concreteFunctions();
  }

  /// The ember IR the call `(*this)(args...)` runs, as traced (before
  /// optimization); traces if this signature is new.
  template <typename... Args>
  std::string traced_ir(const Args &...args) const {
    using R = std::decay_t<std::invoke_result_t<const F &, const Args &...>>;
    return core_->tracedIR(keyOf(args...), traceOf<R>(args...));
  }

  /// Story F1: writes the function traced for `(*this)(args...)` to `path`
  /// as ember MLIR, for `ember-compile` (ahead of time) and `ember-opt`: one
  /// public function named after this one, its tensor arguments as arguments;
  /// the variables it reads become constants holding their values now, each
  /// marked `ember.weight = "<variable name>"`: small ones as readable
  /// `dense<...>` text, those of 64 elements or more as MLIR's
  /// `dense_resource<name>` blobs (their bytes, little-endian, in the file's
  /// `dialect_resources` section; ember-opt and ember-compile read both;
  /// chosen over a safetensors file beside it so that one file is the whole
  /// model). It is inference code: a function that assigns a variable (a
  /// training step) is refused, and custom gradients (stop_gradient,
  /// custom_gradient) are left out. Ops made by ember's own layers carry the
  /// line that called the layer. With an input signature, its None dims
  /// are the exported function's `?` dims (one compiled object serves every
  /// size; see ember-compile's header). The file is written whole or not at
  /// all (IOError when it cannot be). Example: the file comment.
  template <typename... Args>
  void export_mlir(const std::string &path, const Args &...args) const {
    using R = std::decay_t<std::invoke_result_t<const F &, const Args &...>>;
    core_->exportMLIR(path, keyOf(args...), traceOf<R>(args...));
  }

  /// The IR of every stage of compiling the call `(*this)(args...)` (ember
  /// as traced, optimized, linalg, LLVM dialect, LLVM IR). Each MLIR stage is
  /// accepted by ember-opt. (Traces and compiles afresh; the cache is untouched.)
  template <typename... Args>
  IRStages ir_stages(const Args &...args) const {
    using R = std::decay_t<std::invoke_result_t<const F &, const Args &...>>;
    return core_->irStages(keyOf(args...), traceOf<R>(args...));
  }

private:
  template <typename... Args>
  static detail::CallKey keyOf(const Args &...args) {
    return detail::keyOf(args...);
  }

  template <typename R, typename... Args>
  detail::FunctionCore::Trace traceOf(const Args &...args) const {
    auto slots = detail::tensorSlots<Args...>();
    return [this, slots, &args...](const std::vector<Tensor> &symbolic) {
      return invoke<R>(*f_, symbolic, slots, std::index_sequence_for<Args...>{}, args...);
    };
  }

  /// traceOf, owning `f` and copies of the arguments; only while a tape
  /// records (none on the usual call: no type-erased closure to build).
  template <typename R, typename... Args>
  detail::FunctionCore::KeepTrace keepTraceOf(const Args &...args) const {
    if (!detail::tapeRecordsCalls())
      return {};
    auto slots = detail::tensorSlots<Args...>();
    return detail::keepingTrace(
        [f = f_, slots](const std::vector<Tensor> &symbolic, const auto &...kept) {
          return invoke<R>(*f, symbolic, slots, std::index_sequence_for<Args...>{}, kept...);
        },
        args...);
  }

  template <typename R, size_t... I, typename... Args>
  static std::vector<Tensor> invoke(const F &f, const std::vector<Tensor> &symbolic,
                                    const std::array<int, sizeof...(I)> &slots,
                                    std::index_sequence<I...>, const Args &...args) {
    if constexpr (std::is_void_v<R>) {
      f(detail::pick(args, symbolic, slots[I])...);
      return {};
    } else {
      return detail::flatten(R(f(detail::pick(args, symbolic, slots[I])...)));
    }
  }

  std::shared_ptr<const F> f_; // shared with the tapes that recorded calls
  std::shared_ptr<detail::FunctionCore> core_;
};

/// The value of a scalar function and its gradients (value_and_grad).
/// `auto [value, gradients] = vg(a, b);` binds them in that order.
struct ValueAndGrad {
  Tensor value;
  /// One per argument in `argnums`, in that order; without argnums, one per
  /// floating-point tensor argument.
  std::vector<Tensor> gradients;
};

/// value_and_grad of a function of one Tensor argument: as JAX's, the value
/// and that argument's gradient, a Tensor (`auto [value, gradient] =
/// vg(x);`); `gradients` holds it too, as for any function.
struct ValueAndGradient : ValueAndGrad {
  Tensor gradient;
};

namespace detail {
/// How many of a call's arguments are Tensors.
template <typename... Args>
constexpr size_t tensorArgCount() {
  return (size_t(0) + ... + (std::is_same_v<std::decay_t<Args>, Tensor> ? 1 : 0));
}

/// grad(f)'s result for an `f` of one Tensor argument: that argument's gradient.
inline Tensor onlyGradient(std::vector<Tensor> gradients, const std::string &name) {
  if (gradients.size() != 1)
    throw Error("ember::grad '" + name +
                "': the function's one Tensor argument is not floating-point: gradients need "
                "floating-point arguments (float32, float64, float16 or bfloat16)");
  return std::move(gradients.front());
}
} // namespace detail

/// The positions of the arguments to differentiate with respect to, as JAX's
/// `argnums`: `value_and_grad(loss, Argnums{0, 1})` gives the gradients of
/// the first two arguments only, and the compiled code computes nothing that
/// only other arguments' gradients would need (e.g. the input batch's).
struct Argnums {
  std::vector<int> positions;
  Argnums(std::initializer_list<int> list) : positions(list) {}
  explicit Argnums(std::vector<int> list) : positions(std::move(list)) {}
};

/// `value_and_grad(f)(args...)`: f's value and its gradient with respect to
/// each floating-point tensor argument (for a non-scalar result, of its sum),
/// computed by one compiled function: the forward pass and its reverse-mode
/// derivative (ember-autodiff), optimized and fused together. For a
/// function of one Tensor argument, as JAX's: the value and a Tensor
/// (ValueAndGradient).
template <typename F>
class GradFunction {
public:
  GradFunction(F f, std::string name, std::optional<std::vector<int>> argnums = std::nullopt,
               FunctionOptions options = {})
      : f_(std::make_shared<const F>(std::move(f))), name_(name),
        core_(std::make_shared<detail::FunctionCore>(std::move(name), /*differentiate=*/true,
                                                     std::move(argnums), std::move(options))) {}

  /// A ValueAndGradient for a function of one Tensor argument (which must
  /// be floating-point), else a ValueAndGrad.
  template <typename... Args>
  auto operator()(const Args &...args) const {
    std::vector<Tensor> outputs =
        core_->call(detail::keyOf(args...), traceOf(args...), keepTraceOf(args...));
    std::conditional_t<detail::tensorArgCount<Args...>() == 1, ValueAndGradient, ValueAndGrad>
        result;
    result.value = outputs.front();
    result.gradients.assign(outputs.begin() + 1, outputs.end());
    if constexpr (detail::tensorArgCount<Args...>() == 1)
      result.gradient = detail::onlyGradient(result.gradients, name_);
    return result;
  }

  /// The IR of the forward and backward function at every stage (see Function).
  template <typename... Args>
  IRStages ir_stages(const Args &...args) const {
    return core_->irStages(detail::keyOf(args...), traceOf(args...));
  }

  std::vector<ConcreteFunctionInfo> concrete_functions() const {
    return core_->concreteFunctions();
  }

private:
  template <typename... Args>
  detail::FunctionCore::Trace traceOf(const Args &...args) const {
    auto slots = detail::tensorSlots<Args...>();
    return [this, slots, &args...](const std::vector<Tensor> &symbolic) {
      return invoke(*f_, symbolic, slots, std::index_sequence_for<Args...>{}, args...);
    };
  }

  /// traceOf, owning `f` and copies of the arguments (only while a tape
  /// records).
  template <typename... Args>
  detail::FunctionCore::KeepTrace keepTraceOf(const Args &...args) const {
    if (!detail::tapeRecordsCalls())
      return {};
    auto slots = detail::tensorSlots<Args...>();
    return detail::keepingTrace(
        [f = f_, slots](const std::vector<Tensor> &symbolic, const auto &...kept) {
          return invoke(*f, symbolic, slots, std::index_sequence_for<Args...>{}, kept...);
        },
        args...);
  }

  template <size_t... I, typename... Args>
  static std::vector<Tensor> invoke(const F &f, const std::vector<Tensor> &symbolic,
                                    const std::array<int, sizeof...(I)> &slots,
                                    std::index_sequence<I...>, const Args &...args) {
    return {Tensor(f(detail::pick(args, symbolic, slots[I])...))};
  }

  std::shared_ptr<const F> f_; // shared with the tapes that recorded calls
  std::string name_;
  std::shared_ptr<detail::FunctionCore> core_;
};

template <typename F>
GradFunction<std::decay_t<F>> value_and_grad(F &&f, std::string name = "loss") {
  return GradFunction<std::decay_t<F>>(std::forward<F>(f), std::move(name));
}

/// value_and_grad traced as `options` say: an input signature with kNone
/// dims (one trace, and one compiled derivative, for every batch size; a
/// partial last batch compiles nothing), or reduce_retracing. The
/// derivative takes None dims through the ops a function traced with them
/// takes (see function()).
template <typename F>
GradFunction<std::decay_t<F>> value_and_grad(F &&f, std::string name, FunctionOptions options) {
  return GradFunction<std::decay_t<F>>(std::forward<F>(f), std::move(name), std::nullopt,
                                       std::move(options));
}

/// value_and_grad with respect to the arguments at `argnums` only.
template <typename F>
GradFunction<std::decay_t<F>> value_and_grad(F &&f, Argnums argnums, std::string name = "loss") {
  return GradFunction<std::decay_t<F>>(std::forward<F>(f), std::move(name),
                                       std::move(argnums.positions));
}

/// value_and_grad with respect to the arguments at `argnums`, traced as
/// `options` say (an input signature with kNone dims, reduce_retracing).
template <typename F>
GradFunction<std::decay_t<F>> value_and_grad(F &&f, Argnums argnums, std::string name,
                                             FunctionOptions options) {
  return GradFunction<std::decay_t<F>>(std::forward<F>(f), std::move(name),
                                       std::move(argnums.positions), std::move(options));
}

/// `grad(f)(args...)`: the gradients of value_and_grad(f)(args...) alone. For
/// an `f` of one Tensor argument (other arguments host values) it is that
/// argument's gradient, a Tensor, so grads compose as in JAX:
/// `grad(grad(f))(x)` is f'' at x. Otherwise a std::vector, one per
/// floating-point tensor argument.
template <typename F>
auto grad(F &&f, std::string name = "loss") {
  return [vg = value_and_grad(std::forward<F>(f), name), name](const auto &...args) {
    if constexpr (detail::tensorArgCount<decltype(args)...>() == 1)
      return detail::onlyGradient(vg(args...).gradients, name);
    else
      return vg(args...).gradients;
  };
}

/// grad with respect to the arguments at `argnums` only: one gradient each.
template <typename F>
auto grad(F &&f, Argnums argnums, std::string name = "loss") {
  return [vg = value_and_grad(std::forward<F>(f), std::move(argnums), std::move(name))](
             const auto &...args) { return vg(args...).gradients; };
}

/// grad with respect to the argument at position `argnum` alone (JAX's
/// integer argnums): its gradient, a Tensor.
template <typename F>
auto grad(F &&f, int argnum, std::string name = "loss") {
  return [vg = value_and_grad(std::forward<F>(f), Argnums{argnum}, std::move(name))](
             const auto &...args) { return std::move(vg(args...).gradients.front()); };
}

/// Wraps `f` as a traced function named `name` (for IR dumps and messages).
template <typename F>
Function<std::decay_t<F>> function(F &&f, std::string name = "function") {
  return Function<std::decay_t<F>>(std::forward<F>(f), std::move(name));
}

/// The same, traced as `options` say: an input signature with kNone dims
/// (one trace serves every batch size), or reduce_retracing. Inside the
/// trace, a None dim reads as kNone in `x.shape()` (TensorFlow's None);
/// ops whose shapes follow from their operands' work on it: elementwise
/// ops and broadcasting, reductions, matmul, transpose, a reshape that keeps
/// the None dim whole (Flatten and Dense layers); sizes
/// that must agree are checked when the function is called (an error
/// naming the op, never a wrong read). Example:
//   auto f = ember::function([](const ember::Tensor &x) { return ember::reduce_sum(x, {1}); },
//                            "rows", {.input_signature = {{{ember::kNone, 3}}}});
//   ember::Tensor two = f(ember::ones({2, 3})), five = f(ember::ones({5, 3}));  // one trace
//   if (f.concrete_functions().size() != 1 || two.shape() != ember::Shape{2} ||
//       five.shape() != ember::Shape{5})
//     throw std::runtime_error("not one trace");
template <typename F>
Function<std::decay_t<F>> function(F &&f, std::string name, FunctionOptions options) {
  return Function<std::decay_t<F>>(std::forward<F>(f), std::move(name), std::move(options));
}

} // namespace ember

// Structured bindings: (value, gradients), and (value, gradient) for a
// function of one Tensor argument.
template <>
struct std::tuple_size<ember::ValueAndGrad> : std::integral_constant<size_t, 2> {};
template <>
struct std::tuple_size<ember::ValueAndGradient> : std::integral_constant<size_t, 2> {};
template <>
struct std::tuple_element<0, ember::ValueAndGrad> {
  using type = ember::Tensor;
};
template <>
struct std::tuple_element<1, ember::ValueAndGrad> {
  using type = std::vector<ember::Tensor>;
};
template <size_t I>
struct std::tuple_element<I, ember::ValueAndGradient> {
  using type = ember::Tensor;
};

namespace ember {
template <size_t I>
auto &get(ValueAndGrad &r) {
  if constexpr (I == 0)
    return r.value;
  else
    return r.gradients;
}
template <size_t I>
const auto &get(const ValueAndGrad &r) {
  if constexpr (I == 0)
    return r.value;
  else
    return r.gradients;
}
template <size_t I>
auto &&get(ValueAndGrad &&r) {
  if constexpr (I == 0)
    return std::move(r.value);
  else
    return std::move(r.gradients);
}
template <size_t I>
Tensor &get(ValueAndGradient &r) {
  return I == 0 ? r.value : r.gradient;
}
template <size_t I>
const Tensor &get(const ValueAndGradient &r) {
  return I == 0 ? r.value : r.gradient;
}
template <size_t I>
Tensor &&get(ValueAndGradient &&r) {
  return std::move(I == 0 ? r.value : r.gradient);
}
} // namespace ember

#endif // EMBER_FUNCTION_H
