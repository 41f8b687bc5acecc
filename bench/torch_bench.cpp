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

  const int64_t n = 16 << 20;
  auto x = torch::rand({n}), y = torch::rand({n});
  torch::Tensor z = x + y;
  bench::report("torch.add_f32_16M",
                bench::medianSeconds(11, 1, [&] { z = x + y; }) * 1e3, "ms");
  bench::report("torch.mul_f32_16M",
                bench::medianSeconds(11, 1, [&] { z = x * y; }) * 1e3, "ms");
}
