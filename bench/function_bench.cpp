// ember's side of the traced-function benchmarks (issue 3, bench/RESULTS.md):
//  - power(x, 100) on a 10x10 int32 matrix (story D8): traced, eager, and the
//    first traced call (trace + compile)
//  - an 8-op elementwise chain with one broadcast over 16M f32, traced
#include "bench_util.h"
#include "power.h"

#include "ember/ember.h"

using namespace ember;

// 8 ops, one broadcast (the [4096] row v over [4096, 4096]).
Tensor chain(const Tensor &x, const Tensor &v) {
  Tensor t = x * v;
  t = t + 1.f;
  t = t * x;
  t = t - 0.5f;
  t = maximum(t, Tensor(0.f));
  t = t * 2.f;
  t = t + x;
  return t / 3.f;
}

// The in-cache chain of issue 10: N elementwise ops on 256x256 f32, one
// fused loop (bench/hand_loops.cpp has the hand-written one).
Tensor longChain(const Tensor &x, int n) {
  Tensor t = x;
  for (int k = 0; k < n; ++k)
    t = k % 3 == 0 ? t * 1.0001f : k % 3 == 1 ? t + 0.5f : maximum(t, x);
  return t;
}

int main() {
  Tensor x = random_uniform({10, 10}, 0, 0, 2, DType::Int32);
  auto tracedPower = function(power, "power");
  double start = bench::now();
  Tensor sink = tracedPower(x, 100);
  bench::report("ember.power_first_call", (bench::now() - start) * 1e3, "ms");
  bench::report("ember.power_traced",
                bench::medianSeconds(7, 1000, [&] { sink = tracedPower(x, 100); }) * 1e3,
                "ms/call");
  sink = power(x, 100);
  bench::report("ember.power_eager",
                bench::medianSeconds(7, 200, [&] { sink = power(x, 100); }) * 1e3, "ms/call");

  Tensor big = random_uniform({4096, 4096}, 1), v = random_uniform({4096}, 2);
  auto tracedChain = function(chain, "chain");
  sink = tracedChain(big, v);
  bench::report("ember.chain_traced",
                bench::medianSeconds(11, 1, [&] { sink = tracedChain(big, v); }) * 1e3, "ms");
  sink = chain(big, v);
  bench::report("ember.chain_eager",
                bench::medianSeconds(5, 1, [&] { sink = chain(big, v); }) * 1e3, "ms");
  // A reduction of 16M f32 to one value (eager: one kernel).
  Tensor flat = random_uniform({16 << 20}, 4);
  sink = reduce_sum(flat);
  bench::report("ember.reduce_sum_16M",
                bench::medianSeconds(11, 1, [&] { reduce_sum(flat).item<float>(); }) * 1e3, "ms");

  Tensor small = random_uniform({256, 256}, 3);
  for (int n : {10, 100}) {
    auto traced = function([n](const Tensor &x) { return longChain(x, n); }, "long_chain");
    sink = traced(small);
    bench::report(n == 10 ? "ember.incache_chain_10" : "ember.incache_chain_100",
                  bench::medianSeconds(11, n == 10 ? 100 : 20, [&] { sink = traced(small); }) * 1e6,
                  "us");
  }
}
