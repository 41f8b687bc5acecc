// All-reduces of compiled code as the runtime runs them: started where the
// op is and awaited before the result's first use; at once on the caller's
// thread by default, or on the communication thread, in the order started,
// while the caller goes on. A fake engine stands in for ember::distributed.
#include "emberrt/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

/// The fake engine: two processes holding the same values (the sum doubles
/// them), recording its calls; a first element of 13 fails, and it holds
/// every call until `gate` opens (at most 10 s).
struct FakeEngine {
  std::mutex mutex;
  std::vector<float> order; // each call's first element
  std::thread::id thread;
  std::atomic<bool> gate{true};
  std::atomic<int> entered{0}; // calls begun
  bool heldUntilOpened = true;
};
FakeEngine *engine = nullptr;

int32_t fakeAllReduce(const void *input, void *output, int64_t count, emberrt_dtype_t dtype,
                      int32_t reduction, char *error, size_t capacity) {
  ++engine->entered;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!engine->gate.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::lock_guard<std::mutex> lock(engine->mutex);
  engine->heldUntilOpened &= engine->gate.load();
  engine->thread = std::this_thread::get_id();
  const float *in = static_cast<const float *>(input);
  engine->order.push_back(in[0]);
  if (dtype != EMBERRT_FLOAT32 || reduction != 0 || in[0] == 13.f) {
    std::snprintf(error, capacity, "rank 1 of 2 was lost");
    return 1;
  }
  for (int64_t i = 0; i < count; ++i)
    static_cast<float *>(output)[i] = 2 * in[i];
  return 0;
}

/// A rank-1 memref descriptor {allocated, aligned, offset, size, stride}.
struct Vector {
  std::vector<float> values;
  int64_t words[5];
  explicit Vector(std::vector<float> v) : values(std::move(v)) {
    int64_t data = reinterpret_cast<int64_t>(values.data());
    int64_t init[5] = {data, data, 0, static_cast<int64_t>(values.size()), 1};
    std::copy(init, init + 5, words);
  }
};

int64_t start(Vector &operand, Vector &result) {
  return emberrt_all_reduce_start_f32(1, operand.words, 1, result.words, /*sum*/ 0, /*site*/ 7);
}

struct Collectives : ::testing::Test {
  FakeEngine fake;
  void SetUp() override {
    engine = &fake;
    emberrt_set_all_reduce_hook(&fakeAllReduce);
  }
  void TearDown() override {
    emberrt_set_collective_thread(0);
    emberrt_set_all_reduce_hook(nullptr);
    engine = nullptr;
  }
};

} // namespace

TEST_F(Collectives, WithoutTheThreadAnAllReduceRunsWhereItStarts) {
  Vector x({1, 2, 3}), out({0, 0, 0});
  EXPECT_EQ(start(x, out), 0); // nothing left to wait for
  EXPECT_EQ(out.values, (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(x.values, (std::vector<float>{1, 2, 3})); // only read
  EXPECT_EQ(fake.thread, std::this_thread::get_id());
  emberrt_all_reduce_wait(0, 7);
  EXPECT_EQ(emberrt_take_fault().kind, EMBERRT_FAULT_NONE);
}

TEST_F(Collectives, OnTheThreadTheCallerGoesOnUntilItWaits) {
  emberrt_set_collective_thread(1);
  fake.gate = false;
  Vector x({1, 2, 3}), out({0, 0, 0});
  int64_t ticket = start(x, out);
  ASSERT_NE(ticket, 0);
  // The start returned while the engine still holds the call, and took a
  // copy of the operand: the caller may write its buffer at once.
  x.values = {9, 9, 9};
  fake.gate = true;
  emberrt_all_reduce_wait(ticket, 7);
  EXPECT_EQ(emberrt_take_fault().kind, EMBERRT_FAULT_NONE);
  EXPECT_TRUE(fake.heldUntilOpened);
  EXPECT_NE(fake.thread, std::this_thread::get_id());
  EXPECT_EQ(out.values, (std::vector<float>{2, 4, 6}));
}

TEST_F(Collectives, TheThreadRunsThemInTheOrderStarted) {
  emberrt_set_collective_thread(1);
  fake.gate = false;
  std::vector<Vector> ins, outs;
  ins.reserve(3);
  outs.reserve(3);
  for (float id : {1.f, 2.f, 3.f}) {
    ins.emplace_back(std::vector<float>{id, id});
    outs.emplace_back(std::vector<float>{0, 0});
  }
  std::vector<int64_t> tickets;
  for (size_t i = 0; i < ins.size(); ++i)
    tickets.push_back(start(ins[i], outs[i]));
  fake.gate = true;
  for (size_t i = tickets.size(); i-- > 0;) // awaited in the other order
    emberrt_all_reduce_wait(tickets[i], 7);
  EXPECT_EQ(fake.order, (std::vector<float>{1, 2, 3}));
  for (size_t i = 0; i < outs.size(); ++i)
    EXPECT_EQ(outs[i].values, (std::vector<float>{2.f * (i + 1), 2.f * (i + 1)}));
}

TEST_F(Collectives, AFailureIsReportedByTheWaitAtItsSite) {
  emberrt_set_collective_thread(1);
  Vector bad({13, 1}), out({0, 0});
  int64_t ticket = start(bad, out);
  EXPECT_EQ(emberrt_take_fault().kind, EMBERRT_FAULT_NONE); // not yet: it runs elsewhere
  std::thread([ticket] {
    emberrt_all_reduce_wait(ticket, 7); // reported on the waiting thread
    emberrt_fault_t fault = emberrt_take_fault();
    EXPECT_EQ(fault.kind, EMBERRT_FAULT_COLLECTIVE);
    EXPECT_EQ(fault.site, 7);
    EXPECT_STREQ(emberrt_fault_message(), "rank 1 of 2 was lost");
  }).join();
  EXPECT_EQ(emberrt_take_fault().kind, EMBERRT_FAULT_NONE);
}

TEST_F(Collectives, WithoutAnEngineTheStartFaults) {
  emberrt_set_all_reduce_hook(nullptr);
  emberrt_set_collective_thread(1);
  Vector x({1}), out({0});
  EXPECT_EQ(start(x, out), 0);
  emberrt_fault_t fault = emberrt_take_fault();
  EXPECT_EQ(fault.kind, EMBERRT_FAULT_COLLECTIVE);
  EXPECT_NE(std::string(emberrt_fault_message()).find("init_process_group"), std::string::npos);
}

TEST_F(Collectives, TurnedOffWhileSomeAreQueuedTheNextGoesBehindThem) {
  emberrt_set_collective_thread(1);
  fake.gate = false;
  Vector first({1, 1}), firstOut({0, 0}), second({2, 2}), secondOut({0, 0});
  int64_t ticket = start(first, firstOut);
  emberrt_set_collective_thread(0);
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    fake.gate = true;
  });
  int64_t next = start(second, secondOut); // queued behind the first, not run here
  emberrt_all_reduce_wait(next, 7);
  emberrt_all_reduce_wait(ticket, 7);
  release.join();
  EXPECT_EQ(fake.order, (std::vector<float>{1, 2}));
  EXPECT_EQ(secondOut.values, (std::vector<float>{4, 4}));
}

TEST_F(Collectives, AnEngineRemovedWhileOneIsQueuedIsNotCalled) {
  emberrt_set_collective_thread(1);
  fake.gate = false;
  Vector x({1, 2}), out({0, 0}), y({3, 4}), out2({0, 0});
  int64_t running = start(x, out); // held by the engine...
  while (fake.entered.load() == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  int64_t queued = start(y, out2); // ...while this one waits in the queue
  emberrt_set_all_reduce_hook(nullptr);
  fake.gate = true;
  emberrt_all_reduce_wait(running, 7);
  EXPECT_EQ(emberrt_take_fault().kind, EMBERRT_FAULT_NONE);
  emberrt_all_reduce_wait(queued, 8);
  emberrt_fault_t fault = emberrt_take_fault();
  EXPECT_EQ(fault.kind, EMBERRT_FAULT_COLLECTIVE);
  EXPECT_EQ(fault.site, 8);
  EXPECT_EQ(fake.order.size(), 1u); // the removed engine saw the first only
}

TEST_F(Collectives, AForkedChildStartsItsOwnThread) {
  emberrt_set_collective_thread(1);
  Vector warm({1}), warmOut({0});
  emberrt_all_reduce_wait(start(warm, warmOut), 7); // the parent's thread exists
  pid_t child = ::fork();
  if (child == 0) {
    // The parent's thread is not here: a start must not wait for it forever.
    Vector x({5}), out({0});
    emberrt_all_reduce_wait(start(x, out), 7);
    ::_exit(out.values[0] == 10 && emberrt_take_fault().kind == EMBERRT_FAULT_NONE ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}
