//===- Dispatcher.cpp - the eager hot path and the kernel cache -----------===//
//
// A call builds its signature as a short array of words on the stack (op,
// attributes, each input's dtype and shape), hashes it and looks it up under a
// shared lock. A hit calls the kernel's raw entry pointer with memref
// descriptors on the stack and an output from the caching allocator. A miss
// compiles once per signature: concurrent callers of the same signature wait
// for the first one's compile instead of compiling again.
//
// Shapes: elementwise ops, broadcasts and reductions on the host compile one
// shape-generic kernel per (op, dtypes, ranks, sizes 0 and 1, attributes),
// with `?` for every other size; a new shape of such an op is only checked
// (jit::checkKernel), not compiled, and gets an entry of its own that calls
// the generic kernel. A shape called 100 times (ember::set_hot_shape_calls)
// is compiled for its exact sizes on a background thread and swapped in when
// ready; no call waits for it.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"
#include "OpTable.h"

#include "CallSite.h"
#include "DeviceCopy.h"
#include "TensorImpl.h"
#include "Tape.h"
#include "Tracer.h"

#include "ember/Support/OnceCache.h"
#include "emberrt/cuda.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <new>
#include <pthread.h>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unistd.h>
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

/// A shape-generic kernel, and how many shapes it has had specialized.
struct GenericKernel {
  jit::CompiledKernel kernel;
  std::atomic<int> specializations{0}; ///< queued or landed
};

/// What a shape served by a generic kernel needs to be specialized: its
/// calls, and the request for its exact shape.
struct HotShape {
  std::atomic<emberrt_entry_fn> entry{nullptr}; ///< the generic's; the specialization's once landed
  std::atomic<uint64_t> calls{0}; ///< the first call counting 1, the next `weight` each
  uint32_t weight = 1;            ///< a call's worth (see callWeight)
  GenericKernel *generic = nullptr;
  std::shared_ptr<void> specializationOwner; ///< set before `entry` is swapped
  // The exact request (KernelRequest's fields, owned).
  const OpDef *op = nullptr;
  std::vector<int64_t> attrWords;
  std::vector<trace::TensorSpec> inputs;
  std::optional<trace::TensorSpec> resultType;
  std::vector<int64_t> broadcast;
  trace::SourceLocation loc;
  jit::Target target = jit::Target::Host;
};

/// A compiled kernel with its result's type. For a shape served by a
/// shape-generic kernel, `kernel` is the generic one's and `hot` counts its
/// calls; the code to call is then hot->entry.
struct KernelEntry {
  jit::CompiledKernel kernel;
  Shape resultShape;
  std::unique_ptr<HotShape> hot;
};

/// Eager kernels by signature, with support::OnceCache's policy (one compile
/// per signature, others wait, a refused compile is not kept) and, in front
/// of it, each thread's recent hits; shape-generic kernels by their
/// generalized signature.
struct KernelCache {
  support::OnceCache<StoredKey, KernelEntry, KeyHash, KeyEqual> kernels;
  support::OnceCache<StoredKey, std::shared_ptr<GenericKernel>, KeyHash, KeyEqual> generic;
  std::atomic<uint64_t> recentHits{0}, diskLoads{0};
  std::atomic<uint64_t> genericShapes{0};   ///< entries of `kernels` served by a generic kernel
  std::atomic<uint64_t> specializations{0}; ///< landed
  std::atomic<uint64_t> backgroundCompiles{0};
  std::atomic<int64_t> compileNanos{0}, backgroundCompileNanos{0};
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

/// After this many calls a shape served by a generic kernel is specialized
/// (ember::set_hot_shape_calls, EMBER_HOT_SHAPE_CALLS; 0: never). A compile
/// costs about 20-100 ms of a background core and a generic kernel runs at
/// 0.83-1.0x a specialized one (bench/RESULTS.md), so only shapes that keep
/// coming back are worth one: a training or serving loop's, not a sweep's.
constexpr uint32_t kDefaultHotShapeCalls = 100;
std::atomic<uint32_t> &hotShapeCallsSetting() {
  static std::atomic<uint32_t> calls = [] {
    const char *value = std::getenv("EMBER_HOT_SHAPE_CALLS");
    return value ? static_cast<uint32_t>(std::strtoul(value, nullptr, 10)) : kDefaultHotShapeCalls;
  }();
  return calls;
}
uint32_t hotShapeCalls() { return hotShapeCallsSetting().load(std::memory_order_relaxed); }

/// At most this many shapes of one generic kernel are specialized.
constexpr int kMaxSpecializations = 8;

/// The background thread that specializes hot shapes: one compile at a
/// time, in order. A compile in flight must finish before exit destroys
/// statics (LLVM's code generator uses statics, some made lazily during the
/// compile itself). The main thread's MainThreadExit stops the thread first:
/// glibc's exit runs the exiting thread's thread_local destructors before any
/// exit handler or static destructor. For an exit from another thread, each
/// task also registers an exit handler when it is queued, on the queuing
/// thread, which runs before the destructors of every static made before the
/// task was queued. Stopping drops the queued tasks and waits for the running
/// one; the object itself is never destroyed.
class BackgroundCompiler {
public:
  static BackgroundCompiler &instance() {
    static BackgroundCompiler *compiler = new BackgroundCompiler();
    return *compiler;
  }
  void enqueue(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_)
      return;
    if (!thread_)
      thread_ = std::make_unique<std::thread>([this] { work(); });
    std::atexit([] { instance().stop(); });
    tasks_.push_back(std::move(task));
    ++unfinished_;
    wake_.notify_all();
  }
  void waitIdle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return unfinished_ == 0 || stopping_; });
  }
  /// Drops queued tasks and waits for the running one; idempotent.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      unfinished_ -= tasks_.size();
      tasks_.clear();
      wake_.notify_all();
      idle_.notify_all();
    }
    std::lock_guard<std::mutex> joining(joinMutex_);
    if (thread_ && thread_->joinable() && thread_->get_id() != std::this_thread::get_id())
      thread_->join();
  }

private:
  /// A fork waits for the compile in flight (LLVM's locks are free then; the
  /// worker takes no next task meanwhile) and holds both locks across it.
  /// The child, which has no worker, gets fresh locks and condition
  /// variables (the parent's worker left a wait in them that nothing in the
  /// child would end), drops the queue, and starts a worker of its own when
  /// it queues a compile.
  BackgroundCompiler() {
    pthread_atfork(
        [] {
          BackgroundCompiler &self = instance();
          self.joinMutex_.lock();
          std::unique_lock<std::mutex> lock(self.mutex_);
          self.forking_ = true;
          self.idle_.wait(lock, [&] { return !self.running_; });
          lock.release(); // held across the fork
        },
        [] {
          BackgroundCompiler &self = instance();
          self.forking_ = false;
          self.wake_.notify_all();
          self.mutex_.unlock();
          self.joinMutex_.unlock();
        },
        [] {
          BackgroundCompiler &self = instance();
          // Not destroyed: the old ones are locked or waited on by a thread
          // that is not in this process.
          new (&self.mutex_) std::mutex();
          new (&self.joinMutex_) std::mutex();
          new (&self.wake_) std::condition_variable();
          new (&self.idle_) std::condition_variable();
          (void)self.thread_.release(); // the parent's worker: not in this process
          self.unfinished_ = 0;
          self.tasks_.clear();
          self.forking_ = false;
        });
  }
  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stopping_ || (!tasks_.empty() && !forking_); });
      if (stopping_)
        return;
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      running_ = true;
      lock.unlock();
      task();
      lock.lock();
      running_ = false;
      --unfinished_;
      idle_.notify_all(); // waitIdle, and a fork waiting for the compile in flight
    }
  }
  std::mutex mutex_, joinMutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::function<void()>> tasks_;
  size_t unfinished_ = 0;
  bool stopping_ = false, running_ = false, forking_ = false;
  std::unique_ptr<std::thread> thread_; // released, never joined, in a forked child
};

/// Stops the background compiler when the main thread ends (returning from
/// main or calling exit), before anything else exit does; see
/// BackgroundCompiler. Another thread's end does not stop it.
struct MainThreadExit {
  MainThreadExit() : thread(gettid()) {}
  ~MainThreadExit() {
    // The main thread of this process (a forked child's is the thread that
    // forked: its guard ends its exit too).
    if (gettid() == getpid())
      BackgroundCompiler::instance().stop();
  }
  pid_t thread;
};
/// The calling thread's MainThreadExit. Its constructor makes a system call,
/// so its first use is a dynamic initialization, which registers its
/// destructor (a constant-initialized thread_local read where it is defined
/// was never constructed, and its destructor never ran).
MainThreadExit &mainThreadExit() {
  thread_local MainThreadExit guard;
  return guard;
}
/// Makes the main thread's MainThreadExit at start-up (static initialization
/// runs on the main thread), whichever thread queues the compiles.
const pid_t mainThreadExitMade = mainThreadExit().thread;

/// Compiles `request` (a call of `op`) into `out` for a caller that waits for
/// it, counting its time and disk loads; throws the compiler's error (a
/// failed compile is not cached: the next call reports again).
void compileOrThrow(const jit::KernelRequest &request, const OpDef &op, jit::CompiledKernel &out) {
  KernelCache &kc = cache();
  std::string error;
  bool ok = jit::compileKernel(request, out, error);
  kc.compileNanos.fetch_add(static_cast<int64_t>(out.compileSeconds * 1e9),
                            std::memory_order_relaxed);
  if (!ok)
    throw OpError(error.empty() ? "'" + std::string(op.name) + "' op failed to compile" : error);
  if (out.fromDiskCache)
    kc.diskLoads.fetch_add(1, std::memory_order_relaxed);
}

/// Compiles `hot`'s exact shape and swaps it in; a failure leaves the
/// generic kernel in place.
void specialize(HotShape &hot) {
  jit::KernelRequest request;
  request.opName = hot.op->name;
  request.attrSchema = hot.op->attrs;
  request.attrWords = hot.attrWords;
  request.inputs = hot.inputs;
  request.resultType = hot.resultType ? &*hot.resultType : nullptr;
  request.loc = hot.loc;
  request.broadcastShape = hot.broadcast;
  request.target = hot.target;
  jit::CompiledKernel kernel;
  std::string error;
  bool ok = jit::compileKernel(request, kernel, error);
  KernelCache &kc = cache();
  kc.backgroundCompiles.fetch_add(1, std::memory_order_relaxed);
  kc.backgroundCompileNanos.fetch_add(static_cast<int64_t>(kernel.compileSeconds * 1e9),
                                      std::memory_order_relaxed);
  if (!ok)
    return;
  hot.specializationOwner = std::move(kernel.owner);
  hot.entry.store(kernel.entry, std::memory_order_release);
  kc.specializations.fetch_add(1, std::memory_order_relaxed);
}

/// What a call of a shape counts toward its hotness after its first: one,
/// or one per 64K elements of its largest tensor. A generic kernel runs on
/// one thread and a specialization compiles in about as long as a
/// single-threaded pass over 16M elements takes, so the second call on 16M
/// elements makes its shape hot (the next calls run the specialization,
/// threads and all), one on 64K elements the usual count. (A first call
/// counts one, so that shapes seen once, however large, do not use up a
/// kernel's specializations.)
uint32_t callWeight(std::span<const trace::TensorSpec> inputs, const trace::TensorSpec &result) {
  int64_t largest = result.numElements();
  for (const trace::TensorSpec &input : inputs)
    largest = std::max(largest, input.numElements());
  return static_cast<uint32_t>(std::clamp<int64_t>(largest >> 16, 1, 1 << 16));
}

/// The code to call for `entry`: its own kernel, or for a shape served by a
/// generic kernel the generic's or its specialization, counting the call
/// (the call that makes the shape hot queues its specialization).
emberrt_entry_fn entryToCall(const KernelEntry &entry) {
  HotShape *hot = entry.hot.get();
  if (!hot)
    return entry.kernel.entry;
  uint64_t threshold = hotShapeCalls();
  if (uint64_t seen = hot->calls.load(std::memory_order_relaxed); threshold && seen < threshold) {
    uint64_t weight = seen == 0 ? 1 : hot->weight;
    uint64_t before = hot->calls.fetch_add(weight, std::memory_order_relaxed);
    if (before < threshold && before + weight >= threshold &&
        hot->generic->specializations.fetch_add(1, std::memory_order_relaxed) < kMaxSpecializations)
      BackgroundCompiler::instance().enqueue([hot] { specialize(*hot); });
  }
  return hot->entry.load(std::memory_order_acquire);
}

/// A kernel signature's words: the op, the device, the attributes, then each
/// input's type, the explicit result type and the broadcast shape, with each
/// dim passed through `dim` (the identity, or jit::generalizedDim).
template <typename Words, typename Dim>
void appendSignature(Words &words, const OpDef &op, const Device &device,
                     std::span<const int64_t> attrWords, std::span<const Tensor *const> inputs,
                     const trace::TensorSpec *resultType, std::span<const int64_t> broadcast,
                     Dim dim) {
  words.push_back(reinterpret_cast<intptr_t>(&op));
  words.push_back(signatureWordOf(device));
  for (int64_t word : attrWords)
    words.push_back(word);
  words.push_back(static_cast<int64_t>(inputs.size()));
  for (const Tensor *input : inputs) {
    const TensorImpl &impl = implOf(*input);
    appendTypeWords(words, impl.dtype, impl.shape, dim);
  }
  if (resultType)
    appendTypeWords(words, resultType->dtype,
                    std::span<const int64_t>(resultType->dims, resultType->rank), dim);
  if (!broadcast.empty()) {
    words.push_back(0xb40adca57); // operands broadcast inside the kernel, to:
    for (int64_t size : broadcast)
      words.push_back(dim(size));
  }
}

/// `spec` with its dims generalized (jit::generalizedDim); with
/// `batchOnly`, its dim 0 alone.
trace::TensorSpec generalized(trace::TensorSpec spec, bool batchOnly = false) {
  for (int d = 0; d < (batchOnly ? std::min(spec.rank, 1) : spec.rank); ++d)
    spec.dims[d] = jit::generalizedDim(spec.dims[d]);
  return spec;
}

/// A window op's generic signature (KernelCheck::batchOperands), as
/// appendSignature's `dim`, called in its order (each input's dims): dim 0
/// of the marked inputs generalized, every other dim as it is.
class BatchDims {
public:
  BatchDims(std::span<const Tensor *const> inputs, const std::vector<bool> &batchOperands) {
    for (size_t i = 0; i < inputs.size(); ++i)
      for (int d = 0; d < inputs[i]->rank(); ++d)
        generalize_.push_back(d == 0 && i < batchOperands.size() && batchOperands[i]);
  }
  int64_t operator()(int64_t size) {
    bool generalize = next_ < generalize_.size() && generalize_[next_];
    ++next_;
    return generalize ? jit::generalizedDim(size) : size;
  }

private:
  std::vector<bool> generalize_;
  size_t next_ = 0;
};

/// The entry for a new shape of an op that a shape-generic kernel serves
/// (compiled now if it is the first of its kind); `request` is the exact
/// one, already checked (`check`).
KernelEntry serveFromGenericKernel(const OpDef &op, const Device &device,
                                   std::span<const Tensor *const> inputs,
                                   const jit::KernelRequest &request,
                                   const jit::KernelCheck &check) {
  KernelCache &kc = cache();
  std::vector<int64_t> words;
  const std::vector<bool> &batchOperands = check.batchOperands;
  if (batchOperands.empty()) {
    appendSignature(words, op, device, request.attrWords, inputs, request.resultType,
                    request.broadcastShape, jit::generalizedDim);
  } else { // a window: its inputs' batch alone (it has no result type or broadcast)
    BatchDims dims(inputs, batchOperands);
    appendSignature(words, op, device, request.attrWords, inputs, request.resultType,
                    request.broadcastShape, std::ref(dims));
  }
  KeyView view{words.data(), words.size(), support::hashWords(words.data(), words.size())};
  const std::shared_ptr<GenericKernel> &generic = kc.generic.getOrMake(view, [&] {
    std::vector<trace::TensorSpec> specs;
    for (size_t i = 0; i < request.inputs.size(); ++i) {
      const trace::TensorSpec &spec = request.inputs[i];
      if (batchOperands.empty())
        specs.push_back(generalized(spec));
      else if (i < batchOperands.size() && batchOperands[i])
        specs.push_back(generalized(spec, /*batchOnly=*/true));
      else
        specs.push_back(spec); // a window's filter stays as it is
    }
    std::optional<trace::TensorSpec> resultType;
    if (request.resultType)
      resultType = generalized(*request.resultType);
    std::vector<int64_t> broadcast;
    for (int64_t size : request.broadcastShape)
      broadcast.push_back(jit::generalizedDim(size));
    jit::KernelRequest generalRequest = request;
    generalRequest.inputs = specs;
    generalRequest.resultType = resultType ? &*resultType : nullptr;
    generalRequest.broadcastShape = broadcast;
    auto made = std::make_shared<GenericKernel>();
    compileOrThrow(generalRequest, op, made->kernel);
    return made;
  });
  KernelEntry entry;
  entry.kernel = generic->kernel;
  entry.kernel.result = check.result;
  entry.resultShape = shapeOf(check.result);
  auto hot = std::make_unique<HotShape>();
  hot->entry.store(generic->kernel.entry, std::memory_order_relaxed);
  hot->generic = generic.get();
  hot->op = &op;
  hot->attrWords.assign(request.attrWords.begin(), request.attrWords.end());
  hot->inputs.assign(request.inputs.begin(), request.inputs.end());
  if (request.resultType)
    hot->resultType = *request.resultType;
  hot->weight = callWeight(hot->inputs, check.result);
  hot->broadcast.assign(request.broadcastShape.begin(), request.broadcastShape.end());
  hot->loc = request.loc;
  hot->target = request.target;
  entry.hot = std::move(hot);
  kc.genericShapes.fetch_add(1, std::memory_order_relaxed);
  return entry;
}

/// Whether any of `specs` or `broadcast` has a size of 0: such a call is
/// compiled for its own shape (empty tensors are rare, and upstream's
/// folders mishandle a `?` beside a 0).
bool isEmpty(std::span<const trace::TensorSpec> specs, std::span<const int64_t> broadcast) {
  for (const trace::TensorSpec &spec : specs)
    if (std::find(spec.dims, spec.dims + spec.rank, 0) != spec.dims + spec.rank)
      return true;
  return std::find(broadcast.begin(), broadcast.end(), 0) != broadcast.end();
}

/// Looks up or compiles the kernel for `signature`; null never (throws).
const KernelEntry &
findOrCompile(const Signature &signature, const OpDef &op, std::span<const int64_t> attrWords,
              std::span<const Tensor *const> inputs, const trace::TensorSpec *resultType,
              std::span<const int64_t> broadcast, const SourceLoc &loc, const Device &device) {
  jit::Target target = targetOf(device);
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
    // On the CPU and the GPU alike (GPU kernels take `?` dims as memref
    // descriptors; a hot shape's specialization loads its module on the
    // background thread).
    if (shapeGenericKernels() && !isEmpty(specs, broadcast)) {
      jit::KernelCheck check;
      std::string error;
      if (!jit::checkKernel(request, check, error))
        throw OpError(error);
      if (check.shapeGeneric)
        return serveFromGenericKernel(op, device, inputs, request, check);
    }
    KernelEntry entry;
    compileOrThrow(request, op, entry.kernel);
    entry.resultShape = shapeOf(entry.kernel.result);
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
  std::span<const int64_t> dims(spec.dims, spec.rank);
  if (std::find(dims.begin(), dims.end(), trace::kDynamic) == dims.end())
    return Shape(dims);
  std::vector<int64_t> known(dims.begin(), dims.end());
  std::replace(known.begin(), known.end(), trace::kDynamic, kNone);
  return Shape::with_unknown_dims(known);
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

/// placeOn for op `op`'s operands. Under a tape it refuses to copy a
/// floating-point operand the tape recorded (a host scalar meeting a GPU
/// operand, a host tensor inside a DeviceScope): the copy is not an op the
/// tape records, so the gradient would stop there (silently none for a host
/// variable used in a GPU op).
static std::span<const Tensor *const> placeOperandsOn(const Device &device, const OpDef &op,
                                                      std::span<const Tensor *const> inputs,
                                                      std::vector<Tensor> &moved,
                                                      std::span<const Tensor *> placed,
                                                      const SourceLoc &loc) {
  bool taped = activeTape() != nullptr;
  for (size_t i = 0; taped && i < inputs.size(); ++i)
    if (inputs[i]->impl() && deviceOf(*inputs[i]->impl()) != device &&
        isFloatingPoint(inputs[i]->dtype()) && recordedOnTapes(*inputs[i]))
      throw_op_error(op.name,
                     "has operand #" + std::to_string(i) + " (shape " + inputs[i]->shape().str() +
                         ") on " + deviceOf(*inputs[i]->impl()).str() +
                         ", where a GradientTape recorded it, and runs on " + device.str() +
                         ": a GradientTape does not differentiate through the copy there; make "
                         "it on " +
                         device.str() +
                         " (a variable there, or values moved before the tape "
                         "records them)",
                     loc);
  return placeOn(device, inputs, moved, placed);
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

/// Raises a fault's `message`: a collective's failure (a lost process) as
/// DistributedError, the rest as OpError.
[[noreturn]] static void raiseFault(int32_t kind, const std::string &message) {
  if (kind == EMBERRT_FAULT_COLLECTIVE)
    throw distributed::DistributedError(message);
  throw OpError(message);
}

/// Raises `fault` as an error naming the op of `sites` that reported it.
[[noreturn]] static void raiseFaultOf(const emberrt_fault_t &fault,
                                      std::span<const jit::FaultSite> sites) {
  const jit::FaultSite *site = faultingSite(fault, sites);
  std::string message = jit::faultMessage(fault.kind, site);
  if (!site) // an op the compiler made itself, which has no number
    raiseFault(fault.kind, "error: compiled code: " + message);
  raiseFault(fault.kind, (site->location.empty() ? "" : site->location + ": ") + "error: '" +
                             site->opName + "' op " + message);
}

void ember::detail::throwIfFaulted(std::span<const jit::FaultSite> sites) {
  emberrt_fault_t fault = emberrt_take_fault();
  if (fault.kind != EMBERRT_FAULT_NONE)
    raiseFaultOf(fault, sites);
}

void ember::detail::throwIfKernelFaulted() {
  emberrt_fault_t fault;
  uint32_t tag;
  if (emberrt_cuda_take_kernel_fault(&fault, &tag))
    raiseFaultOf(fault, jit::kernelFaultSites(tag));
}

trace::TensorSpec ember::detail::specOf(DType dtype, const Shape &shape) {
  trace::TensorSpec spec;
  spec.dtype = dtype;
  spec.rank = shape.rank();
  for (int d = 0; d < shape.rank(); ++d)
    spec.dims[d] = shape[d] == kNone ? trace::kDynamic : shape[d];
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
    inputs = placeOperandsOn(device, op, inputs, moved, placed, loc);
  Signature signature;
  appendSignature(signature, op, device, attrWords, inputs, resultType, broadcast, SameDim{});
  signature.finish();

  const KernelEntry &entry =
      findOrCompile(signature, op, attrWords, inputs, resultType, broadcast, loc, device);

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
  callEntry(entryToCall(entry), args);
  if (device.is_cuda())
    if (std::string failure = takeCudaError(); !failure.empty())
      throw_op_error(op.name, "failed on " + device.str() + ": CUDA error: " + failure, loc);
  // Integer division by zero, a gather index out of range: the kernel
  // computed a guarded result and reported the fault; raise it at the
  // caller's line (a cached kernel serves every caller).
  if (!entry.kernel.faultSites.empty())
    if (emberrt_fault_t fault = emberrt_take_fault(); fault.kind != EMBERRT_FAULT_NONE)
      raiseFault(fault.kind,
                 error_at(loc) + "'" + std::string(op.name) + "' op " +
                     jit::faultMessage(fault.kind, faultingSite(fault, entry.kernel.faultSites)));
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
                                        std::initializer_list<const Tensor *> inputList,
                                        const Shape &shape, const SourceLoc &loc) {
  std::span<const Tensor *const> inputs(inputList.begin(), inputList.size());
  // Traced or recorded, the broadcasts are ops of their own: the graph and
  // the gradient need them.
  if (currentTracer() || activeTape()) {
    std::vector<Tensor> broadcast;
    Tracer *tracer = currentTracer();
    // Eagerly, each operand is broadcast where the op runs: a host scalar
    // broadcast on its own would stay on the host, beside a GPU operand.
    std::vector<Tensor> moved;
    const Tensor *placed[64];
    if (!tracer && inputs.size() < 64)
      inputs = placeOperandsOn(placementOf(op.name, inputs, loc), op, inputs, moved, placed, loc);
    for (const Tensor *input : inputs) {
      trace::TensorSpec spec = specOf(input->dtype(), shape);
      broadcast.push_back(input->shape() == shape ? *input
                          : tracer && !shape.is_fully_defined()
                              // None dims, sized by the inputs that have them
                              ? tracer->addBroadcast(kOperandBroadcast, *input, shape, inputs, loc)
                              : dispatch(kOperandBroadcast, {}, {input}, &spec, loc));
    }
    std::vector<const Tensor *> operands;
    for (const Tensor &t : broadcast)
      operands.push_back(&t);
    return dispatch(op, attrWords, operands, nullptr, loc);
  }
  return run(op, attrWords, inputs, nullptr, {shape.begin(), shape.end()}, loc);
}

KernelCacheStats ember::kernel_cache_stats() {
  KernelCache &kc = cache();
  support::OnceCacheStats kernels = kc.kernels.stats(), generic = kc.generic.stats();
  uint64_t genericShapes = kc.genericShapes.load();
  KernelCacheStats stats;
  // A new shape served by a generic kernel missed the shape's entry but hit
  // (or compiled) the generic kernel: it counts there.
  stats.hits = kc.recentHits.load() + kernels.hits + generic.hits;
  stats.misses = kernels.misses - genericShapes + generic.misses;
  stats.failures = kernels.failures;
  stats.disk_loads = kc.diskLoads.load();
  stats.tape_compiles = tapeCompiles();
  stats.compile_seconds = static_cast<double>(kc.compileNanos.load()) * 1e-9;
  stats.generic_kernels = kc.generic.size();
  stats.generic_shapes = genericShapes;
  stats.specializations = kc.specializations.load();
  stats.background_compiles = kc.backgroundCompiles.load();
  stats.background_compile_seconds = static_cast<double>(kc.backgroundCompileNanos.load()) * 1e-9;
  stats.kernels = kc.kernels.size() - genericShapes + stats.generic_kernels + stats.specializations;
  return stats;
}

void ember::finish_background_compiles() { BackgroundCompiler::instance().waitIdle(); }

bool ember::detail::backgroundCompilesStopAtMainThreadExit() {
  return mainThreadExitMade == getpid(); // made at start-up, on the main thread
}

void ember::set_hot_shape_calls(uint32_t calls) {
  hotShapeCallsSetting().store(calls, std::memory_order_relaxed);
}

uint32_t ember::hot_shape_calls() { return hotShapeCalls(); }

std::vector<trace::TensorSpec> ember::detail::sizeResults(std::string_view what,
                                                          const jit::CompiledFunction &compiled,
                                                          std::span<const Tensor *const> inputs) {
  auto sizeOf = [&](const DimSource &source) {
    return evaluate(source, [&](int argument, int dim) { return inputs[argument]->shape()[dim]; });
  };
  auto describe = [&](const DimSource &source) {
    std::string text = formatSize(source, [](const DimSource &term) {
      if (term.argument < 0)
        return std::to_string(term.size);
      return "dim " + std::to_string(term.dim) + " of argument " + std::to_string(term.argument);
    });
    int64_t size = sizeOf(source);
    return isConstant(source)      ? text
           : size == kSizeOverflow ? text + " (beyond int64)"
                                   : text + " (" + std::to_string(size) + ")";
  };
  for (const DimCheck &check : compiled.dims.checks) {
    int64_t a = sizeOf(check.a), b = sizeOf(check.b);
    if (check.holds(a, b))
      continue;
    throw OpError((check.location.empty() ? "" : check.location + ": ") + "error: '" +
                  check.opName + "' op in " + std::string(what) + ": " + describe(check.a) +
                  check.relation() + describe(check.b) + check.tail() +
                  " (the function was traced with None dims)");
  }
  std::vector<trace::TensorSpec> results = compiled.results;
  for (size_t r = 0; r < results.size() && r < compiled.dims.resultDims.size(); ++r)
    for (size_t d = 0; d < compiled.dims.resultDims[r].size(); ++d) {
      const DimSource &source = compiled.dims.resultDims[r][d];
      results[r].dims[d] = sizeOf(source);
      if (results[r].dims[d] == kSizeOverflow)
        throw OpError("error: " + std::string(what) + ": dim " + std::to_string(d) + " of result " +
                      std::to_string(r) + ", " + describe(source) +
                      ", does not fit in int64 (the function was traced with None dims)");
    }
  return results;
}

/// Shape-generic kernels serve new shapes unless EMBER_SHAPE_GENERIC=0.
bool ember::detail::shapeGenericKernels() {
  static const bool enabled = [] {
    const char *value = std::getenv("EMBER_SHAPE_GENERIC");
    return !value || std::string_view(value) != "0";
  }();
  return enabled;
}
