//===- ProcessGroup.cpp - the process group and its collectives ------------===//
//
// One group per process, as torch.distributed's default group: a rendezvous
// store (rank 0's TCP store, or Gloo's file store), Gloo's TCP transport with
// a pair between every two ranks, and the collectives on host buffers. Gloo
// reports a dead peer as an I/O error naming an address; ember names the
// rank, from the store (whose connection from the dead rank closed) or, on
// one machine, from the process ids the ranks exchanged when they arrived.
//
//===----------------------------------------------------------------------===//

#include "ember/Distributed/Distributed.h"

#include "TcpStore.h"

#include "ember/Frontend/Collectives.h"
#include "ember/Frontend/Ops.h"

#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <span>
#include <thread>
#include <type_traits>

#include <signal.h>
#include <unistd.h>

using namespace ember;
using namespace ember::distributed;
using Clock = std::chrono::steady_clock;
using distributed::detail::secondsText;
using std::chrono::milliseconds;

namespace {

/// The group this process belongs to.
struct Group {
  int rank = 0, size = 1, localRank = 0;
  milliseconds timeout{0};
  std::unique_ptr<gloo::rendezvous::Store> store;
  distributed::detail::TcpStore *tcpStore = nullptr; // the store, when it is rank 0's
  std::shared_ptr<gloo::rendezvous::Context> context;
  /// Each rank's "host pid", as it arrived.
  std::vector<std::string> processes;
  uint32_t nextTag = 0;
  /// Why the group cannot be used any more ("" while it can).
  std::string broken;
};

std::mutex groupMutex; // guards `group` and every collective on it
std::unique_ptr<Group> group;

std::string hostName() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

[[noreturn]] void fail(const SourceLoc &loc, const std::string &what, const std::string &message) {
  throw DistributedError(error_at(loc) + "ember::distributed::" + what + ": " + message);
}

int integerFrom(const std::string &text, const char *name, const SourceLoc &loc) {
  char *end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 0 || value > 1 << 20)
    fail(loc, "init_process_group",
         std::string(name) + " must be a non-negative integer, not '" + text + "'");
  return static_cast<int>(value);
}

/// The environment variable `name`, which the rendezvous needs.
std::string required(const char *name, const SourceLoc &loc) {
  std::string value = environment(name);
  if (value.empty())
    fail(loc, "init_process_group",
         std::string("the environment variable ") + name +
             " is not set (start the program with ember-run -n N, or set RANK, WORLD_SIZE, "
             "MASTER_ADDR and MASTER_PORT)");
  return value;
}

milliseconds timeoutOf(const ProcessGroupOptions &options, const SourceLoc &loc) {
  if (options.timeout.count() > 0)
    return options.timeout;
  std::string text = environment("EMBER_DISTRIBUTED_TIMEOUT");
  if (text.empty())
    return std::chrono::minutes(30);
  char *end = nullptr;
  double seconds = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !(seconds > 0) || seconds > 1e7)
    fail(loc, "init_process_group",
         "EMBER_DISTRIBUTED_TIMEOUT must be a positive number of seconds, not '" + text + "'");
  return milliseconds(static_cast<int64_t>(seconds * 1000));
}

std::string ranksText(const std::vector<int> &ranks, int size) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + " of " + std::to_string(size);
}

/// Every rank says it has arrived (with its host and process id), then
/// waits for the others; a timeout names the ranks still missing.
void arrive(Group &g, const std::string &where, const SourceLoc &loc) {
  std::string me = hostName() + " " + std::to_string(::getpid());
  g.store->set("ember/arrived/" + std::to_string(g.rank), std::vector<char>(me.begin(), me.end()));
  auto deadline = Clock::now() + g.timeout;
  g.processes.assign(g.size, "");
  std::vector<int> missing;
  for (int rank = 0; rank < g.size; ++rank) {
    std::string key = "ember/arrived/" + std::to_string(rank);
    try {
      if (g.tcpStore) {
        // Asked, not waited for, so that a timeout leaves the connection in
        // use and every missing rank is named.
        while (!g.tcpStore->check(key) && Clock::now() < deadline)
          std::this_thread::sleep_for(milliseconds(10));
        if (!g.tcpStore->check(key))
          throw DistributedError("missing");
      } else {
        auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
        g.store->wait({key}, std::max(milliseconds(1), left));
      }
      std::vector<char> value = g.store->get(key);
      g.processes[rank].assign(value.begin(), value.end());
    } catch (const std::exception &) {
      missing.push_back(rank);
      deadline = Clock::now(); // the rest are checked, not waited for
    }
  }
  if (!missing.empty())
    fail(loc, "init_process_group",
         "the rendezvous at " + where + " timed out after " + secondsText(g.timeout) + ": " +
             ranksText(missing, g.size) + (missing.size() == 1 ? " has" : " have") +
             " not arrived (rank " + std::to_string(g.rank) +
             " waited; set the timeout with ProcessGroupOptions::timeout or "
             "EMBER_DISTRIBUTED_TIMEOUT)");
}

/// Whether process `pid` of this machine has exited (a zombie not yet
/// reaped by its parent has).
bool processGone(pid_t pid) {
  if (::kill(pid, 0) < 0 && errno == ESRCH)
    return true;
  FILE *stat = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!stat)
    return false;
  char line[512] = {};
  size_t got = std::fread(line, 1, sizeof line - 1, stat);
  std::fclose(stat);
  // "pid (name) S ...": the state follows the last ')'.
  const char *paren = std::strrchr(line, ')');
  return got && paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/// The ranks whose processes are gone (`lost`), and those that left the
/// group on purpose (`left`: destroy_process_group; the TCP store knows
/// them): from the TCP store, else (the file store) the ranks on this
/// machine whose processes have exited.
void departedRanksNow(Group &g, std::vector<int> &lost, std::vector<int> &left) {
  if (g.tcpStore)
    return g.tcpStore->departedRanks(lost, left); // throws if rank 0, its server, has gone
  lost.clear();
  left.clear();
  std::string host = hostName();
  for (int rank = 0; rank < g.size; ++rank) {
    const std::string &process = g.processes[rank];
    size_t space = process.rfind(' ');
    if (rank != g.rank && space != std::string::npos && process.substr(0, space) == host &&
        processGone(static_cast<pid_t>(std::atol(process.c_str() + space + 1))))
      lost.push_back(rank);
  }
}

/// Why a collective failed: the ranks lost or gone, asked for a moment
/// (the store may see a connection close a little after Gloo does), else
/// what Gloo's error says.
std::string whyCollectiveFailed(Group &g, const std::string &gloo) {
  std::vector<int> lost, left;
  auto deadline = Clock::now() + std::chrono::seconds(2);
  do {
    try {
      departedRanksNow(g, lost, left);
    } catch (const DistributedError &) {
      lost = {0}; // rank 0 serves the store
    }
    if (!lost.empty())
      return ranksText(lost, g.size) + (lost.size() == 1 ? " was" : " were") +
             " lost (its process exited or its connection closed)";
    std::this_thread::sleep_for(milliseconds(20));
  } while (Clock::now() < deadline);
  if (!left.empty())
    return ranksText(left, g.size) + (left.size() == 1 ? " has" : " have") +
           " left the group (destroy_process_group) while this rank still ran collectives: "
           "the ranks ran different numbers of collectives";
  if (gloo.find("Timed out") != std::string::npos || gloo.find("timed out") != std::string::npos)
    return "a rank did not answer within the timeout (" + secondsText(g.timeout) +
           "; none is known to have exited: one may be hung, busy elsewhere or unreachable)";
  return "a connection to another rank failed (none of the ranks is known to have exited: it "
         "may be on another machine)";
}

const char *const kNotInitialized =
    "the process group is not initialized: call ember::distributed::init_process_group() first";

/// The group, or an error if there is none.
Group &initialized(const char *what, const SourceLoc &loc) {
  if (!group)
    fail(loc, what, kNotInitialized);
  return *group;
}

/// Why the group cannot run a collective ("" if it can).
std::string unusableBecause() {
  if (!group)
    return kNotInitialized;
  if (!group->broken.empty())
    return "the process group is broken since an earlier failure (" + group->broken +
           "); destroy it and start again";
  return "";
}

/// The group, or an error if there is none or it is broken.
Group &usable(const char *what, const SourceLoc &loc) {
  if (std::string why = unusableBecause(); !why.empty())
    fail(loc, what, why);
  return *group;
}

/// Runs a Gloo collective; returns "" or, if it failed, why, naming the
/// lost ranks. The group is broken after a failure.
template <typename Body> std::string tryCollective(Group &g, Body &&body) {
  std::string gloo;
  try {
    body(g.nextTag++);
    return "";
  } catch (const std::exception &error) { // gloo::Exception, and its EnforceNotMet
    gloo = error.what();
  } catch (...) {
    gloo = "an unknown exception";
  }
  // Gloo's messages start with its source position: "[file.cc:589] Read error ...".
  if (!gloo.empty() && gloo[0] == '[' && gloo.find("] ") != std::string::npos)
    gloo = gloo.substr(gloo.find("] ") + 2);
  std::string message = whyCollectiveFailed(g, gloo);
  g.broken = message;
  return message + " [rank " + std::to_string(g.rank) + "; Gloo: " + gloo + "]";
}

/// The body of a collective (for tryCollective or collective) gathering
/// every rank's `counts[r]` elements of T into `out` in rank order, this
/// rank's from `in` (`count` of them).
template <typename T>
auto allGather(Group &g, const T *in, size_t count, T *out, std::vector<size_t> counts) {
  return [&g, in, count, out, counts = std::move(counts)](uint32_t tag) {
    gloo::AllgathervOptions options(g.context);
    options.setInput(const_cast<T *>(in), count);
    options.setOutput(out, counts);
    options.setTag(tag);
    gloo::allgatherv(options);
  };
}

/// usable(), for a collective from rank `root`.
Group &usableFrom(int root, const char *what, const SourceLoc &loc) {
  Group &g = usable(what, loc);
  if (root < 0 || root >= g.size)
    fail(loc, what,
         "root " + std::to_string(root) + " is not a rank of a world of size " +
             std::to_string(g.size));
  return g;
}

/// tryCollective, raising DistributedError at `loc` for `what`.
template <typename Body>
void collective(Group &g, const char *what, const SourceLoc &loc, Body &&body) {
  if (std::string why = tryCollective(g, std::forward<Body>(body)); !why.empty())
    fail(loc, what, why);
}

/// Root's values of `buffer` (a host tensor) written into every rank's.
void broadcastInPlace(Group &g, Tensor &buffer, int root, const char *what, const SourceLoc &loc) {
  collective(g, what, loc, [&](uint32_t tag) {
    gloo::BroadcastOptions options(g.context);
    options.setOutput(static_cast<char *>(buffer.data()), buffer.nbytes());
    options.setRoot(root);
    options.setTag(tag);
    gloo::broadcast(options);
  });
}

/// Refuses a tensor whose buffer a collective cannot use now: undefined,
/// symbolic (`whySymbolic` says what to do instead) or off the CPU.
void requireEagerCpuTensor(const Tensor &tensor, const char *what, const char *whySymbolic,
                           const SourceLoc &loc) {
  if (!tensor.defined())
    fail(loc, what, "the tensor is undefined");
  if (tensor.is_symbolic())
    fail(loc, what, whySymbolic);
  if (!tensor.device().is_cpu())
    fail(loc, what,
         "takes CPU tensors (NCCL, for tensors on " + tensor.device().str() +
             ", is not supported yet): " + describe(tensor));
}

/// `tensor` as a host tensor of its own that a collective may write.
Tensor hostCopy(const Tensor &tensor, const char *what, const SourceLoc &loc) {
  requireEagerCpuTensor(tensor, what,
                        "cannot take a symbolic tensor (inside ember::function) yet: call it "
                        "eagerly, outside the traced function",
                        loc);
  Tensor copy = Tensor::empty(tensor.shape(), tensor.dtype(), Device());
  if (tensor.nbytes())
    std::memcpy(copy.data(), tensor.data(), tensor.nbytes());
  return copy;
}

using ReduceFunction = void (*)(void *, const void *, const void *, size_t);

/// All-reduces whose ranks' values together fit this are gathered and
/// combined locally; below kSmallAllReduceBytes they take Gloo's bcube
/// algorithm, from it the ring.
constexpr size_t kGatheredAllReduceBytes = 256 * 1024;
constexpr size_t kSmallAllReduceBytes = 256 * 1024;

template <typename T> ReduceFunction reduceFunctionOf(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Mean:
    return &gloo::sum<T>;
  case ReduceOp::Max:
    return &gloo::max<T>;
  case ReduceOp::Min:
    return &gloo::min<T>;
  }
  return nullptr;
}

/// Whether every collective first checks that the ranks agree on it
/// (EMBER_DISTRIBUTED_DEBUG=DETAIL, as PyTorch's TORCH_DISTRIBUTED_DEBUG):
/// one more small all-gather each, so off by default.
bool checkingAgreement() {
  static const bool checking = environment("EMBER_DISTRIBUTED_DEBUG") == "DETAIL";
  return checking;
}

/// With checkingAgreement(): "" if every rank calls `what` on `count`
/// elements of `dtype` (and the same `detail`: a reduction, a root), else
/// the first difference. Ranks that disagree would otherwise hang, fail
/// deep in Gloo, or get a wrong result.
std::string disagreement(Group &g, const char *what, int64_t count, DType dtype, int64_t detail) {
  if (!checkingAgreement())
    return "";
  std::vector<int64_t> mine = {count, static_cast<int64_t>(dtype), detail}, all(3 * g.size);
  std::string why =
      tryCollective(g, allGather(g, mine.data(), 3, all.data(), std::vector<size_t>(g.size, 3)));
  if (!why.empty())
    return why;
  auto text = [&](int rank) {
    return std::to_string(all[3 * rank]) + " " +
           std::string(dtypeName(static_cast<DType>(all[3 * rank + 1]))) + " elements (" +
           std::to_string(all[3 * rank + 2]) + ")";
  };
  for (int rank = 0; rank < g.size; ++rank)
    if (!std::equal(all.begin() + 3 * rank, all.begin() + 3 * rank + 3, all.begin())) {
      std::string message = std::string("the ranks disagree on ") + what + ": rank " +
                            std::to_string(rank) + " gives " + text(rank) + ", rank 0 " + text(0) +
                            " (EMBER_DISTRIBUTED_DEBUG=DETAIL)";
      g.broken = message;
      return message;
    }
  return "";
}

/// Reduces `count` elements of `dtype` (float32, float64, int32 or int64)
/// at `input` over every rank into `data` (which may be `input`); returns ""
/// or why it failed.
std::string allReduceInto(Group &g, const void *input, void *data, int64_t count, DType dtype,
                          ReduceOp op) {
  if (std::string why = disagreement(g, "all_reduce", count, dtype, static_cast<int64_t>(op));
      !why.empty())
    return why;
  if (count == 0)
    return ""; // every rank's is empty (shapes agree)
  auto run = [&](auto zero) {
    using T = decltype(zero);
    size_t bytes = static_cast<size_t>(count) * sizeof(T);
    std::string why;
    if (bytes * static_cast<size_t>(g.size) <= kGatheredAllReduceBytes) {
      // Tiny (a small model's gradients): every rank's values gathered in
      // one exchange and combined here in rank order, the same bits on
      // every rank (12 KB between two processes on this 2-vCPU VM: 0.1 ms,
      // against 0.17-0.7 ms with bcube).
      std::vector<T> every(static_cast<size_t>(count) * g.size);
      why = tryCollective(g, allGather(g, static_cast<const T *>(input), static_cast<size_t>(count),
                                       every.data(),
                                       std::vector<size_t>(g.size, static_cast<size_t>(count))));
      if (why.empty()) {
        ReduceFunction combine = reduceFunctionOf<T>(op);
        std::memcpy(data, every.data(), bytes);
        for (int rank = 1; rank < g.size; ++rank)
          combine(data, data, every.data() + static_cast<size_t>(count) * rank,
                  static_cast<size_t>(count));
      }
    } else {
      why = tryCollective(g, [&](uint32_t tag) {
        gloo::AllreduceOptions options(g.context);
        // Gloo's ring pipelines segments: right for megabytes, but a small
        // buffer (a model's few gradients) pays its many round trips; bcube
        // takes log(ranks) exchanges (12 KB between two processes on a
        // 2-vCPU VM: 0.2-0.4 ms against 1.6-2.7 ms; equal at 256 KB).
        if (bytes < kSmallAllReduceBytes)
          options.setAlgorithm(gloo::AllreduceOptions::Algorithm::BCUBE);
        // In place on a copy: Gloo given a separate input was no faster (25 MB
        // between two processes here: 6-8 ms more than in place either way).
        if (input != data)
          std::memcpy(data, input, bytes);
        options.setOutput(static_cast<T *>(data), static_cast<size_t>(count));
        options.setReduceFunction(reduceFunctionOf<T>(op));
        options.setTag(tag);
        gloo::allreduce(options);
      });
    }
    if (why.empty() && op == ReduceOp::Mean)
      if constexpr (std::is_floating_point_v<T>)
        for (T *at = static_cast<T *>(data), *end = at + count; at != end; ++at)
          *at /= static_cast<T>(g.size);
    return why;
  };
  switch (dtype) {
  case DType::Float32:
    return run(float());
  case DType::Float64:
    return run(double());
  case DType::Int32:
    return run(int32_t());
  case DType::Int64:
    return run(int64_t());
  default:
    return "cannot reduce " + std::string(dtypeName(dtype)) + " elements";
  }
}

static_assert(static_cast<int>(ReduceOp::Mean) == static_cast<int>(collectives::Reduction::Mean) &&
              static_cast<int>(ReduceOp::Min) == static_cast<int>(collectives::Reduction::Min));

/// What compiled code's ember.all_reduce calls while a group exists.
std::string allReduceEngine(const void *input, void *output, int64_t count, DType dtype,
                            collectives::Reduction reduction) {
  try { // compiled code calls this: nothing may unwind through it
    std::lock_guard<std::mutex> lock(groupMutex);
    if (std::string why = unusableBecause(); !why.empty())
      return why;
    return allReduceInto(*group, input, output, count, dtype, static_cast<ReduceOp>(reduction));
  } catch (const std::exception &error) {
    return error.what();
  } catch (...) {
    return "an unknown exception";
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// The group
//===----------------------------------------------------------------------===//

void distributed::init_process_group(const ProcessGroupOptions &options, SourceLoc loc) {
  std::lock_guard<std::mutex> lock(groupMutex);
  if (group)
    fail(loc, "init_process_group",
         "the process group is already initialized (rank " + std::to_string(group->rank) + " of " +
             std::to_string(group->size) + "): call destroy_process_group() first");
  // Gloo expects EPIPE from a write to a peer that died, not the signal
  // that would end this process (its own tests ignore it too).
  struct sigaction pipe {};
  if (::sigaction(SIGPIPE, nullptr, &pipe) == 0 && pipe.sa_handler == SIG_DFL)
    std::signal(SIGPIPE, SIG_IGN);
  auto g = std::make_unique<Group>();
  g->rank = options.rank >= 0 ? options.rank : integerFrom(required("RANK", loc), "RANK", loc);
  g->size = options.world_size >= 0 ? options.world_size
                                    : integerFrom(required("WORLD_SIZE", loc), "WORLD_SIZE", loc);
  if (g->size < 1 || g->rank >= g->size)
    fail(loc, "init_process_group",
         "rank " + std::to_string(g->rank) + " is not in a world of size " +
             std::to_string(g->size));
  std::string local = environment("LOCAL_RANK");
  g->localRank = local.empty() ? g->rank : integerFrom(local, "LOCAL_RANK", loc);
  g->timeout = timeoutOf(options, loc);

  // The store.
  std::string method = options.init_method.empty() ? "env://" : options.init_method;
  std::string where;
  bool loopback = false;
  if (method.rfind("file://", 0) == 0) {
    std::string path = method.substr(strlen("file://"));
    if (path.empty())
      fail(loc, "init_process_group", "init_method 'file://' names no directory");
    std::error_code error;
    std::filesystem::create_directories(path, error);
    if (error)
      fail(loc, "init_process_group",
           "cannot create the store's directory '" + path + "': " + error.message());
    g->store = std::make_unique<gloo::rendezvous::FileStore>(path);
    where = "'" + path + "'";
  } else {
    std::string host;
    int port;
    if (method == "env://") {
      host = required("MASTER_ADDR", loc);
      port = integerFrom(required("MASTER_PORT", loc), "MASTER_PORT", loc);
    } else if (method.rfind("tcp://", 0) == 0) {
      std::string address = method.substr(strlen("tcp://"));
      size_t colon = address.rfind(':');
      if (colon == std::string::npos || colon == 0)
        fail(loc, "init_process_group", "init_method '" + method + "' must be tcp://host:port");
      host = address.substr(0, colon);
      if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
      port = integerFrom(address.substr(colon + 1), "the port", loc);
    } else {
      fail(loc, "init_process_group",
           "init_method '" + method + "' is not env://, tcp://host:port or file:///path");
    }
    if (port > 65535)
      fail(loc, "init_process_group", "port " + std::to_string(port) + " is out of range");
    std::unique_ptr<distributed::detail::TcpStore> store;
    try { // the store's errors come unprefixed
      store =
          std::make_unique<distributed::detail::TcpStore>(host, port, g->rank, g->size, g->timeout);
    } catch (const DistributedError &error) {
      fail(loc, "init_process_group", error.what());
    }
    g->tcpStore = store.get();
    g->store = std::move(store);
    where = host + ":" + std::to_string(g->tcpStore->port()); // port 0: the one chosen
    loopback = distributed::detail::isLoopback(host);
  }

  arrive(*g, where, loc);

  // Gloo's transport: this rank listens on the interface GLOO_SOCKET_IFNAME
  // names (PyTorch's variable), else the loopback when the store is there,
  // else the address this machine reached the store from (its name may
  // resolve to 127.0.1.1, which other machines cannot reach), else (a file
  // store) this machine's name.
  gloo::transport::tcp::attr attr;
  std::string interface = environment("GLOO_SOCKET_IFNAME");
  if (!interface.empty())
    attr.iface = interface;
  else if (loopback)
    attr.hostname = "127.0.0.1";
  else if (g->tcpStore && !g->tcpStore->localAddress().empty())
    attr.hostname = g->tcpStore->localAddress();
  else
    attr.hostname = hostName();
  try {
    auto device = gloo::transport::tcp::CreateDevice(attr);
    g->context = std::make_shared<gloo::rendezvous::Context>(g->rank, g->size);
    g->context->setTimeout(g->timeout);
    gloo::rendezvous::PrefixStore prefixed("gloo", *g->store);
    g->context->connectFullMesh(prefixed, device);
  } catch (const std::exception &error) {
    std::string message = error.what();
    fail(loc, "init_process_group",
         "rank " + std::to_string(g->rank) + " could not connect to the other ranks: " + message);
  }
  group = std::move(g);
  collectives::set_all_reduce_engine(&allReduceEngine, options.overlap_communication);
}

bool distributed::is_initialized() {
  std::lock_guard<std::mutex> lock(groupMutex);
  return group != nullptr;
}

void distributed::destroy_process_group() {
  std::lock_guard<std::mutex> lock(groupMutex);
  if (!group)
    return;
  collectives::set_all_reduce_engine(nullptr);
  if (group->tcpStore) // a broken group's ranks may never leave: rank 0 does not wait
    group->tcpStore->close(/*waitForTheOthers=*/group->broken.empty());
  group.reset();
}

int distributed::rank() {
  std::lock_guard<std::mutex> lock(groupMutex);
  return initialized("rank", SourceLoc::current()).rank;
}

int distributed::world_size() {
  std::lock_guard<std::mutex> lock(groupMutex);
  return initialized("world_size", SourceLoc::current()).size;
}

int distributed::local_rank() {
  std::lock_guard<std::mutex> lock(groupMutex);
  return initialized("local_rank", SourceLoc::current()).localRank;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

void distributed::barrier(SourceLoc loc) {
  std::lock_guard<std::mutex> lock(groupMutex);
  Group &g = usable("barrier", loc);
  collective(g, "barrier", loc, [&](uint32_t tag) {
    gloo::BarrierOptions options(g.context);
    options.setTag(tag);
    gloo::barrier(options);
  });
}

Tensor distributed::all_reduce(const Tensor &tensor, ReduceOp op, SourceLoc loc) {
  if (!tensor.defined())
    fail(loc, "all_reduce", "the tensor is undefined");
  DType dtype = tensor.dtype();
  if (!isFloatingPoint(dtype) && !isInteger(dtype))
    fail(loc, "all_reduce", "cannot reduce " + describe(tensor) + " (it takes float or int)");
  if (op == ReduceOp::Mean && !isFloatingPoint(dtype))
    fail(loc, "all_reduce",
         std::string("ReduceOp::Mean needs a floating-point tensor, not ") + describe(tensor) +
             " (reduce with Sum and divide, choosing the rounding)");
  // Half precision is reduced in float32 (Gloo's float16 sum widens too).
  bool half = isHalfPrecision(dtype);
  Tensor wide = half ? cast(tensor, DType::Float32, loc) : tensor;
  if (!tensor.is_symbolic()) {
    std::lock_guard<std::mutex> lock(groupMutex);
    usable("all_reduce", loc);
  }
  // The ember.all_reduce op, traced or eagerly a one-op kernel (which a
  // GradientTape records like any op): the engine runs it when the code does.
  Tensor reduced = collectives::all_reduce(wide, static_cast<collectives::Reduction>(op), loc);
  return half ? cast(reduced, dtype, loc) : reduced;
}

void distributed::all_reduce_(Tensor &tensor, ReduceOp op, SourceLoc loc) {
  requireEagerCpuTensor(
      tensor, "all_reduce_",
      "reduces a tensor's buffer in place: inside ember::function, use all_reduce", loc);
  DType dtype = tensor.dtype();
  bool floating = isFloatingPoint(dtype) && !isHalfPrecision(dtype);
  if (!floating && !isInteger(dtype))
    fail(loc, "all_reduce_",
         "reduces float32, float64, int32 or int64 tensors in place, not " + describe(tensor));
  if (op == ReduceOp::Mean && !floating)
    fail(loc, "all_reduce_",
         "ReduceOp::Mean needs a floating-point tensor, not " + describe(tensor));
  std::lock_guard<std::mutex> lock(groupMutex);
  Group &g = usable("all_reduce_", loc);
  if (std::string why = allReduceInto(g, tensor.data(), tensor.data(), tensor.numel(), dtype, op);
      !why.empty())
    fail(loc, "all_reduce_", why);
}

Tensor distributed::broadcast(const Tensor &tensor, int root, SourceLoc loc) {
  std::lock_guard<std::mutex> lock(groupMutex);
  Group &g = usableFrom(root, "broadcast", loc);
  Tensor buffer = hostCopy(tensor, "broadcast", loc);
  if (std::string why = disagreement(g, "broadcast", buffer.numel(), buffer.dtype(), root);
      !why.empty())
    fail(loc, "broadcast", why);
  if (buffer.nbytes() == 0)
    return buffer;
  broadcastInPlace(g, buffer, root, "broadcast", loc);
  return buffer;
}

namespace {

/// Each rank's shape and dtype (as int64 words: dtype, rank, dims), from a
/// fixed-size allgather; `what` names the collective for errors.
std::vector<std::vector<int64_t>> gatherSignatures(Group &g, const Tensor &tensor, const char *what,
                                                   const SourceLoc &loc) {
  constexpr size_t kWords = 2 + kMaxRank;
  std::vector<int64_t> mine(kWords, 0), all(kWords * g.size, 0);
  mine[0] = static_cast<int64_t>(tensor.dtype());
  mine[1] = tensor.rank();
  for (int d = 0; d < tensor.rank(); ++d)
    mine[2 + d] = tensor.size(d);
  collective(g, what, loc,
             allGather(g, mine.data(), kWords, all.data(), std::vector<size_t>(g.size, kWords)));
  std::vector<std::vector<int64_t>> signatures;
  for (int rank = 0; rank < g.size; ++rank)
    signatures.emplace_back(all.begin() + rank * kWords,
                            all.begin() + rank * kWords + 2 + all[rank * kWords + 1]);
  return signatures;
}

std::string signatureText(const std::vector<int64_t> &signature) {
  return std::string(dtypeName(static_cast<DType>(signature[0]))) + " tensor of shape " +
         Shape::str(std::span<const int64_t>(signature).subspan(2));
}

} // namespace

Tensor distributed::all_gather(const Tensor &tensor, SourceLoc loc) {
  std::lock_guard<std::mutex> lock(groupMutex);
  Group &g = usable("all_gather", loc);
  Tensor input = hostCopy(tensor, "all_gather", loc);
  if (input.rank() == 0)
    fail(loc, "all_gather", "takes tensors of rank 1 or more (it concatenates along dim 0)");
  std::vector<std::vector<int64_t>> signatures = gatherSignatures(g, input, "all_gather", loc);
  // Every rank checks the same list, so every rank raises the same error.
  int64_t rows = 0;
  for (int rank = 0; rank < g.size; ++rank) {
    const std::vector<int64_t> &theirs = signatures[rank], &first = signatures[0];
    if (theirs[0] != first[0] || theirs.size() != first.size() ||
        !std::equal(theirs.begin() + 3, theirs.end(), first.begin() + 3))
      fail(loc, "all_gather",
           "rank " + std::to_string(rank) + " gives a " + signatureText(theirs) + " but rank 0 a " +
               signatureText(first) + " (only dim 0 may differ)");
    rows += theirs[2];
  }
  Shape shape = input.shape();
  shape[0] = rows;
  Tensor output = Tensor::empty(shape, input.dtype(), Device());
  int64_t rowBytes = static_cast<int64_t>(dtypeSize(input.dtype()));
  for (int d = 1; d < input.rank(); ++d)
    rowBytes *= input.size(d);
  std::vector<size_t> bytes;
  for (int rank = 0; rank < g.size; ++rank)
    bytes.push_back(static_cast<size_t>(signatures[rank][2] * rowBytes));
  if (output.nbytes() == 0)
    return output;
  collective(g, "all_gather", loc,
             allGather(g, static_cast<const char *>(input.data()), input.nbytes(),
                       static_cast<char *>(output.data()), bytes));
  return output;
}

Tensor distributed::reduce_scatter(const Tensor &tensor, ReduceOp op, SourceLoc loc) {
  int size, me;
  {
    std::lock_guard<std::mutex> lock(groupMutex);
    Group &g = usable("reduce_scatter", loc);
    size = g.size;
    me = g.rank;
  }
  if (tensor.defined() && tensor.rank() > 0 && tensor.shape()[0] == kNone)
    fail(loc, "reduce_scatter",
         "dim 0 of " + describe(tensor) +
             " is None: reduce_scatter splits a known dim 0 (trace with its size)");
  if (tensor.defined() && (tensor.rank() == 0 || tensor.size(0) % size != 0))
    fail(loc, "reduce_scatter",
         "dim 0 of " + describe(tensor) + " must be a multiple of the world size (" +
             std::to_string(size) + ")");
  // The whole reduction, then this rank's part: twice the traffic of a
  // reduce-scatter alone, which Gloo's ring does internally but does not offer.
  Tensor reduced = all_reduce(tensor, op, loc);
  int64_t part = reduced.size(0) / size;
  std::vector<int64_t> start(reduced.rank(), 0),
      limit(reduced.shape().begin(), reduced.shape().end());
  start[0] = part * me;
  limit[0] = part * (me + 1);
  return slice(reduced, start, limit, {}, loc);
}

void distributed::broadcast_variables(const std::vector<Variable> &variables, int root,
                                      SourceLoc loc) {
  std::lock_guard<std::mutex> lock(groupMutex);
  Group &g = usableFrom(root, "broadcast_variables", loc);
  // Every rank's list, as text, compared with root's before any value moves.
  std::string mine = std::to_string(variables.size()) + " variables\n";
  for (const Variable &variable : variables)
    mine += variable.name() + ": " + describe(variable.value()) + "\n";
  std::vector<int64_t> length = {static_cast<int64_t>(mine.size())}, lengths(g.size);
  collective(g, "broadcast_variables", loc,
             allGather(g, length.data(), 1, lengths.data(), std::vector<size_t>(g.size, 1)));
  std::vector<size_t> counts(lengths.begin(), lengths.end());
  std::string all(std::accumulate(counts.begin(), counts.end(), size_t(0)), '\0');
  collective(g, "broadcast_variables", loc,
             allGather(g, mine.data(), mine.size(), all.data(), counts));
  std::vector<std::string> lists;
  for (size_t rank = 0, at = 0; rank < counts.size(); at += counts[rank++])
    lists.push_back(all.substr(at, counts[rank]));
  for (int rank = 0; rank < g.size; ++rank) {
    if (lists[rank] == lists[root])
      continue;
    // The first line that differs.
    auto lines = [](const std::string &text) {
      std::vector<std::string> out;
      for (size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
        out.push_back(text.substr(at, end - at));
      return out;
    };
    std::vector<std::string> theirs = lines(lists[rank]), roots = lines(lists[root]);
    size_t line = 0;
    while (line < theirs.size() && line < roots.size() && theirs[line] == roots[line])
      ++line;
    fail(loc, "broadcast_variables",
         "rank " + std::to_string(rank) + "'s variables differ from root " + std::to_string(root) +
             "'s: rank " + std::to_string(rank) + " has '" +
             (line < theirs.size() ? theirs[line] : "nothing") + "', rank " + std::to_string(root) +
             " '" + (line < roots.size() ? roots[line] : "nothing") + "'");
  }
  for (const Variable &variable : variables) {
    Tensor value = variable.value();
    Tensor buffer =
        hostCopy(value.device().is_cpu() ? value : value.cpu(), "broadcast_variables", loc);
    if (buffer.nbytes() == 0)
      continue;
    broadcastInPlace(g, buffer, root, "broadcast_variables", loc);
    if (g.rank != root) {
      Variable shared = variable; // copies share the state
      shared.assign(buffer.to(variable.device()), loc);
    }
  }
}

void distributed::all_reduce_variables(const std::vector<Variable> &variables, ReduceOp op,
                                       SourceLoc loc) {
  for (const Variable &variable : variables) {
    Variable shared = variable; // copies share the state
    shared.assign(all_reduce(variable.value(), op, loc), loc);
  }
}
