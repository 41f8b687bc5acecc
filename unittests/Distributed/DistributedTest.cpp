//===- DistributedTest.cpp - collectives, rendezvous and faults -----------===//
//
// Several ranks are several processes: these tests start DistributedWorker
// through ember-run and read what the ranks print. The API's behaviour in
// one process (a group of one, errors before init) is checked in place.
//
//===----------------------------------------------------------------------===//

#include "ErrorTestUtil.h"

#include "ember/ember.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include <sys/wait.h>

using namespace ember;
using namespace ember::test;
namespace dist = ember::distributed;

namespace {

struct RunResult {
  std::string output;
  int status = -1; // the exit status, or 128 + signal
  double seconds = 0;
};

/// Runs `command` in a shell, its stderr with its stdout.
RunResult run(const std::string &command) {
  auto start = std::chrono::steady_clock::now();
  RunResult result;
  FILE *pipe = ::popen((command + " 2>&1").c_str(), "r");
  char buffer[4096];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
    result.output.append(buffer, got);
  int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string launch(int ranks, const std::string &scenario, const std::string &environment = "") {
  return environment + " " EMBER_RUN " --grace-period 2 -n " + std::to_string(ranks) +
         " " EMBER_DISTRIBUTED_WORKER " " + scenario;
}

/// Runs `scenario` on 2 and on 3 ranks: each must succeed and print
/// "rank R<what>" (what may hold "{n}", the number of ranks).
void expectEveryRankSays(const std::string &scenario, const std::string &what,
                         const std::string &environment = "") {
  for (int ranks : {2, 3}) {
    RunResult r = run(launch(ranks, scenario, environment));
    EXPECT_EQ(r.status, 0) << r.output;
    std::string said = what;
    if (size_t at = said.find("{n}"); at != std::string::npos)
      said.replace(at, 3, std::to_string(ranks));
    for (int rank = 0; rank < ranks; ++rank)
      expectContains(r.output,
                     "[rank" + std::to_string(rank) + "]: rank " + std::to_string(rank) + said);
  }
}

TEST(Distributed, EveryCollectiveAgreesAcrossTwoAndThreeRanks) {
  expectEveryRankSays("collectives", " of {n}: collectives agree");
}

TEST(Distributed, ATracedStepAllReducesItsGradientsLikeOneProcessOnTheWholeBatch) {
  expectEveryRankSays("traced-training", ": traced training matches one process");
}

TEST(Distributed, WithoutOverlapEachAllReduceRunsWhereItStarts) {
  // ProcessGroupOptions::overlap_communication = false: the same results.
  expectEveryRankSays("traced-training", ": traced training matches one process",
                      "EMBER_TEST_NO_OVERLAP=1");
}

TEST(Distributed, AllReducesGradientAgreesWithFiniteDifferencesByEveryRoad) {
  RunResult r = run(launch(2, "gradients"));
  EXPECT_EQ(r.status, 0) << r.output;
  for (std::string rank : {"0", "1"})
    expectContains(r.output, "[rank" + rank + "]: rank " + rank +
                                 ": gradients agree with finite differences");
}

TEST(Distributed, AFileStoreServesTheRendezvousToo) {
  std::string store =
      std::filesystem::temp_directory_path() / ("ember-store-" + std::to_string(::getpid()));
  RunResult r = run(launch(2, "collectives", "EMBER_TEST_FILE_STORE=" + store));
  std::filesystem::remove_all(store);
  EXPECT_EQ(r.status, 0) << r.output;
  expectContains(r.output, "[rank1]: rank 1 of 2: collectives agree");
}

TEST(Distributed, ARankKilledMidRunIsNamedByTheOthers) {
  // Through the TCP store and through the file store (process ids); rank 1,
  // then rank 0, which serves the TCP store.
  std::string store =
      std::filesystem::temp_directory_path() / ("ember-store-kill-" + std::to_string(::getpid()));
  for (std::string environment :
       {std::string(""), "EMBER_TEST_FILE_STORE=" + store, std::string("EMBER_TEST_VICTIM=0"),
        std::string("EMBER_TEST_BIG=1")}) {
    std::filesystem::remove_all(store);
    std::string victim = environment.find("VICTIM=0") != std::string::npos ? "0" : "1";
    RunResult r = run(launch(3, "lost-rank", environment));
    EXPECT_NE(r.status, 0) << r.output;
    expectContains(r.output, "ember-run: rank " + victim + " (pid");
    expectContains(r.output, "was killed by signal 9");
    for (std::string rank : {"0", "1", "2"}) {
      if (rank == victim)
        continue;
      expectContains(r.output, "[rank" + rank + "]: rank " + rank + " raised after under 5 s: ");
      expectContains(r.output, "DistributedWorker.cpp:");
    }
    expectContains(r.output, "'ember.all_reduce' op rank " + victim + " of 3 was lost");
    expectContains(r.output, "then: ");
    expectContains(r.output, "ember::distributed::barrier: the process group is broken");
    EXPECT_LT(r.seconds, 20) << r.output;
  }
  std::filesystem::remove_all(store);
}

TEST(Distributed, ARankThatStopsAnsweringIsReportedAfterTheTimeout) {
  RunResult r = run(launch(2, "lost-rank", "EMBER_TEST_HANG=1 EMBER_DISTRIBUTED_TIMEOUT=1"));
  EXPECT_EQ(r.status, 3) << r.output;
  expectContains(r.output, "[rank0]: rank 0 raised after under 5 s: ");
  expectContains(r.output, "'ember.all_reduce' op a rank did not answer within the "
                           "timeout (1 s; none is known to have exited");
}

TEST(Distributed, RanksThatNeverArriveTimeOutTheRendezvous) {
  RunResult r = run(launch(3, "late-rank", "EMBER_DISTRIBUTED_TIMEOUT=1"));
  EXPECT_NE(r.status, 0) << r.output;
  expectContains(r.output, "[rank0]: error: ");
  expectContains(r.output, "ember::distributed::init_process_group: the rendezvous at "
                           "127.0.0.1:");
  expectContains(r.output, "timed out after 1 s: ranks 1, 2 of 3 have not arrived");
}

TEST(Distributed, ARankThatLeftTheGroupIsNamed) {
  RunResult r = run(launch(2, "early-leave"));
  EXPECT_EQ(r.status, 3) << r.output;
  expectContains(r.output, "[rank0]: error: ");
  expectContains(r.output, "'ember.all_reduce' op rank 1 of 2 has left the group "
                           "(destroy_process_group) while this rank still ran collectives: the "
                           "ranks ran different numbers of collectives");
}

TEST(Distributed, RanksThatDisagreeAreNamedUnderDebugDetail) {
  RunResult r = run(launch(3, "mismatch", "EMBER_DISTRIBUTED_DEBUG=DETAIL"));
  EXPECT_EQ(r.status, 3) << r.output;
  for (std::string rank : {"0", "1", "2"})
    expectContains(r.output, "[rank" + rank + "]: error: ");
  expectContains(r.output, "'ember.all_reduce' op the ranks disagree on all_reduce: rank 1 gives "
                           "4 float32 elements (0), rank 0 3 float32 elements (0)");
}

TEST(Distributed, VariablesThatDifferAreRefusedBeforeAnyValueMoves) {
  RunResult r = run(launch(2, "different-variables"));
  EXPECT_EQ(r.status, 3) << r.output;
  for (std::string rank : {"0", "1"})
    expectContains(r.output, "[rank" + rank + "]: error: ");
  expectContains(r.output, "DistributedWorker.cpp:");
  expectContains(r.output, "ember::distributed::broadcast_variables: rank 1's variables differ "
                           "from root 0's: rank 1 has 'dense/kernel: float32 tensor of shape "
                           "(2, 3)', rank 0 'dense/kernel: float32 tensor of shape (2, 2)'");
}

TEST(Distributed, AGroupOfOneInThisProcess) {
  EXPECT_FALSE(dist::is_initialized());
  std::string message = errorOf([] { dist::all_reduce(Tensor({1.f})); });
  expectContains(message, fileLine(__FILE__, __LINE__ - 1));
  expectContains(message, "ember::distributed::all_reduce: the process group is not "
                          "initialized: call ember::distributed::init_process_group() first");

  dist::ProcessGroupOptions options;
  options.init_method = "tcp://127.0.0.1:0"; // rank 0 alone: any free port
  options.rank = 0;
  options.world_size = 1;
  dist::init_process_group(options);
  EXPECT_TRUE(dist::is_initialized());
  EXPECT_EQ(dist::rank(), 0);
  EXPECT_EQ(dist::world_size(), 1);
  EXPECT_EQ(dist::all_reduce(Tensor({1.5f, 2.f}), dist::ReduceOp::Mean).to_vector<float>(),
            std::vector<float>({1.5f, 2.f}));
  EXPECT_EQ(dist::all_gather(Tensor({{1, 2}})).shape(), Shape({1, 2}));
  expectContains(errorOf([&] { dist::init_process_group(options); }),
                 "the process group is already initialized (rank 0 of 1)");
  expectContains(errorOf([] { dist::all_reduce(Tensor({true})); }),
                 "all_reduce: cannot reduce bool tensor of shape (1,)");
  expectContains(errorOf([] {
                   dist::all_reduce(Tensor({1, 2}), dist::ReduceOp::Mean);
                 }),
                 "ReduceOp::Mean needs a floating-point tensor, not int32 tensor of shape (2,)");
  Tensor halfPrecision = cast(Tensor({1.f}), DType::Float16);
  expectContains(errorOf([&] { dist::all_reduce_(halfPrecision); }),
                 "all_reduce_: reduces float32, float64, int32 or int64 tensors in place, not "
                 "float16 tensor of shape (1,)");
  auto inPlaceTraced = function([](const Tensor &x) {
    Tensor y = x;
    dist::all_reduce_(y);
    return y;
  });
  expectContains(errorOf([&] { inPlaceTraced(Tensor({1.f})); }),
                 "all_reduce_: reduces a tensor's buffer in place: inside ember::function, use "
                 "all_reduce");
  expectContains(errorOf([] { dist::reduce_scatter(Tensor(1.f)); }),
                 "dim 0 of float32 tensor of shape () must be a multiple of the world size (1)");
  expectContains(errorOf([] { dist::broadcast(Tensor(1.f), 1); }),
                 "root 1 is not a rank of a world of size 1");
  // Inside a traced function: ember.all_reduce in the compiled code.
  auto traced = function([](const Tensor &x) {
    return dist::all_reduce(x * 2.f, dist::ReduceOp::Mean); // the line named below
  });
  int tracedLine = __LINE__ - 2;
  EXPECT_EQ(traced(Tensor({1.f, 3.f})).to_vector<float>(), std::vector<float>({2.f, 6.f}));
  // A strided operand (a column slice, a view of its input's buffer).
  auto columns = function([](const Tensor &x) {
    return dist::all_reduce(slice(x, {0, 1}, {3, 3}), dist::ReduceOp::Max);
  });
  EXPECT_EQ(columns(Tensor({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})).to_vector<int32_t>(),
            std::vector<int32_t>({2, 3, 5, 6, 8, 9}));
  auto broadcastTraced = function([](const Tensor &x) { return dist::broadcast(x); });
  expectContains(errorOf([&] { broadcastTraced(Tensor({1.f})); }),
                 "ember::distributed::broadcast: cannot take a symbolic tensor (inside "
                 "ember::function) yet");
  dist::destroy_process_group();
  EXPECT_FALSE(dist::is_initialized());
  // Without a group the compiled all_reduce faults, raised at its line.
  try {
    traced(Tensor({1.f, 3.f}));
    ADD_FAILURE() << "expected a DistributedError";
  } catch (const dist::DistributedError &error) {
    expectContains(error.what(), fileLine(__FILE__, tracedLine));
    expectContains(error.what(), "'ember.all_reduce' op ran without a process group: call "
                                 "ember::distributed::init_process_group() first");
  }
  dist::destroy_process_group(); // nothing to do
}

TEST(Distributed, AnIncompleteEnvironmentIsNamed) {
  ::unsetenv("RANK");
  expectContains(errorOf([] { dist::init_process_group(); }),
                 "the environment variable RANK is not set (start the program with ember-run");
  dist::ProcessGroupOptions options;
  options.init_method = "udp://x";
  options.rank = 0;
  options.world_size = 1;
  expectContains(errorOf([&] { dist::init_process_group(options); }),
                 "init_method 'udp://x' is not env://, tcp://host:port or file:///path");
  options.rank = 2;
  expectContains(errorOf([&] { dist::init_process_group(options); }),
                 "rank 2 is not in a world of size 1");
}

} // namespace
