//===- collectives.cpp - ember.all_reduce's entry into the engine ---------===//
//
// Compiled code calls emberrt_all_reduce_<type>; the engine (Gloo, in
// ember's distributed library) is behind a hook, so the runtime links none.
//
//===----------------------------------------------------------------------===//

#include "emberrt/runtime.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <cstdio>
#include <thread>

#include <unistd.h>

namespace {
std::atomic<emberrt_all_reduce_hook_t> allReduceHook{nullptr};

/// Whether a descriptor {allocated, aligned, offset, sizes[rank],
/// strides[rank]} is row-major contiguous; `count` gets its elements.
bool contiguous(int64_t rank, const int64_t *words, int64_t &count) {
  const int64_t *sizes = words + 3, *strides = words + 3 + rank;
  bool dense = true;
  count = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    dense &= sizes[d] <= 1 || strides[d] == count;
    count *= sizes[d];
  }
  return dense;
}

constexpr const char *kNoEngine = "ran without a process group: call "
                                  "ember::distributed::init_process_group() first (a C "
                                  "program installs its engine with "
                                  "emberrt_set_all_reduce_hook)";

char *elementsOf(const int64_t *words, size_t size) {
  return reinterpret_cast<char *>(words[1]) + words[2] * static_cast<int64_t>(size);
}

/// An all-reduce started by compiled code: its buffer (the result, holding
/// the operand's values, reduced in place), and once done, why it failed.
struct StartedAllReduce {
  void *data;
  int64_t count;
  emberrt_dtype_t dtype;
  int32_t reduction;
  bool done = false;
  int32_t status = 0;
  char error[1024] = {};

  /// With the engine installed when it runs (one removed meanwhile, its
  /// state perhaps freed, is not called).
  void run() {
    emberrt_all_reduce_hook_t hook = allReduceHook.load();
    if (!hook) {
      status = 1;
      std::snprintf(error, sizeof error, "%s", kNoEngine);
      return;
    }
    status = hook(data, data, count, dtype, reduction, error, sizeof error);
  }
};

/// The communication thread: runs the started all-reduces one at a time, in
/// the order they were started (every process runs the same collectives in
/// the same order, so the engine sees them in that order too). Its state is
/// never freed: the thread, detached, may still wait on it at exit.
struct CollectiveThread {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<StartedAllReduce *> queue;
  bool running = false; // a job taken from the queue, not yet done
  pid_t process = ::getpid();

  CollectiveThread() { std::thread([this] { serve(); }).detach(); }

  void serve() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return !queue.empty(); });
      StartedAllReduce *job = queue.front();
      queue.pop_front();
      running = true;
      lock.unlock();
      job->run();
      lock.lock();
      running = false;
      job->done = true;
      changed.notify_all();
    }
  }
  /// Whether started all-reduces are still queued or running.
  bool busy() {
    std::lock_guard<std::mutex> lock(mutex);
    return running || !queue.empty();
  }
  void start(StartedAllReduce *job) {
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(job);
    changed.notify_all();
  }
  void wait(StartedAllReduce *job) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return job->done; });
  }
};

std::atomic<bool> collectiveThreadEnabled{false};

std::atomic<CollectiveThread *> communication{nullptr};

/// The communication thread, started at its first use: again in a child
/// process after fork(), which keeps the parent's state but not its thread
/// (the parent's is left as it was).
CollectiveThread &collectiveThread() {
  CollectiveThread *thread = communication.load();
  if (!thread || thread->process != ::getpid()) {
    static std::mutex starting;
    std::lock_guard<std::mutex> lock(starting);
    thread = communication.load();
    if (!thread || thread->process != ::getpid()) {
      thread = new CollectiveThread;
      communication.store(thread);
    }
  }
  return *thread;
}

/// Whether a start must queue behind all-reduces still on the thread (the
/// thread turned off meanwhile: they go first, keeping the order).
bool collectivesPending() {
  CollectiveThread *thread = communication.load();
  return thread && thread->process == ::getpid() && thread->busy();
}

void finish(StartedAllReduce *job, int32_t site) {
  if (job->status != 0)
    emberrt_report_fault_message(EMBERRT_FAULT_COLLECTIVE, site, job->error);
  delete job;
}

/// Copies the operand into the result buffer, then reduces it there in
/// place: at once, or on the communication thread when it is enabled
/// (the ticket, for emberrt_all_reduce_wait; 0 when there is nothing left
/// to wait for).
int64_t startAllReduce(int64_t rank, void *operand, int64_t resultRank, void *result,
                       int32_t dtype, size_t size, int32_t reduction, int32_t site) {
  auto *out = static_cast<int64_t *>(result);
  if (!allReduceHook.load()) {
    emberrt_report_fault_message(EMBERRT_FAULT_COLLECTIVE, site, kNoEngine);
    return 0;
  }
  int64_t count;
  if (!contiguous(resultRank, out, count)) {
    emberrt_report_fault_message(EMBERRT_FAULT_COLLECTIVE, site,
                                 "was given a result buffer it cannot fill (an internal error)");
    return 0;
  }
  // Copied here, on the caller's thread, so that the operand's buffer is
  // free again when this returns (the engine reduces a copy in place anyway).
  emberrt_unranked_memref_t from{rank, operand}, to{resultRank, result};
  emberrt_memref_copy(static_cast<int64_t>(size), &from, &to);
  if (count == 0)
    return 0;
  auto *job = new StartedAllReduce{elementsOf(out, size), count,
                                   static_cast<emberrt_dtype_t>(dtype), reduction};
  if (!collectiveThreadEnabled.load() && !collectivesPending()) {
    job->run();
    finish(job, site);
    return 0;
  }
  collectiveThread().start(job);
  return reinterpret_cast<int64_t>(job);
}
} // namespace

extern "C" void emberrt_set_all_reduce_hook(emberrt_all_reduce_hook_t hook) {
  allReduceHook.store(hook);
}

extern "C" void emberrt_set_collective_thread(int32_t enabled) {
  collectiveThreadEnabled.store(enabled != 0);
}

extern "C" void emberrt_all_reduce_wait(int64_t ticket, int32_t site) {
  if (ticket == 0)
    return;
  auto *job = reinterpret_cast<StartedAllReduce *>(ticket);
  collectiveThread().wait(job);
  finish(job, site);
}

extern "C" int64_t emberrt_all_reduce_start_f32(int64_t rank, void *operand,
                                                int64_t resultRank, void *result,
                                                int32_t reduction, int32_t site) {
  return startAllReduce(rank, operand, resultRank, result, EMBERRT_FLOAT32, 4, reduction, site);
}
extern "C" void emberrt_all_reduce_f32(int64_t rank, void *operand, int64_t resultRank,
                                       void *result, int32_t reduction, int32_t site) {
  emberrt_all_reduce_wait(emberrt_all_reduce_start_f32(rank, operand, resultRank, result, reduction, site), site);
}
extern "C" int64_t emberrt_all_reduce_start_f64(int64_t rank, void *operand,
                                                int64_t resultRank, void *result,
                                                int32_t reduction, int32_t site) {
  return startAllReduce(rank, operand, resultRank, result, EMBERRT_FLOAT64, 8, reduction, site);
}
extern "C" void emberrt_all_reduce_f64(int64_t rank, void *operand, int64_t resultRank,
                                       void *result, int32_t reduction, int32_t site) {
  emberrt_all_reduce_wait(emberrt_all_reduce_start_f64(rank, operand, resultRank, result, reduction, site), site);
}
extern "C" int64_t emberrt_all_reduce_start_i32(int64_t rank, void *operand,
                                                int64_t resultRank, void *result,
                                                int32_t reduction, int32_t site) {
  return startAllReduce(rank, operand, resultRank, result, EMBERRT_INT32, 4, reduction, site);
}
extern "C" void emberrt_all_reduce_i32(int64_t rank, void *operand, int64_t resultRank,
                                       void *result, int32_t reduction, int32_t site) {
  emberrt_all_reduce_wait(emberrt_all_reduce_start_i32(rank, operand, resultRank, result, reduction, site), site);
}
extern "C" int64_t emberrt_all_reduce_start_i64(int64_t rank, void *operand,
                                                int64_t resultRank, void *result,
                                                int32_t reduction, int32_t site) {
  return startAllReduce(rank, operand, resultRank, result, EMBERRT_INT64, 8, reduction, site);
}
extern "C" void emberrt_all_reduce_i64(int64_t rank, void *operand, int64_t resultRank,
                                       void *result, int32_t reduction, int32_t site) {
  emberrt_all_reduce_wait(emberrt_all_reduce_start_i64(rank, operand, resultRank, result, reduction, site), site);
}
