// LibTorch's side of the foundation benchmarks, same sizes and method as
// ember_bench.cpp. Run with OPENBLAS_CORETYPE=SkylakeX ATEN_CPU_CAPABILITY=avx512
// (bench/run.sh does).
#include "bench_util.h"

#include <torch/torch.h>

int main() {
  torch::NoGradGuard noGrad;
  torch::manual_seed(0);
  auto a1 = torch::rand({1}), b1 = torch::rand({1});
  auto a10 = torch::rand({10, 10}), b10 = torch::rand({10, 10});
  auto dispatch = [&](const char *name, auto &&op) {
    torch::Tensor sink = op();
    double seconds = bench::medianSeconds(9, 200000, [&] { sink = op(); });
    bench::report(name, seconds * 1e6, "us/op");
  };
  dispatch("torch.add_f32_1", [&] { return a1 + b1; });
  dispatch("torch.add_f32_10x10", [&] { return a10 + b10; });
  dispatch("torch.matmul_f32_10x10", [&] { return torch::matmul(a10, b10); });

  // power(x, 100), 10x10 int32 (story D8)
  auto m = torch::randint(0, 2, {10, 10}, torch::kInt32);
  auto power = [&] {
    auto result = torch::eye(10, torch::kInt32);
    for (int i = 0; i < 100; ++i)
      result = torch::matmul(result, m);
    return result;
  };
  torch::Tensor p = power();
  bench::report("torch.power_eager", bench::medianSeconds(7, 200, [&] { p = power(); }) * 1e3,
                "ms/call");

  // The 8-op chain with one broadcast of function_bench.cpp, eager.
  auto big = torch::rand({4096, 4096}), v = torch::rand({4096});
  auto chain = [&] {
    auto t = big * v;
    t = t + 1.f;
    t = t * big;
    t = t - 0.5f;
    t = torch::clamp_min(t, 0.f);
    t = t * 2.f;
    t = t + big;
    return t / 3.f;
  };
  torch::Tensor c = chain();
  bench::report("torch.chain_eager", bench::medianSeconds(5, 1, [&] { c = chain(); }) * 1e3, "ms");

  const int64_t n = 16 << 20;
  auto x = torch::rand({n}), y = torch::rand({n});
  torch::Tensor z = x + y;
  bench::report("torch.add_f32_16M",
                bench::medianSeconds(11, 1, [&] { z = x + y; }) * 1e3, "ms");
  bench::report("torch.mul_f32_16M",
                bench::medianSeconds(11, 1, [&] { z = x * y; }) * 1e3, "ms");
}
