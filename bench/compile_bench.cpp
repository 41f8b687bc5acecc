// Compile time against function size (issue 9): the first call (trace +
// compile) of a traced chain of N elementwise ops on 64x64 f32 (`t * 1.0001`,
// `t + 0.5`, `maximum(t, x)` in turn) and of N 32x32 matmuls in a row. Run
// with a fresh disk cache (bench/run.sh sets EMBER_CACHE_DIR to an empty
// directory), so every first call compiles.
#include "bench_util.h"

#include "ember/ember.h"

#include <string>

using namespace ember;

namespace {

/// The first call's time, then (when `runName` is given) the median time of
/// a call once compiled, reported as `runName`.
double firstCallMs(const std::function<Tensor(const Tensor &)> &body, const Tensor &x,
                   const std::string &name, const char *runName = nullptr) {
  auto traced = function(body, name);
  double start = bench::now();
  Tensor result = traced(x);
  result.to_vector<float>(); // waits for the result
  double first = (bench::now() - start) * 1e3;
  if (runName)
    bench::report(runName, bench::medianSeconds(5, 20, [&] { result = traced(x); }) * 1e3, "ms");
  return first;
}

} // namespace

int main() {
  Tensor x = ones({64, 64}) * 0.5f;
  for (int n : {300, 1000, 3000}) {
    auto chain = [n](const Tensor &input) {
      Tensor t = input;
      for (int i = 0; i < n; ++i)
        t = i % 3 == 0 ? t * 1.0001f : i % 3 == 1 ? t + 0.5f : maximum(t, input);
      return t;
    };
    bench::report(("ember.compile_chain_" + std::to_string(n)).c_str(),
                  firstCallMs(chain, x, "chain" + std::to_string(n)), "ms");
  }
  Tensor m = ones({32, 32}) * 0.03125f;
  for (int n : {100, 300}) {
    auto matmuls = [n](const Tensor &input) {
      Tensor t = input;
      for (int i = 0; i < n; ++i)
        t = matmul(t, input);
      return t;
    };
    std::string run = "ember.run_matmuls_" + std::to_string(n);
    bench::report(("ember.compile_matmuls_" + std::to_string(n)).c_str(),
                  firstCallMs(matmuls, m, "matmuls" + std::to_string(n), run.c_str()), "ms");
  }
}
