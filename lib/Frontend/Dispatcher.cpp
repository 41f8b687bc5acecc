//===- Dispatcher.cpp - the eager hot path and the kernel cache -----------===//
//
// A call builds its signature as a short array of words on the stack (op,
// attributes, each input's dtype and shape), hashes it and looks it up under a
// shared lock. A hit calls the kernel's raw entry pointer with memref
// descriptors on the stack and an output from the caching allocator. A miss
// compiles once per signature: concurrent callers of the same signature wait
// for the first one's compile instead of compiling again.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"

#include "CallSite.h"
#include "DeviceCopy.h"
#include "TensorImpl.h"
#include "Tape.h"
#include "Tracer.h"

#include "ember/Support/OnceCache.h"

#include <atomic>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ember;
using namespace ember::detail;

namespace {

constexpr size_t kInlineWords = 64;

/// A kernel signature: a small array of words, with its hash.
struct Signature {
  int64_t inlineWords[kInlineWords];
  std::vector<int64_t> spill; // used only for unusually long signatures
  size_t size = 0;
  uint64_t hash = 0;

  void push_back(int64_t word) { push(word); }
  void push(int64_t word) {
    if (size < kInlineWords) [[likely]]
      inlineWords[size++] = word;
    else
      pushSpilled(word);
  }
  [[gnu::noinline]] void pushSpilled(int64_t word) {
    if (spill.empty())
      spill.assign(inlineWords, inlineWords + kInlineWords);
    spill.push_back(word);
    ++size;
  }
  const int64_t *words() const { return spill.empty() ? inlineWords : spill.data(); }
  /// The hash places entries in the table and the thread's recent hits;
  /// equality compares the words themselves.
  void finish() { hash = support::hashWords(words(), size); }
};

struct KeyView {
  const int64_t *words;
  size_t size;
  uint64_t hash;
};

/// The cache's stored key, made from a signature's view on a miss.
struct StoredKey {
  explicit StoredKey(const KeyView &view)
      : words(view.words, view.words + view.size), hash(view.hash) {}
  std::vector<int64_t> words;
  uint64_t hash;
};

struct KeyHash {
  using is_transparent = void;
  size_t operator()(const StoredKey &k) const { return k.hash; }
  size_t operator()(const KeyView &k) const { return k.hash; }
};

struct KeyEqual {
  using is_transparent = void;
  static bool same(const int64_t *a, size_t an, const int64_t *b, size_t bn) {
    return an == bn && std::memcmp(a, b, an * sizeof(int64_t)) == 0;
  }
  bool operator()(const StoredKey &a, const StoredKey &b) const {
    return same(a.words.data(), a.words.size(), b.words.data(), b.words.size());
  }
  bool operator()(const KeyView &a, const StoredKey &b) const {
    return same(a.words, a.size, b.words.data(), b.words.size());
  }
  bool operator()(const StoredKey &a, const KeyView &b) const { return (*this)(b, a); }
};

/// A compiled kernel with its result's type.
struct KernelEntry {
  jit::CompiledKernel kernel;
  size_t resultBytes = 0;
  Shape resultShape;
};

/// Eager kernels by signature, with support::OnceCache's policy (one compile
/// per signature, others wait, a refused compile is not kept) and, in front
/// of it, each thread's recent hits.
struct KernelCache {
  support::OnceCache<StoredKey, KernelEntry, KeyHash, KeyEqual> kernels;
  std::atomic<uint64_t> recentHits{0}, diskLoads{0};
  std::atomic<int64_t> compileNanos{0};
};

KernelCache &cache() {
  static KernelCache *instance = new KernelCache(); // never destroyed: kernels outlive statics
  return *instance;
}

/// A thread's recently hit kernels, by hash: a hit found here takes no lock.
/// Published kernels are never removed from the cache, so the pointers stay
/// valid for the life of the process.
struct RecentHit {
  uint64_t hash = 0;
  const StoredKey *key = nullptr;
  const KernelEntry *entry = nullptr;
};
constexpr size_t kRecentHits = 64;
thread_local RecentHit recentHits[kRecentHits];

/// Looks up or compiles the kernel for `signature`; null never (throws).
const KernelEntry &
findOrCompile(const Signature &signature, const OpDef &op, std::span<const int64_t> attrWords,
              std::span<const Tensor *const> inputs, const trace::TensorSpec *resultType,
              std::span<const int64_t> broadcast, const SourceLoc &loc, jit::Target target) {
  KernelCache &kc = cache();
  KeyView view{signature.words(), signature.size, signature.hash};
  RecentHit &recent = recentHits[view.hash % kRecentHits];
  if (recent.hash == view.hash && recent.key &&
      KeyEqual::same(view.words, view.size, recent.key->words.data(), recent.key->words.size())) {
    kc.recentHits.fetch_add(1, std::memory_order_relaxed);
    return *recent.entry;
  }
  if (auto [key, entry] = kc.kernels.findPublished(view); entry) {
    recent = {view.hash, key, entry};
    return *entry;
  }
  return kc.kernels.getOrMake(view, [&] {
    std::vector<trace::TensorSpec> specs;
    for (const Tensor *input : inputs)
      specs.push_back(specOf(input->dtype(), input->shape()));
    jit::KernelRequest request;
    request.opName = op.name;
    request.attrSchema = op.attrs;
    request.attrWords = attrWords;
    request.inputs = specs;
    request.resultType = resultType;
    request.loc = jitLocationOf(loc);
    request.broadcastShape = broadcast;
    request.target = target;
    KernelEntry entry;
    std::string error;
    bool ok = jit::compileKernel(request, entry.kernel, error);
    kc.compileNanos.fetch_add(static_cast<int64_t>(entry.kernel.compileSeconds * 1e9),
                              std::memory_order_relaxed);
    if (!ok) // not cached: the next call reports again
      throw OpError(error.empty() ? "'" + std::string(op.name) + "' op failed to compile" : error);
    if (entry.kernel.fromDiskCache)
      kc.diskLoads.fetch_add(1, std::memory_order_relaxed);
    entry.resultShape = shapeOf(entry.kernel.result);
    entry.resultBytes =
        static_cast<size_t>(entry.resultShape.numel()) * dtypeSize(entry.kernel.result.dtype);
    return entry;
  });
}

/// Calls compiled code. Exempt from UBSan's -fsanitize=function, which checks
/// an indirect call by reading the 8 bytes before the callee (the type
/// signature that instrumented functions carry there, 0xc105cafe and a type
/// hash) before calling. JIT-compiled code carries none, and a kernel's entry
/// point often starts the page JITLink mapped for its code, with nothing mapped
/// before it: the check itself faulted (SEGV reading entry - 8, "the last 8
/// bytes of a page"), before the kernel ran. Nothing of ember's was read out of
/// bounds; the call is right by construction (ember_entry_* takes void **).
[[gnu::no_sanitize("function")]] void callEntry(emberrt_entry_fn entry, void **args) {
  entry(args);
}

} // namespace

Shape ember::detail::shapeOf(const trace::TensorSpec &spec) {
  return Shape(std::span<const int64_t>(spec.dims, spec.rank));
}

/// `inputs` with those not on `device` replaced by copies there, kept in
/// `moved` (reserved for all: its elements do not move); `placed` holds the
/// result's pointers.
static std::span<const Tensor *const> placeOn(const Device &device,
                                              std::span<const Tensor *const> inputs,
                                              std::vector<Tensor> &moved,
                                              std::span<const Tensor *> placed) {
  moved.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    placed[i] = inputs[i];
    if (inputs[i]->impl() && deviceOf(*inputs[i]->impl()) != device) {
      moved.push_back(copyToDevice(*inputs[i], device));
      placed[i] = &moved.back();
    }
  }
  return {placed.data(), inputs.size()};
}

Device ember::detail::placementOf(std::string_view what, std::span<const Tensor *const> inputs,
                                  const SourceLoc &loc) {
  if (const Device *scope = explicitDevice()) {
    require_device(*scope);
    return *scope;
  }
  int first = -1;
  Device chosen;
  bool scalarOnGpu = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]->impl())
      continue; // an undefined tensor: refused below, by the op
    const TensorImpl &impl = *inputs[i]->impl();
    Device device = deviceOf(impl);
    if (impl.shape.rank() == 0) { // scalars follow the other operands
      scalarOnGpu |= device.is_cuda();
      continue;
    }
    if (first < 0) {
      first = static_cast<int>(i);
      chosen = device;
    } else if (device != chosen) {
      throw_op_error(what,
                     "has operands on different devices: operand #" + std::to_string(first) +
                         " (shape " + inputs[first]->shape().str() + ") is on " + chosen.str() +
                         ", operand #" + std::to_string(i) + " (shape " + inputs[i]->shape().str() +
                         ") on " + device.str() + "; move one with .to(\"" + chosen.str() +
                         "\") or .to(\"" + device.str() +
                         "\"), or run the op inside an ember::DeviceScope",
                     loc);
    }
  }
  if (first < 0 && scalarOnGpu)
    return Device(DeviceType::CUDA, 0);
  return chosen;
}

std::vector<Tensor> ember::detail::runCompiled(emberrt_entry_fn entry,
                                               std::span<const Tensor *const> inputs,
                                               std::span<const trace::TensorSpec> results,
                                               std::span<const jit::FaultSite> faultSites,
                                               const Device &device) {
  std::vector<Tensor> moved; // inputs copied to `device`
  std::vector<const Tensor *> placed(inputs.size());
  inputs = placeOn(device, inputs, moved, placed);
  std::vector<Tensor> outputs;
  outputs.reserve(results.size());
  for (const trace::TensorSpec &spec : results)
    outputs.push_back(newTensorOn(shapeOf(spec), spec.dtype, device));
  std::vector<emberrt_memref_t> descriptors(inputs.size() + outputs.size());
  std::vector<void *> args(descriptors.size());
  size_t n = 0;
  auto pass = [&](const Tensor &t) {
    emberrt_memref_init(&descriptors[n], const_cast<void *>(t.data()), t.rank(), t.shape().data());
    args[n] = &descriptors[n];
    ++n;
  };
  for (const Tensor *t : inputs)
    pass(*t);
  for (const Tensor &t : outputs)
    pass(t);
  callEntry(entry, args.data());
  if (device.is_cuda())
    if (std::string failure = takeCudaError(); !failure.empty())
      throw OpError("error: compiled GPU code: CUDA error: " + failure);
  throwIfFaulted(faultSites);
  return outputs;
}

/// The op that reported `fault`: its number indexes `sites`; null for an op
/// the compiler made itself, which has no number.
static const jit::FaultSite *faultingSite(const emberrt_fault_t &fault,
                                          std::span<const jit::FaultSite> sites) {
  return fault.site >= 0 && static_cast<size_t>(fault.site) < sites.size() ? &sites[fault.site]
                                                                            : nullptr;
}

void ember::detail::throwIfFaulted(std::span<const jit::FaultSite> sites) {
  emberrt_fault_t fault = emberrt_take_fault();
  if (fault.kind == EMBERRT_FAULT_NONE)
    return;
  const jit::FaultSite *site = faultingSite(fault, sites);
  std::string message = jit::faultMessage(fault.kind, site);
  if (!site) // an op the compiler made itself, which has no number
    throw OpError("error: compiled code: " + message);
  throw OpError((site->location.empty() ? "" : site->location + ": ") + "error: '" +
                site->opName + "' op " + message);
}

trace::TensorSpec ember::detail::specOf(DType dtype, const Shape &shape) {
  trace::TensorSpec spec;
  spec.dtype = dtype;
  spec.rank = shape.rank();
  for (int d = 0; d < shape.rank(); ++d)
    spec.dims[d] = shape[d];
  return spec;
}

std::string ember::error_at(const SourceLoc &loc) {
  const SourceLoc &where = forUser(loc);
  return std::string(where.file_name()) + ":" + std::to_string(where.line()) + ":" +
         std::to_string(where.column()) + ": error: ";
}

void ember::throw_op_error(std::string_view op, const std::string &message, const SourceLoc &loc) {
  throw OpError(error_at(loc) + "'" + std::string(op) + "' op " + message);
}

namespace {
/// Runs `op` through the kernel cache (`broadcast`: see dispatchBroadcast).
Tensor run(const OpDef &op, std::span<const int64_t> attrWords,
           std::span<const Tensor *const> inputs, const trace::TensorSpec *resultType,
           std::span<const int64_t> broadcast, const SourceLoc &loc) {
  if (inputs.size() + 1 > 64)
    throw_op_error(op.name, "takes at most 63 operands, got " + std::to_string(inputs.size()), loc);
  // The common case first: no DeviceScope and every operand on the host.
  bool onHost = !explicitDevice();
  for (const Tensor *input : inputs)
    onHost &= !input->impl() || deviceOf(*input->impl()).is_cpu();
  Device device = onHost ? Device() : placementOf(op.name, inputs, loc);
  // Operands elsewhere (host scalars, host tensors inside a DeviceScope)
  // are copied to the op's device first.
  std::vector<Tensor> moved;
  const Tensor *placed[64];
  if (!onHost)
    inputs = placeOn(device, inputs, moved, placed);
  Signature signature;
  signature.push(reinterpret_cast<intptr_t>(&op));
  signature.push(static_cast<int64_t>(device.type()));
  for (int64_t word : attrWords)
    signature.push(word);
  signature.push(static_cast<int64_t>(inputs.size()));
  for (const Tensor *input : inputs) {
    const TensorImpl &impl = implOf(*input);
    appendTypeWords(signature, impl.dtype, impl.shape);
  }
  if (resultType)
    appendTypeWords(signature, resultType->dtype,
                    std::span<const int64_t>(resultType->dims, resultType->rank));
  if (!broadcast.empty()) {
    signature.push(0xb40adca57); // operands broadcast inside the kernel, to:
    for (int64_t dim : broadcast)
      signature.push(dim);
  }
  signature.finish();

  const KernelEntry &entry = findOrCompile(signature, op, attrWords, inputs, resultType, broadcast,
                                           loc, targetOf(device));

  Tensor result = device.is_cpu() ? newTensor(entry.resultShape, entry.kernel.result.dtype)
                                  : newTensorOn(entry.resultShape, entry.kernel.result.dtype, device);
  emberrt_memref_t descriptors[64];
  void *args[64];
  size_t n = 0;
  for (const Tensor *input : inputs) {
    const TensorImpl &impl = *input->impl(); // defined: its type is in the signature
    // A symbolic tensor has no buffer: Tensor::data() throws, naming it.
    void *data = impl.buffer ? impl.buffer->data : const_cast<void *>(input->data());
    emberrt_memref_init(&descriptors[n], data, impl.shape.rank(), impl.shape.data());
    args[n] = &descriptors[n];
    ++n;
  }
  emberrt_memref_init(&descriptors[n], result.impl()->buffer->data, entry.resultShape.rank(),
                      entry.resultShape.data());
  args[n] = &descriptors[n];
  callEntry(entry.kernel.entry, args);
  if (device.is_cuda())
    if (std::string failure = takeCudaError(); !failure.empty())
      throw_op_error(op.name, "failed on " + device.str() + ": CUDA error: " + failure, loc);
  // Integer division by zero, a gather index out of range: the kernel
  // computed a guarded result and reported the fault; raise it at the
  // caller's line (a cached kernel serves every caller).
  if (!entry.kernel.faultSites.empty())
    if (emberrt_fault_t fault = emberrt_take_fault(); fault.kind != EMBERRT_FAULT_NONE)
      throw_op_error(op.name,
                     jit::faultMessage(fault.kind, faultingSite(fault, entry.kernel.faultSites)),
                     loc);
  if (activeTape())
    recordOnTapes(op, attrWords, inputs, resultType, result, loc);
  return result;
}
} // namespace

Tensor ember::detail::dispatch(const OpDef &op, std::span<const int64_t> attrWords,
                               std::initializer_list<const Tensor *> inputs,
                               const trace::TensorSpec *resultType, const SourceLoc &loc) {
  return dispatch(op, attrWords, std::span<const Tensor *const>(inputs.begin(), inputs.size()),
                  resultType, loc);
}

Tensor ember::detail::dispatch(const OpDef &op, std::span<const int64_t> attrWords,
                               std::span<const Tensor *const> inputs,
                               const trace::TensorSpec *resultType, const SourceLoc &loc) {
  if (Tracer *tracer = currentTracer())
    return tracer->addOp(op, attrWords, inputs, resultType, loc);
  return run(op, attrWords, inputs, resultType, {}, loc);
}

Tensor ember::detail::dispatchBroadcast(const OpDef &op, std::span<const int64_t> attrWords,
                                        std::initializer_list<const Tensor *> inputs,
                                        const Shape &shape, const SourceLoc &loc) {
  // Traced or recorded, the broadcasts are ops of their own: the graph and
  // the gradient need them.
  if (currentTracer() || activeTape()) {
    std::vector<Tensor> broadcast;
    for (const Tensor *input : inputs)
      broadcast.push_back(input->shape() == shape ? *input : broadcast_to(*input, shape, loc));
    std::vector<const Tensor *> operands;
    for (const Tensor &t : broadcast)
      operands.push_back(&t);
    return dispatch(op, attrWords, operands, nullptr, loc);
  }
  return run(op, attrWords, std::span<const Tensor *const>(inputs.begin(), inputs.size()),
             nullptr, {shape.begin(), shape.end()}, loc);
}



KernelCacheStats ember::kernel_cache_stats() {
  KernelCache &kc = cache();
  support::OnceCacheStats kernels = kc.kernels.stats();
  KernelCacheStats stats;
  stats.hits = kc.recentHits.load() + kernels.hits;
  stats.misses = kernels.misses;
  stats.failures = kernels.failures;
  stats.disk_loads = kc.diskLoads.load();
  stats.tape_compiles = tapeCompiles();
  stats.compile_seconds = static_cast<double>(kc.compileNanos.load()) * 1e-9;
  stats.kernels = kc.kernels.size();
  return stats;
}
