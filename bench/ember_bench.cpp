// ember's side of the foundation benchmarks (bench/RESULTS.md):
//  - eager dispatch on a cache hit: add [1], add [10x10], matmul [10x10] f32
//  - first call of a new signature (compile), median over fresh shapes
//  - elementwise add over 16M f32 (steady state: outputs reuse cached memory)
#include "bench_util.h"

#include "ember/ember.h"

#include <vector>

using namespace ember;

int main() {
  Tensor a1 = random_uniform({1}, 1), b1 = random_uniform({1}, 2);
  Tensor a10 = random_uniform({10, 10}, 3), b10 = random_uniform({10, 10}, 4);
  Tensor warm = a1 + b1;
  warm = a10 + b10;
  warm = matmul(a10, b10);

  auto dispatch = [&](const char *name, auto &&op) {
    Tensor sink;
    double seconds = bench::medianSeconds(9, 200000, [&] { sink = op(); });
    bench::report(name, seconds * 1e6, "us/op");
  };
  dispatch("ember.add_f32_1", [&] { return a1 + b1; });
  dispatch("ember.add_f32_10x10", [&] { return a10 + b10; });
  dispatch("ember.matmul_f32_10x10", [&] { return matmul(a10, b10); });
  // Creation at memory speed (a memcpy per element took 340 us for this one).
  bench::report("ember.ones_f32_1024x64",
                bench::medianSeconds(9, 2000, [&] { return ones({1024, 64}); }) * 1e6, "us/op");

  // Compile time of an elementwise op: the first call of each op compiles
  // its (shape-generic) kernel; a new shape of a seen op compiles nothing.
  std::vector<double> compiles;
  Tensor p = ones({9, 7}), q = full({9, 7}, 2.0f);
  for (auto op : std::initializer_list<Tensor (*)(const Tensor &, const Tensor &)>{
           [](const Tensor &x, const Tensor &y) { return x * y; },
           [](const Tensor &x, const Tensor &y) { return x - y; },
           [](const Tensor &x, const Tensor &y) { return x / y; },
           [](const Tensor &x, const Tensor &y) { return maximum(x, y); },
           [](const Tensor &x, const Tensor &y) { return minimum(x, y); },
           [](const Tensor &x, const Tensor &) { return exp(x); },
           [](const Tensor &x, const Tensor &) { return log(x); },
           [](const Tensor &x, const Tensor &) { return tanh(x); },
           [](const Tensor &x, const Tensor &) { return sigmoid(x); },
           [](const Tensor &x, const Tensor &) { return relu(x); },
           [](const Tensor &x, const Tensor &) { return sqrt(x); },
           [](const Tensor &x, const Tensor &) { return abs(x); },
           [](const Tensor &x, const Tensor &) { return -x; },
           [](const Tensor &x, const Tensor &) { return square(x); },
           [](const Tensor &x, const Tensor &) { return sin(x); }}) {
    double start = bench::now();
    Tensor z = op(p, q);
    compiles.push_back(bench::now() - start);
  }
  std::sort(compiles.begin(), compiles.end());
  bench::report("ember.compile_elementwise_median", compiles[compiles.size() / 2] * 1e3, "ms");
  std::vector<double> matmulCompiles;
  for (int n = 11; n <= 17; ++n) {
    Tensor x = ones({n, n}), y = ones({n, n});
    double start = bench::now();
    Tensor z = matmul(x, y);
    matmulCompiles.push_back(bench::now() - start);
  }
  std::sort(matmulCompiles.begin(), matmulCompiles.end());
  bench::report("ember.compile_matmul_median", matmulCompiles[matmulCompiles.size() / 2] * 1e3,
                "ms");

  const int64_t n = 16 << 20;
  Tensor x = random_uniform({n}, 5), y = random_uniform({n}, 6);
  Tensor z = x + y;
  double seconds = bench::medianSeconds(11, 1, [&] { z = x + y; });
  bench::report("ember.add_f32_16M", seconds * 1e3, "ms");
  seconds = bench::medianSeconds(11, 1, [&] { z = x * y; });
  bench::report("ember.mul_f32_16M", seconds * 1e3, "ms");

  // float32 transcendentals (polynomial approximations, vectorized), 16M.
  seconds = bench::medianSeconds(11, 1, [&] { z = exp(x); });
  bench::report("ember.exp_f32_16M", seconds * 1e3, "ms");
  seconds = bench::medianSeconds(11, 1, [&] { z = tanh(x); });
  bench::report("ember.tanh_f32_16M", seconds * 1e3, "ms");

  // Ops that report faults (integer division by zero, a gather index out
  // of range), 4M elements: EMBER_NUM_THREADS threads.
  Tensor numerators = full({4096, 1024}, 9, DType::Int32), divisors = full({4096, 1024}, 3, DType::Int32);
  Tensor quotients = div(numerators, divisors);
  seconds = bench::medianSeconds(7, 5, [&] { quotients = div(numerators, divisors); });
  bench::report("ember.div_i32_4M", seconds * 1e3, "ms");
  Tensor table = random_uniform({1000}, 7);
  Tensor rows = Tensor::from_vector(std::vector<int32_t>(4 << 20, 7), {4 << 20});
  Tensor gathered = gather(table, rows);
  seconds = bench::medianSeconds(7, 5, [&] { gathered = gather(table, rows); });
  bench::report("ember.gather_4M", seconds * 1e3, "ms");

  KernelCacheStats stats = kernel_cache_stats();
  bench::report("ember.cache_hits", static_cast<double>(stats.hits), "calls");
  bench::report("ember.cache_misses", static_cast<double>(stats.misses), "calls");
}
