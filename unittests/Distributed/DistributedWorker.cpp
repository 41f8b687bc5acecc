//===- DistributedWorker.cpp - one rank of the distributed tests ----------===//
//
// Started by DistributedTest through ember-run (or with RANK and the rest set
// by hand); argv[1] names the scenario. Each rank checks its own results and
// prints what the test reads; a wrong value exits 1, an ember error prints
// its message and exits 3.
//
//===----------------------------------------------------------------------===//

#include "ember/ember.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <tuple>

#include <unistd.h>

using namespace ember;
namespace dist = ember::distributed;

namespace {

void expect(bool ok, const std::string &what) {
  if (!ok) {
    std::cout << "rank " << dist::rank() << ": WRONG " << what << std::endl;
    std::exit(1);
  }
}

template <typename T>
void expectValues(const Tensor &t, const std::vector<T> &expected, const std::string &what) {
  std::vector<T> got = t.to_vector<T>();
  bool same = got.size() == expected.size();
  for (size_t i = 0; same && i < got.size(); ++i)
    same = std::abs(double(got[i]) - double(expected[i])) <=
           (std::is_floating_point_v<T> && sizeof(T) == 8 ? 1e-5 : 1e-6) *
               (1 + std::abs(double(got[i])));
  expect(same, what + ": got " + t.values_string());
}

/// Every collective, checked against values computed here for every rank.
void everyCollective() {
  int r = dist::rank(), n = dist::world_size();
  double rankSum = n * (n - 1) / 2.0;
  Tensor x = Tensor({1.f, 2.f, 3.f}) * float(r + 1);
  expectValues<float>(dist::all_reduce(x),
                      {float(rankSum + n), float(2 * (rankSum + n)), float(3 * (rankSum + n))},
                      "all_reduce sum");
  expectValues<float>(
      dist::all_reduce(x, dist::ReduceOp::Mean),
      {float((rankSum + n) / n), float(2 * (rankSum + n) / n), float(3 * (rankSum + n) / n)},
      "all_reduce mean");
  expectValues<float>(dist::all_reduce(x, dist::ReduceOp::Max), {float(n), 2.f * n, 3.f * n},
                      "all_reduce max");
  expectValues<float>(dist::all_reduce(x, dist::ReduceOp::Min), {1.f, 2.f, 3.f}, "all_reduce min");
  // In place: every handle to the buffer sees the sum.
  Tensor inPlace = Tensor({1.f, 2.f, 3.f}) * float(r + 1), alias = inPlace;
  dist::all_reduce_(inPlace);
  expectValues<float>(alias,
                      {float(rankSum + n), float(2 * (rankSum + n)), float(3 * (rankSum + n))},
                      "all_reduce_ in place");
  Tensor big = Tensor(int64_t(1) << 40) + Tensor(int64_t(r));
  expectValues<int64_t>(dist::all_reduce(reshape(big, {1})),
                        {n * (int64_t(1) << 40) + int64_t(rankSum)}, "all_reduce int64");
  Tensor half = cast(x, DType::BFloat16);
  Tensor halfSum = dist::all_reduce(half);
  expect(halfSum.dtype() == DType::BFloat16, "bfloat16 all_reduce keeps its dtype");
  expectValues<float>(halfSum,
                      {float(rankSum + n), float(2 * (rankSum + n)), float(3 * (rankSum + n))},
                      "all_reduce bfloat16");
  // Broadcast from the last rank.
  Tensor mine = Tensor({{1, 2}, {3, 4}}) + Tensor(10 * r);
  expectValues<int32_t>(dist::broadcast(mine, n - 1),
                        {1 + 10 * (n - 1), 2 + 10 * (n - 1), 3 + 10 * (n - 1), 4 + 10 * (n - 1)},
                        "broadcast from the last rank");
  // all_gather: rank r gives r + 1 rows of [r, r].
  Tensor rows = full({r + 1, 2}, double(r), DType::Float64);
  Tensor gathered = dist::all_gather(rows);
  std::vector<double> expected;
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < 2 * (k + 1); ++i)
      expected.push_back(k);
  expect(gathered.shape() == Shape({int64_t(expected.size() / 2), 2}), "all_gather's shape");
  expectValues<double>(gathered, expected, "all_gather");
  // reduce_scatter: 2n rows of ones * (r + 1); each rank gets 2 rows of the sum.
  Tensor ones = full({2 * n, 3}, double(r + 1), DType::Float32);
  Tensor part = dist::reduce_scatter(ones);
  expect(part.shape() == Shape({2, 3}), "reduce_scatter's shape");
  expectValues<float>(part, std::vector<float>(6, float(rankSum + n)), "reduce_scatter");
  // Empty tensors pass through.
  expect(dist::all_reduce(zeros({0, 3}, DType::Float32)).shape() == Shape({0, 3}),
         "an empty all_reduce");
  dist::barrier();
  // Variables from rank 0.
  Variable w(full({2, 2}, double(r), DType::Float32), "w"), b(Tensor(int64_t(7 + r)), "b");
  dist::broadcast_variables({w, b});
  expectValues<float>(w.value(), {0, 0, 0, 0}, "broadcast_variables w");
  expectValues<int64_t>(b.value(), {7}, "broadcast_variables b");
  std::cout << "rank " << r << " of " << n << ": collectives agree" << std::endl;
}

/// Linear regression, data parallel: each rank takes its shard of 12
/// examples, and one traced step computes its gradients, all-reduces them
/// (Mean, inside the compiled function) and applies SGD. After 15 steps
/// every rank's weights are the same bits, and equal to one process
/// training on the whole batch. With a bucket per gradient, the traced step
/// starts the bias's all-reduce before it computes the weights' gradient
/// (ember-schedule-collectives), which runs while the bias travels.
void tracedTraining() {
  int r = dist::rank(), n = dist::world_size();
  const int64_t examples = 12, features = 3;
  std::vector<float> xs, ys;
  for (int64_t i = 0; i < examples; ++i) {
    float target = 0.5f;
    for (int64_t j = 0; j < features; ++j) {
      float v = std::sin(float(i * features + j)) * 2.f;
      xs.push_back(v);
      target += v * float(j + 1);
    }
    ys.push_back(target + 0.1f * std::cos(float(i)));
  }
  Tensor x = Tensor::from_vector(xs, {examples, features}),
         y = Tensor::from_vector(ys, {examples, 1});
  // How the gradients are reduced: not at all (the reference, on the whole
  // batch), by all_reduce calls in the step, or by a DistributedGradientTape
  // (traced, or eagerly when `eager`).
  enum Road { Reference, AllReduceCalls, DistributedTape, BucketPerGradient };
  auto train = [&](const Tensor &xb, const Tensor &yb, Road road, bool eager) {
    Variable w(zeros({features, 1}), "w"), b(zeros({1}), "b");
    optimizers::SGD sgd(0.05);
    auto body = [&](const Tensor &xs, const Tensor &ys) {
      std::unique_ptr<GradientTape> tape =
          road == DistributedTape     ? std::make_unique<dist::DistributedGradientTape>()
          : road == BucketPerGradient ? std::make_unique<dist::DistributedGradientTape>(
                                            false, dist::ReduceOp::Mean, /*bucket_cap_mb=*/0)
                                      : std::make_unique<GradientTape>();
      Tensor loss = reduce_mean(square(matmul(xs, w) + b - ys));
      std::vector<Variable> weights = {w, b};
      auto grads = tape->gradient(loss, weights); // virtual: reduced by a distributed tape
      if (road == AllReduceCalls)
        for (std::optional<Tensor> &g : grads)
          g = dist::all_reduce(*g, dist::ReduceOp::Mean);
      sgd.apply_gradients(grads, weights);
      return loss;
    };
    auto step = function(body);
    for (int i = 0; i < 15; ++i)
      eager ? body(xb, yb) : step(xb, yb);
    expect(eager || step.concrete_functions().size() == 1, "one trace");
    if (road == BucketPerGradient) {
      std::string optimized = step.ir_stages(xb, yb).optimized;
      size_t firstReduce = optimized.find("ember.all_reduce"),
             lastMatmul = optimized.rfind("ember.matmul");
      expect(firstReduce != std::string::npos && lastMatmul != std::string::npos &&
                 firstReduce < lastMatmul,
             "the first bucket's all-reduce starts before the last gradient's matmul:\n" +
                 optimized);
    }
    return std::make_pair(w.value(), b.value());
  };
  // This rank's shard: rows r, r + n, ...
  std::vector<int64_t> rows;
  for (int64_t i = r; i < examples; i += n)
    rows.push_back(i);
  Tensor index = Tensor::from_vector(rows, {int64_t(rows.size())});
  auto [wRef, bRef] = train(x, y, Reference, false);
  for (auto [road, eager, name] :
       {std::tuple(AllReduceCalls, false, "all_reduce calls in a traced step"),
        std::tuple(DistributedTape, false, "a DistributedGradientTape in a traced step"),
        std::tuple(BucketPerGradient, false, "a bucket per gradient in a traced step"),
        std::tuple(DistributedTape, true, "an eager DistributedGradientTape")}) {
    auto [w, b] = train(gather(x, index), gather(y, index), road, eager);
    Tensor everyW = dist::all_gather(reshape(w, {1, features}));
    std::vector<float> all = everyW.to_vector<float>();
    for (int k = 1; k < n; ++k)
      for (int64_t j = 0; j < features; ++j)
        expect(all[k * features + j] == all[j],
               std::string(name) + ": the same weights on every rank");
    std::vector<float> got = w.to_vector<float>(), want = wRef.to_vector<float>();
    for (int64_t j = 0; j < features; ++j)
      expect(std::abs(got[j] - want[j]) < 1e-5f,
             std::string(name) + ": weight " + std::to_string(j) + " " + std::to_string(got[j]) +
                 " vs " + std::to_string(want[j]));
    expect(std::abs(b.item<float>() - bRef.item<float>()) < 1e-5f, std::string(name) + ": bias");
  }
  std::cout << "rank " << r << ": traced training matches one process: w = " << wRef.values_string()
            << std::endl;
}

/// all_reduce's gradient against finite differences of the objective over
/// every rank, F = sum over r of sum((r + 1) * tanh(all_reduce(x_r) * x_r)),
/// by every road: an eager tape, a traced gradient, a tape over a compiled
/// function, and nested tapes (the second derivative's diagonal).
void gradients() {
  int r = dist::rank(), n = dist::world_size();
  Tensor x =
      Tensor::from_vector(std::vector<double>{0.3 + 0.1 * r, -0.2 * r, 0.5}, {3}, DType::Float64);
  auto local = [&](const Tensor &v) {
    return reduce_sum(Tensor(double(r + 1), DType::Float64) * tanh(dist::all_reduce(v) * v));
  };
  // F at this rank's x + eps * e_j on rank `who` only, summed over ranks.
  auto objective = [&](int who, int j, double eps) {
    std::vector<double> shifted = x.to_vector<double>();
    if (r == who)
      shifted[j] += eps;
    return dist::all_reduce(local(Tensor::from_vector(shifted, {3}, DType::Float64)))
        .item<double>();
  };
  std::vector<double> expected(3); // this rank's row of dF/dx
  for (int who = 0; who < n; ++who)
    for (int j = 0; j < 3; ++j) {
      double d = (objective(who, j, 1e-6) - objective(who, j, -1e-6)) / 2e-6;
      if (who == r)
        expected[j] = d;
    }
  auto check = [&](const Tensor &g, const std::string &road) {
    expectValues<double>(g, expected, road);
  };
  {
    GradientTape tape;
    tape.watch(x);
    Tensor f = local(x);
    check(*tape.gradient(f, {x})[0], "an eager tape");
  }
  auto traced = function([&](const Tensor &v) {
    GradientTape tape;
    tape.watch(v);
    Tensor f = local(v);
    return *tape.gradient(f, {v})[0];
  });
  check(traced(x), "a traced gradient");
  auto compiled = function(local);
  {
    GradientTape tape;
    tape.watch(x);
    Tensor f = compiled(x);
    check(*tape.gradient(f, {x})[0], "a tape over a compiled function");
  }
  {
    GradientTape outer;
    outer.watch(x);
    GradientTape inner;
    inner.watch(x);
    Tensor f = local(x);
    Tensor g = *inner.gradient(f, {x})[0];
    check(g, "the inner of nested tapes");
    Tensor second = *outer.gradient(reduce_sum(g), {x})[0];
    expect(second.shape() == Shape({3}), "a second derivative");
  }
  std::cout << "rank " << r << ": gradients agree with finite differences" << std::endl;
}

/// Rank EMBER_TEST_VICTIM (default 1) dies (SIGKILL) after the first
/// step, or with EMBER_TEST_HANG stops answering for 6 s; the others' next
/// collective must raise naming it, or the timeout.
void lostRank() {
  const char *victimText = std::getenv("EMBER_TEST_VICTIM");
  int victim = victimText ? std::atoi(victimText) : 1;
  // EMBER_TEST_BIG: 4 MB, which Gloo's ring sends in pieces (a write to the
  // dead peer must raise, not end the process with SIGPIPE).
  Tensor x = std::getenv("EMBER_TEST_BIG") ? full({1 << 20}, 1.0) : Tensor({1.f, 2.f});
  dist::all_reduce(x);
  if (dist::rank() == victim) {
    if (!std::getenv("EMBER_TEST_HANG"))
      ::kill(::getpid(), SIGKILL);
    std::this_thread::sleep_for(std::chrono::seconds(6));
    std::exit(0);
  }
  auto start = std::chrono::steady_clock::now();
  try {
    for (int step = 0; step < 1000; ++step)
      dist::all_reduce(x);
    std::cout << "rank " << dist::rank() << ": no error" << std::endl;
    std::exit(1);
  } catch (const dist::DistributedError &error) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "rank " << dist::rank() << " raised after " << (seconds < 5 ? "under" : "over")
              << " 5 s: " << error.what() << std::endl;
  }
  // The group is broken from then on.
  try {
    dist::barrier();
  } catch (const dist::DistributedError &error) {
    std::cout << "then: " << error.what() << std::endl;
  }
  std::exit(3);
}

/// Rank 1 leaves the group after one all-reduce; rank 0 goes on to a second.
void earlyLeave() {
  dist::all_reduce(Tensor({1.f}));
  if (dist::rank() == 1) {
    dist::destroy_process_group();
    std::exit(0);
  }
  dist::all_reduce(Tensor({1.f}));
  std::cout << "rank 0: no error" << std::endl;
  std::exit(1);
}

/// Rank 1 reduces 4 elements, the others 3 (under EMBER_DISTRIBUTED_DEBUG=DETAIL).
void mismatch() {
  dist::all_reduce(dist::rank() == 1 ? Tensor({1.f, 2.f, 3.f, 4.f}) : Tensor({1.f, 2.f, 3.f}));
  std::cout << "rank " << dist::rank() << ": no error" << std::endl;
  std::exit(1);
}

} // namespace

int main(int argc, char **argv) {
  std::string scenario = argc > 1 ? argv[1] : "";
  try {
    const std::map<std::string, void (*)()> scenarios = {
        {"collectives", everyCollective},
        {"traced-training", tracedTraining},
        {"gradients", gradients},
        {"early-leave", earlyLeave},
        {"mismatch", mismatch},
        {"lost-rank", lostRank},
        // Every rank but 0 arrives after the others' timeout (EMBER_DISTRIBUTED_TIMEOUT).
        {"late-rank", [] {}},
        {"different-variables",
         [] {
           Variable w(zeros({2, dist::rank() == 1 ? 3 : 2}, DType::Float32), "dense/kernel");
           dist::broadcast_variables({w});
         }},
    };
    auto found = scenarios.find(scenario);
    if (found == scenarios.end()) {
      std::cerr << "unknown scenario '" << scenario << "'\n";
      return 2;
    }
    if (scenario == "late-rank" && std::getenv("RANK") && std::string(std::getenv("RANK")) != "0")
      std::this_thread::sleep_for(std::chrono::seconds(4));
    dist::ProcessGroupOptions options;
    if (const char *store = std::getenv("EMBER_TEST_FILE_STORE"))
      options.init_method = std::string("file://") + store;
    options.overlap_communication = !std::getenv("EMBER_TEST_NO_OVERLAP");
    dist::init_process_group(options);
    found->second();
    dist::destroy_process_group();
  } catch (const Error &error) {
    std::cout << "error: " << error.what() << std::endl;
    return 3;
  }
  return 0;
}
