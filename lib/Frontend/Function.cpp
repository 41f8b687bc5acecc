//===- Function.cpp - concrete functions: trace, compile, cache, call -----===//

#include "ember/Frontend/Function.h"

#include "Dispatcher.h"
#include "ember/Support/AtomicFile.h"
#include "ember/Support/OnceCache.h"
#include "Tape.h"
#include "TensorImpl.h"
#include "Tracer.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <exception>
#include <future>
#include <iostream>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

using namespace ember;
using namespace ember::detail;

namespace {
std::atomic<bool> runEagerly{false};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string argumentText(DType dtype, const Shape &shape) {
  std::string text(dtypeName(dtype));
  text += "[";
  for (int d = 0; d < shape.rank(); ++d)
    text += (d ? ", " : "") + (shape[d] == kNone ? std::string("?") : std::to_string(shape[d]));
  return text + "]";
}

/// The symbol of a user's function: prefixed, so that a function named like a
/// C library function ("exp", "free") cannot capture calls meant for it.
/// `name` with every character that a symbol may not hold as '_'.
std::string symbolCharacters(const std::string &name) {
  std::string symbol;
  for (char c : name)
    symbol += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return symbol;
}

std::string symbolName(const std::string &name) { return "ember_fn_" + symbolCharacters(name); }

struct Concrete {
  jit::CompiledFunction compiled;
  std::vector<int64_t> hostWords; ///< the call's host words, then the device type
  Device device;
  bool generic = false; ///< traced with None dims: serves every size of them
  /// Generalized by reduce_retracing (not an input signature): a call whose
  /// sizes break its checks (a slice's bounds) is traced for its own.
  bool relaxed = false;
  /// The tensor arguments' shapes as traced: kNone for a dim traced as
  /// None (any size; compiled.dims checks and sizes the call).
  std::vector<Shape> argumentShapes;
  std::vector<DType> argumentTypes;
  std::vector<Shape> resultShapes; ///< results, then assigned variables
  size_t userResults = 0; ///< the function's own results; then written variables
  std::vector<std::shared_ptr<VariableState>> variableInputs, variableOutputs;
  ConcreteFunctionInfo info;
};

std::atomic<int64_t> functionCount{0};
} // namespace

void ember::run_functions_eagerly(bool eagerly) { runEagerly = eagerly; }
bool ember::functions_run_eagerly() { return runEagerly; }

struct FunctionCore::Impl {
  std::string name;
  /// Tells this function apart from every other in tapes' recordings (an
  /// address could be reused by a later function).
  const int64_t id = functionCount.fetch_add(1) + 1;
  bool differentiate = false; ///< compile the reverse-mode derivative
  std::optional<std::vector<int>> argnums; ///< ... with respect to these arguments
  FunctionOptions options;
  /// A signature's concrete function: the first call with the signature
  /// traces and compiles it, calls that find it in flight wait for that one
  /// (one trace per signature, as tf.function does), then all share it; a
  /// failed trace is not kept (the next call traces again).
  support::OnceCache<std::vector<int64_t>, std::shared_ptr<Concrete>, support::WordsHash> concretes;
  /// Guards `order`.
  mutable std::shared_mutex mutex;
  std::vector<std::shared_ptr<Concrete>> order; // for listing, in trace order
  std::atomic<uint32_t> recentTraces{0}; ///< bit i: whether the i-th most recent call traced
  std::mutex noteMutex; ///< orders updates of recentTraces (and the warning)
  bool warned = false;

  /// Records whether this call traced; warns (once) when the last 5 calls all
  /// did, as tf.function does: tracing costs far more than running. A call
  /// that did not trace, with no trace among the last 5, changes nothing and
  /// takes no lock.
  void noteCall(bool traced) {
    if (!traced && recentTraces.load(std::memory_order_relaxed) == 0)
      return;
    std::lock_guard<std::mutex> lock(noteMutex);
    uint32_t recent =
        ((recentTraces.load(std::memory_order_relaxed) << 1) | (traced ? 1u : 0u)) & 0x1fu;
    recentTraces.store(recent, std::memory_order_relaxed);
    if (recent != 0x1fu || warned)
      return;
    warned = true;
    size_t count;
    std::string newest, sizes;
    {
      std::shared_lock<std::shared_mutex> listing(mutex);
      count = order.size();
      newest = order.back()->info.signature;
      if (count >= 2)
        sizes = sizeChange(*order[count - 2], *order[count - 1]);
    }
    std::cerr << "ember warning: ember::function '" << name
              << "' traced on each of its last 5 calls (" << count
              << " concrete functions; the newest: " << newest
              << "). Tracing and compiling cost far more than running. ";
    if (!sizes.empty())
      std::cerr << sizes << "\n";
    else
      std::cerr << "Likely causes: host arguments (numbers, strings) with a new value on every "
                   "call (pass a tensor instead), tensor arguments whose shape or dtype keeps "
                   "changing, or an ember::function created anew for every call (create it "
                   "once, outside the loop).\n";
  }

  /// When `before` and `after` were traced for calls that differ only in
  /// their tensors' sizes: which dims changed and how to trace once for all
  /// sizes; else "".
  std::string sizeChange(const Concrete &before, const Concrete &after) const {
    if (before.hostWords != after.hostWords || before.argumentTypes != after.argumentTypes ||
        before.argumentShapes.size() != after.argumentShapes.size())
      return "";
    std::string changed, specs;
    for (size_t t = 0; t < after.argumentShapes.size(); ++t) {
      const Shape &a = before.argumentShapes[t], &b = after.argumentShapes[t];
      if (a.rank() != b.rank())
        return "";
      std::string spec;
      for (int d = 0; d < b.rank(); ++d) {
        bool differs = a[d] != b[d];
        if (differs)
          changed += std::string(changed.empty() ? "" : ", ") + "dim " + std::to_string(d) +
                     " of tensor argument " + std::to_string(t) + " (" +
                     (a[d] == kNone ? std::string("None") : std::to_string(a[d])) + " then " +
                     std::to_string(b[d]) + ")";
        spec += std::string(d ? ", " : "") +
                (differs || b[d] == kNone ? std::string("ember::kNone") : std::to_string(b[d]));
      }
      specs += std::string(t ? ", " : "") + "{{" + spec + "}}";
    }
    if (changed.empty())
      return "";
    return "Its calls differ only in sizes: " + changed +
           ". Trace once for every size with an input signature whose changing dims are None, "
           "ember::function(f, \"" + name + "\", {.input_signature = {" + specs +
           "}}), or let it generalize itself with {.reduce_retracing = true}.";
  }

  /// The signature's words: the host words, then each tensor's dtype and shape.
  static std::vector<int64_t> signatureOf(const CallKey &key, const Device &device) {
    std::vector<int64_t> words = key.words;
    words.push_back(signatureWordOf(device));
    for (const Tensor *t : key.tensors)
      appendTypeWords(words, t->dtype(), t->shape());
    return words;
  }

  std::string signatureText(const CallKey &key, const std::vector<Tensor> &results,
                            std::span<const Shape> shapes) const {
    std::string text = name + "(";
    size_t tensor = 0;
    for (size_t i = 0; i < key.hostArgs.size(); ++i) {
      text += i ? ", " : "";
      if (key.hostArgs[i].empty()) {
        const Tensor *t = key.tensors[tensor];
        text += "arg" + std::to_string(i) + ": " + argumentText(t->dtype(), shapes[tensor]);
        ++tensor;
      } else {
        text += "arg" + std::to_string(i) + "=" + key.hostArgs[i];
      }
    }
    text += ") -> ";
    if (results.size() != 1)
      text += "(";
    for (size_t i = 0; i < results.size(); ++i)
      text += (i ? ", " : "") + argumentText(results[i].dtype(), results[i].shape());
    return text + (results.size() != 1 ? ")" : "");
  }

  /// Traces `trace` into `tracer`; returns the result ids (the function's
  /// results, then the final values of the variables it assigned) and the
  /// symbolic results.
  static std::vector<int> traceInto(Tracer &tracer, const CallKey &key, const Trace &trace,
                                    std::vector<Tensor> &results,
                                    std::span<const Shape> shapes = {}) {
    TracingScope scope(&tracer);
    std::vector<Tensor> arguments;
    for (size_t t = 0; t < key.tensors.size(); ++t)
      arguments.push_back(tracer.argument(key.tensors[t]->dtype(),
                                          shapes.empty() ? key.tensors[t]->shape() : shapes[t]));
    results = trace(arguments);
    std::vector<int> ids;
    for (const Tensor &r : results)
      ids.push_back(tracer.valueOf(r, SourceLoc::current()));
    for (const auto &[variable, value] : tracer.variableOutputs())
      ids.push_back(tracer.valueOf(value, SourceLoc::current()));
    return ids;
  }

  /// The tensor arguments a derivative is taken with respect to: those at
  /// the positions in `argnums`, or every float tensor argument.
  std::optional<std::vector<int64_t>> wrtOf(const CallKey &key) const {
    if (!differentiate)
      return std::nullopt;
    std::vector<int64_t> wrt;
    if (!argnums) {
      for (size_t t = 0; t < key.tensors.size(); ++t)
        if (isFloatingPoint(key.tensors[t]->dtype()))
          wrt.push_back(static_cast<int64_t>(t));
      return wrt;
    }
    auto refuse = [&](int position, const std::string &why) {
      throw Error("ember::value_and_grad '" + name + "': argnums " + std::to_string(position) +
                  " " + why);
    };
    for (int position : *argnums) {
      if (position < 0 || static_cast<size_t>(position) >= key.hostArgs.size())
        refuse(position, "is out of range: the function was called with " +
                             std::to_string(key.hostArgs.size()) + " arguments");
      if (!key.hostArgs[position].empty())
        refuse(position, "is the host value " + key.hostArgs[position] +
                             ", not a Tensor: only tensors have gradients");
      int64_t tensor = std::count(key.hostArgs.begin(), key.hostArgs.begin() + position, "");
      DType dtype = key.tensors[tensor]->dtype();
      if (!isFloatingPoint(dtype))
        refuse(position, "is a " + std::string(dtypeName(dtype)) +
                             " tensor: gradients need floating-point arguments (float32, float64, "
                             "float16 or bfloat16)");
      wrt.push_back(tensor);
    }
    return wrt;
  }

  /// value_and_grad called while another function traces: the function is
  /// traced into a region, which becomes a function of its own called
  /// through its derivative (ember-autodiff generates it; the optimizer then
  /// inlines it into the caller). The caller may itself be differentiated:
  /// gradients of gradients.
  std::vector<Tensor> traceGradientCall(Tracer &tracer, const CallKey &key, const Trace &trace) {
    SourceLoc here = SourceLoc::current();
    std::vector<trace::TensorSpec> specs;
    std::vector<int> operands;
    for (const Tensor *t : key.tensors) {
      specs.push_back(specOf(t->dtype(), t->shape()));
      operands.push_back(tracer.valueOf(*t, here));
    }
    std::vector<int64_t> wrt = *wrtOf(key);
    RegionGuard guard(tracer);
    int region = traceRegion(tracer, specs, trace, here);
    std::vector<int> ids;
    std::vector<trace::TensorSpec> resultSpecs;
    std::string error;
    trace::SourceLocation where{name.c_str(), 0, 0};
    if (!tracer.builder().addGradientCall(region, operands, wrt, where, ids, resultSpecs, error))
      throw OpError("ember::value_and_grad '" + name + "' failed inside a traced function:\n" + error);
    return symbolic(tracer, ids, resultSpecs);
  }

  /// The call, made while `tracer` traces: part of that trace.
  std::vector<Tensor> callWhileTracing(Tracer &tracer, const CallKey &key, const Trace &trace) {
    if (differentiate)
      return traceGradientCall(tracer, key, trace);
    std::vector<Tensor> arguments;
    for (const Tensor *t : key.tensors)
      arguments.push_back(*t);
    return trace(arguments);
  }

  /// Records an eager call on the GradientTapes recording now, as one op
  /// whose outputs are the call's results (for a value_and_grad, the value
  /// and the gradients), then the values of the variables it assigned. Its
  /// inputs are the call's tensors, then the values of the variables it
  /// read. The tape's derivative traces the function again on its values,
  /// inside the derivative it compiles (once per recording's structure).
  static void recordCall(const std::shared_ptr<Impl> &self, const CallKey &key, Trace trace,
                         const Concrete &concrete, const std::vector<Tensor> &inputs,
                         const std::vector<Tensor> &outputs) {
    size_t tensorCount = key.tensors.size();
    auto call = std::make_shared<const TapeCall>(
        [self, words = key.words, hostArgs = key.hostArgs, trace = std::move(trace), tensorCount,
         read = concrete.variableInputs,
         assigned = concrete.variableOutputs](const std::vector<Tensor> &values) {
          Tracer &tracer = *currentTracer();
          Tracer::CallVariables variables(tracer, read,
                                          std::span<const Tensor>(values).subspan(tensorCount),
                                          assigned);
          CallKey key{words, {}, hostArgs};
          for (size_t t = 0; t < tensorCount; ++t)
            key.tensors.push_back(&values[t]);
          std::vector<Tensor> results = self->callWhileTracing(tracer, key, trace);
          for (const auto &variable : assigned)
            results.push_back(tracer.readVariable(variable));
          return results;
        });
    std::vector<int64_t> structure{self->id, static_cast<int64_t>(key.words.size())};
    structure.insert(structure.end(), key.words.begin(), key.words.end());
    recordFunctionCall(inputs, call, structure, outputs, SourceLoc::current());
  }

  /// Traces and compiles the call `key` with its tensor arguments of
  /// `shapes` (their own, or with None dims).
  std::shared_ptr<Concrete> traceAndCompile(const CallKey &key, const Trace &trace,
                                            const Device &device, std::vector<Shape> shapes) {
    auto concrete = std::make_shared<Concrete>();
    for (const Tensor *t : key.tensors)
      concrete->argumentTypes.push_back(t->dtype());
    concrete->argumentShapes = std::move(shapes);
    Tracer tracer(symbolName(name));
    auto start = std::chrono::steady_clock::now();
    std::vector<Tensor> results;
    std::vector<int> ids = traceInto(tracer, key, trace, results, concrete->argumentShapes);
    concrete->info.trace_seconds = secondsSince(start);
    concrete->info.signature = signatureText(key, results, concrete->argumentShapes);
    concrete->userResults = results.size();
    for (const Tensor &r : results)
      concrete->resultShapes.push_back(r.shape());
    concrete->variableInputs = tracer.variableInputs();
    for (const auto &[variable, value] : tracer.variableOutputs()) {
      concrete->variableOutputs.push_back(variable);
      concrete->resultShapes.push_back(value.shape());
    }
    std::string error;
    start = std::chrono::steady_clock::now();
    if (!jit::compileFunction(tracer.builder(), ids, concrete->compiled, error, {}, wrtOf(key),
                              targetOf(device)))
      throw OpError("ember::function '" + name + "' failed to compile:\n" + error);
    concrete->info.compile_seconds = secondsSince(start);
    concrete->info.from_disk_cache = concrete->compiled.fromDiskCache;
    return concrete;
  }

  /// The concrete function for `signature`: the published one, or the one a
  /// concurrent first call is tracing (waited for), or one traced here.
  /// `traced` tells whether this call traced.
  const Concrete &concreteFor(const std::vector<int64_t> &signature, const CallKey &key,
                              const Trace &trace, const Device &device, bool &traced) {
    traced = false;
    return *concretes.getOrMake(signature, [&] { return concreteOf(key, trace, device, traced); });
  }

  /// The tensors' shapes of `key`.
  static std::vector<Shape> shapesOf(const CallKey &key) {
    std::vector<Shape> shapes;
    for (const Tensor *t : key.tensors)
      shapes.push_back(t->shape());
    return shapes;
  }

  /// Whether `concrete` (traced with None dims or not) serves the call `key`
  /// on `device`: same host words, dtypes and ranks, known dims equal.
  static bool serves(const Concrete &concrete, const CallKey &key, const Device &device,
                     const std::vector<int64_t> &hostWords) {
    if (concrete.hostWords != hostWords || concrete.device != device ||
        concrete.argumentShapes.size() != key.tensors.size())
      return false;
    for (size_t t = 0; t < key.tensors.size(); ++t) {
      const Shape &traced = concrete.argumentShapes[t], &shape = key.tensors[t]->shape();
      if (concrete.argumentTypes[t] != key.tensors[t]->dtype() || traced.rank() != shape.rank())
        return false;
      for (int d = 0; d < shape.rank(); ++d)
        if (traced[d] != kNone && traced[d] != shape[d])
          return false;
    }
    return true;
  }

  /// The input signature's shapes for the call `key`; throws
  /// SignatureMismatchError when the call does not fit it.
  std::vector<Shape> signatureShapes(const CallKey &key) const {
    const std::vector<TensorSpec> &specs = options.input_signature;
    auto refuse = [&](const std::string &why) {
      throw SignatureMismatchError("ember::function '" + name +
                                   "' was called with arguments that do not fit its "
                                   "input_signature: " +
                                   why);
    };
    if (specs.size() != key.tensors.size())
      refuse("it has " + std::to_string(specs.size()) + " TensorSpecs, the call " +
             std::to_string(key.tensors.size()) + " tensors");
    std::vector<Shape> shapes;
    for (size_t t = 0; t < specs.size(); ++t) {
      const Tensor &tensor = *key.tensors[t];
      Shape spec = Shape::with_unknown_dims(specs[t].shape);
      bool fits = tensor.dtype() == specs[t].dtype && tensor.rank() == spec.rank();
      for (int d = 0; fits && d < spec.rank(); ++d)
        fits = spec[d] == kNone || spec[d] == tensor.shape()[d];
      if (!fits)
        refuse("tensor " + std::to_string(t) + " is " +
               argumentText(tensor.dtype(), tensor.shape()) + ", the signature's " +
               argumentText(specs[t].dtype, spec));
      shapes.push_back(spec);
    }
    return shapes;
  }

  /// The concrete function for a call that has none for its exact
  /// signature: the input signature's (one trace for all calls), a
  /// generalized one that serves it, or a new trace (generalized, under
  /// reduce_retracing, when an earlier trace differs only in sizes).
  std::shared_ptr<Concrete> concreteOf(const CallKey &key, const Trace &trace, const Device &device,
                                       bool &traced) {
    std::vector<int64_t> hostWords = key.words;
    hostWords.push_back(signatureWordOf(device));
    std::vector<Shape> shapes;
    std::vector<Shape> relaxed;
    {
      std::shared_lock<std::shared_mutex> lock(mutex);
      for (const std::shared_ptr<Concrete> &concrete : order)
        if (concrete->generic && serves(*concrete, key, device, hostWords) &&
            (!concrete->relaxed || sizesFit(*concrete, key)))
          return concrete;
      if (options.input_signature.empty() && options.reduce_retracing)
        for (const std::shared_ptr<Concrete> &concrete : order)
          if (std::optional<std::vector<Shape>> merged = relax(*concrete, key, device, hostWords)) {
            relaxed = std::move(*merged);
            break;
          }
    }
    if (!options.input_signature.empty())
      shapes = signatureShapes(key);
    std::shared_ptr<Concrete> concrete;
    if (!shapes.empty()) {
      concrete = traceAndCompile(key, trace, device, shapes);
    } else if (!relaxed.empty()) {
      try {
        concrete = traceAndCompile(key, trace, device, relaxed);
        concrete->relaxed = true;
        if (!sizesFit(*concrete, key)) // e.g. a slice's bounds past this call's size
          concrete = traceAndCompile(key, trace, device, shapesOf(key));
      } catch (const Error &) {
        // An op that takes no None dims yet: traced for the call's shapes.
        concrete = traceAndCompile(key, trace, device, shapesOf(key));
      }
    } else {
      concrete = traceAndCompile(key, trace, device, shapesOf(key));
    }
    concrete->hostWords = std::move(hostWords);
    concrete->device = device;
    concrete->generic =
        std::any_of(concrete->argumentShapes.begin(), concrete->argumentShapes.end(),
                    [](const Shape &shape) { return !shape.is_fully_defined(); });
    traced = true;
    std::unique_lock<std::shared_mutex> lock(mutex);
    order.push_back(concrete);
    return concrete;
  }

  /// What `concrete` takes for the call `key`: its tensors, then the values
  /// of the variables the function reads.
  static std::vector<const Tensor *> inputsOf(const Concrete &concrete, const CallKey &key) {
    std::vector<const Tensor *> inputs(key.tensors.begin(), key.tensors.end());
    for (const auto &variable : concrete.variableInputs)
      inputs.push_back(&variable->value);
    return inputs;
  }

  /// Whether the call `key`'s sizes pass `concrete`'s checks.
  static bool sizesFit(const Concrete &concrete, const CallKey &key) {
    try {
      (void)sizeResults("", concrete.compiled, inputsOf(concrete, key));
      return true;
    } catch (const OpError &) {
      return false;
    }
  }

  /// The shapes that generalize `concrete`'s and the call's (dims that
  /// differ become kNone), when they differ only in sizes.
  static std::optional<std::vector<Shape>> relax(const Concrete &concrete, const CallKey &key,
                                                 const Device &device,
                                                 const std::vector<int64_t> &hostWords) {
    if (concrete.hostWords != hostWords || concrete.device != device ||
        concrete.argumentShapes.size() != key.tensors.size())
      return std::nullopt;
    std::vector<Shape> shapes;
    for (size_t t = 0; t < key.tensors.size(); ++t) {
      const Shape &traced = concrete.argumentShapes[t], &shape = key.tensors[t]->shape();
      if (concrete.argumentTypes[t] != key.tensors[t]->dtype() || traced.rank() != shape.rank())
        return std::nullopt;
      std::vector<int64_t> dims;
      for (int d = 0; d < shape.rank(); ++d)
        dims.push_back(traced[d] == shape[d] ? shape[d] : kNone);
      shapes.push_back(Shape::with_unknown_dims(dims));
    }
    return shapes;
  }
};

FunctionCore::FunctionCore(std::string name, bool differentiate,
                           std::optional<std::vector<int>> argnums, FunctionOptions options)
    : impl_(std::make_shared<Impl>()) {
  impl_->name = std::move(name);
  impl_->differentiate = differentiate;
  impl_->argnums = std::move(argnums);
  impl_->options = std::move(options);
}

FunctionCore::~FunctionCore() = default;

std::vector<Tensor> FunctionCore::call(const CallKey &key, const Trace &trace,
                                       const KeepTrace &keepTrace) {
  // Called while another function traces: become part of that trace.
  if (Tracer *tracer = currentTracer())
    return impl_->callWhileTracing(*tracer, key, trace);
  Impl &impl = *impl_;
  // Where it runs: where its tensor arguments are (or the DeviceScope's
  // device); part of the signature, since the code differs.
  Device device = placementOf("ember::function '" + impl.name + "'", key.tensors,
                              SourceLoc::current());
  std::vector<int64_t> signature = Impl::signatureOf(key, device);
  bool traced = false;
  const Concrete *concrete = &impl.concreteFor(signature, key, trace, device, traced);
  impl.noteCall(traced);

  // Run: descriptors for the arguments (the call's tensors, then the values
  // of the variables the function reads; a derivative also takes one
  // cotangent per result: ones for the function's results, the gradient of
  // their sum, and zeros for variables), then fresh outputs.
  const jit::CompiledFunction &compiled = concrete->compiled;
  std::vector<const Tensor *> inputs = Impl::inputsOf(*concrete, key);
  // Under an eager GradientTape: the values the call reads, noted before
  // the call assigns any variable.
  bool taped = keepTrace && activeTape();
  std::vector<Tensor> tapedInputs;
  if (taped) {
    for (const Tensor *input : inputs)
      tapedInputs.push_back(*input);
    for (size_t v = 0; v < concrete->variableInputs.size(); ++v)
      noteVariableRead(concrete->variableInputs[v].get(), tapedInputs[key.tensors.size() + v]);
  }
  // Traced with None dims: the sizes that must agree are checked, and the
  // results sized, from the call's tensors.
  std::vector<trace::TensorSpec> sizedResults;
  std::span<const trace::TensorSpec> results = compiled.results;
  if (concrete->generic) { // (its checks too where it has no results)
    sizedResults = sizeResults("ember::function '" + impl.name + "'", compiled, inputs);
    results = sizedResults;
  }
  std::vector<Tensor> cotangents;
  if (impl.differentiate)
    for (size_t r = 0; r < concrete->resultShapes.size(); ++r)
      cotangents.push_back(
          full(shapeOf(results[r]), r < concrete->userResults ? 1 : 0, compiled.results[r].dtype)
              .to(device));
  for (const Tensor &t : cotangents)
    inputs.push_back(&t);
  std::vector<Tensor> outputs =
      runCompiled(compiled.entry, inputs, results, compiled.faultSites, device);
  // Write the assigned variables back; return the function's own results
  // (then, for a derivative, the gradients of the call's float tensors).
  for (size_t v = 0; v < concrete->variableOutputs.size(); ++v)
    concrete->variableOutputs[v]->value = outputs[concrete->userResults + v];
  std::vector<Tensor> returned(outputs.begin(), outputs.begin() + concrete->userResults);
  if (impl.differentiate)
    returned.insert(returned.end(), outputs.begin() + concrete->resultShapes.size(), outputs.end());
  if (taped) {
    std::vector<Tensor> recorded = returned;
    recorded.insert(recorded.end(), outputs.begin() + concrete->userResults,
                    outputs.begin() + concrete->resultShapes.size());
    Impl::recordCall(impl_, key, keepTrace(), *concrete, tapedInputs, recorded);
  }
  return returned;
}

std::vector<ConcreteFunctionInfo> FunctionCore::concreteFunctions() const {
  std::shared_lock<std::shared_mutex> lock(impl_->mutex);
  std::vector<ConcreteFunctionInfo> infos;
  for (const auto &concrete : impl_->order)
    infos.push_back(concrete->info);
  return infos;
}

std::string FunctionCore::tracedIR(const CallKey &key, const Trace &trace) {
  Tracer tracer(symbolName(impl_->name));
  std::vector<Tensor> results;
  std::vector<int> ids = Impl::traceInto(tracer, key, trace, results);
  return tracer.builder().text(ids);
}

void FunctionCore::exportMLIR(const std::string &path, const CallKey &key, const Trace &trace) {
  // Named as the function itself (ember-compile's entry point and header
  // take the name from it).
  std::string symbol = symbolCharacters(impl_->name);
  if (symbol.empty() || std::isdigit(static_cast<unsigned char>(symbol[0])))
    symbol = "f_" + symbol;
  Tracer tracer(symbol);
  tracer.readVariablesAsWeights();
  std::vector<Tensor> results;
  // With an input signature, its None dims are `?` dims of the exported
  // function (ember-compile compiles them: one object for every size).
  std::vector<Shape> shapes;
  if (!impl_->options.input_signature.empty())
    shapes = impl_->signatureShapes(key);
  std::vector<int> ids = Impl::traceInto(tracer, key, trace, results, shapes);
  std::string text = tracer.builder().text(ids);
  std::string_view pieces[] = {text};
  if (std::string why = support::writeFileWhole(path, pieces); !why.empty())
    throw IOError("cannot write MLIR file '" + path + "': " + why);
}

IRStages FunctionCore::irStages(const CallKey &key, const Trace &trace) {
  Tracer tracer(symbolName(impl_->name));
  std::vector<Tensor> results;
  std::vector<int> ids = Impl::traceInto(tracer, key, trace, results);
  IRStages stages;
  jit::CompiledFunction compiled;
  std::string error;
  bool ok = jit::compileFunction(
      tracer.builder(), ids, compiled, error,
      [&](const std::string &stage, const std::string &text) {
        std::string *slot = stage == "traced"      ? &stages.traced
                            : stage == "optimized" ? &stages.optimized
                            : stage == "linalg"    ? &stages.linalg
                            : stage == "llvm"      ? &stages.llvm_dialect
                                                   : &stages.llvm_ir;
        *slot = text;
      },
      impl_->wrtOf(key));
  if (!ok)
    throw OpError("ember::function '" + impl_->name + "' failed to compile:\n" + error);
  return stages;
}
