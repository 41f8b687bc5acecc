// LibTorch's side of the foundation benchmarks, same sizes and method as
// ember_bench.cpp. Run with OPENBLAS_CORETYPE=SkylakeX ATEN_CPU_CAPABILITY=avx512
// (bench/run.sh does).
#include "bench_util.h"
#include "torch_c2_net.h"

#include <torch/torch.h>

#include <algorithm>
#include <string>

int main(int argc, char **argv) {
  // `torch_bench mlp`: only the training step (bench/run.sh alternates it
  // with ember's, so that both see the same machine load).
  bool mlpOnly = argc > 1 && std::string(argv[1]) == "mlp";
  torch::NoGradGuard noGrad;
  torch::manual_seed(0);
  // `torch_bench sgemm`: square float32 matmuls only, on OMP_NUM_THREADS
  // threads (bench/run.sh runs it at 1 and 2 threads).
  if (argc > 1 && std::string(argv[1]) == "sgemm") {
    for (int n : {256, 1024, 4096}) {
      auto a = torch::rand({n, n}), b = torch::rand({n, n});
      torch::Tensor c;
      bench::report(("torch.sgemm_gflops_" + std::to_string(n)).c_str(),
                    bench::sgemmGflops(n, [&] { c = torch::mm(a, b); }), "GFLOP/s");
    }
    return 0;
  }
  // `torch_bench sweep`: shape_bench.cpp's sweep (64 row counts of
  // relu(x * w + b) and a row sum), twice.
  if (argc > 1 && std::string(argv[1]) == "sweep") {
    auto w = torch::rand({64}), b = torch::rand({64});
    std::vector<torch::Tensor> xs;
    for (int64_t rows = 1000; rows < 1064; ++rows)
      xs.push_back(torch::rand({rows, 64}));
    auto pass = [&] {
      double start = bench::now();
      for (const auto &x : xs) {
        auto y = torch::relu(x * w + b).sum(1);
        (void)y.data_ptr<float>();
      }
      return bench::now() - start;
    };
    double first = pass();
    double second = pass();
    bench::report("torch.sweep64_first_ms", first * 1e3, "ms");
    bench::report("torch.sweep64_second_ms", second * 1e3, "ms");
    return 0;
  }
  // `torch_bench mlp100`: shape_bench.cpp's mlp100 (batch sizes 1 to 100).
  if (argc > 1 && std::string(argv[1]) == "mlp100") {
    auto w1 = torch::rand({784, 128}), b1 = torch::rand({128});
    auto w2 = torch::rand({128, 10}), b2 = torch::rand({10});
    std::vector<torch::Tensor> batches;
    for (int64_t n = 1; n <= 100; ++n)
      batches.push_back(torch::rand({n, 784}));
    double start = bench::now();
    for (const auto &x : batches) {
      auto logits = torch::matmul(torch::relu(torch::matmul(x, w1) + b1), w2) + b2;
      (void)logits.data_ptr<float>();
    }
    bench::report("torch.mlp100_ms", (bench::now() - start) * 1e3, "ms");
    return 0;
  }
  // `torch_bench loop`: shape_bench.cpp's loop (the MLP on one batch of 256,
  // the median call of the last 100 of 800).
  if (argc > 1 && std::string(argv[1]) == "loop") {
    auto w1 = torch::rand({784, 128}), b1 = torch::rand({128});
    auto w2 = torch::rand({128, 10}), b2 = torch::rand({10});
    auto x = torch::rand({256, 784});
    std::vector<double> calls;
    for (int i = 0; i < 800; ++i) {
      double start = bench::now();
      (void)(torch::matmul(torch::relu(torch::matmul(x, w1) + b1), w2) + b2).data_ptr<float>();
      if (i >= 700)
        calls.push_back(bench::now() - start);
    }
    std::sort(calls.begin(), calls.end());
    bench::report("torch.loop256_last_block_median_us", calls[50] * 1e6, "us");
    return 0;
  }
  // `torch_bench c2predict100`: shape_bench.cpp's c2 predictions (the C2
  // model on batch sizes 1 to 100, channels first).
  if (argc > 1 && std::string(argv[1]) == "c2predict100") {
    auto net = std::make_shared<C2Net>();
    std::vector<torch::Tensor> batches;
    for (int64_t n = 1; n <= 100; ++n)
      batches.push_back(torch::rand({n, 1, 28, 28}));
    double start = bench::now();
    for (const auto &x : batches)
      (void)net->forward(x).data_ptr<float>();
    bench::report("torch.c2_predict100_ms", (bench::now() - start) * 1e3, "ms");
    return 0;
  }
  // `torch_bench half`: float32, float16 and bfloat16 matmul 1024 and add of
  // 16M (LibTorch 1.13 has no float16 matmul on the CPU: no row).
  if (argc > 1 && std::string(argv[1]) == "half") {
    for (auto [name, dtype] : {std::pair{"float32", torch::kFloat}, {"float16", torch::kHalf},
                               {"bfloat16", torch::kBFloat16}}) {
      auto a = torch::rand({1024, 1024}).to(dtype), b = torch::rand({1024, 1024}).to(dtype);
      torch::Tensor c;
      try {
        bench::report((std::string("torch.matmul_gflops_1024_") + name).c_str(),
                      bench::sgemmGflops(1024, [&] { c = torch::mm(a, b); }), "GFLOP/s");
      } catch (const c10::Error &) {
        std::fprintf(stderr, "LibTorch: no %s matmul on the CPU\n", name);
      }
      auto x = torch::rand({16 << 20}).to(dtype), y = torch::rand({16 << 20}).to(dtype);
      c = x + y;
      bench::report((std::string("torch.add_16M_") + name).c_str(),
                    bench::medianSeconds(11, 1, [&] { c = x + y; }) * 1e3, "ms");
    }
    return 0;
  }
  if (!mlpOnly) {
    auto a1 = torch::rand({1}), b1 = torch::rand({1});
    auto a10 = torch::rand({10, 10}), b10 = torch::rand({10, 10});
    auto dispatch = [&](const char *name, auto &&op) {
      torch::Tensor sink = op();
      double seconds = bench::medianSeconds(9, 200000, [&] { sink = op(); });
      bench::report(name, seconds * 1e6, "us/op");
    };
    dispatch("torch.add_f32_1", [&] { return a1 + b1; });
    dispatch("torch.add_f32_10x10", [&] { return a10 + b10; });
    bench::report("torch.ones_f32_1024x64",
                  bench::medianSeconds(9, 2000, [&] { return torch::ones({1024, 64}); }) * 1e6,
                  "us/op");
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
  }

  // One SGD step of an MLP 784-256-256-10, batch 64, autograd (issue 4).
  {
    torch::manual_seed(1);
    auto input = torch::rand({64, 784});
    auto labels = torch::arange(64, torch::kLong) % 10;
    std::vector<torch::Tensor> params = {torch::randn({784, 256}) * 0.05, torch::zeros({256}),
                                         torch::randn({256, 256}) * 0.05, torch::zeros({256}),
                                         torch::randn({256, 10}) * 0.05, torch::zeros({10})};
    for (auto &p : params)
      p.set_requires_grad(true);
    auto step = [&] {
      torch::AutoGradMode enable(true);
      auto h1 = torch::relu(torch::matmul(input, params[0]) + params[1]);
      auto h2 = torch::relu(torch::matmul(h1, params[2]) + params[3]);
      auto logits = torch::matmul(h2, params[4]) + params[5];
      auto loss = torch::nn::functional::cross_entropy(logits, labels);
      loss.backward();
      torch::NoGradGuard noGrad;
      for (auto &p : params) {
        p.sub_(p.grad() * 0.01);
        p.grad().zero_();
      }
    };
    step();
    bench::report("torch.mlp_step", bench::medianSeconds(7, 10, step) * 1e3, "ms");
  }

  if (mlpOnly)
    return 0;

  // The MLP step's matmul shapes (bench/matmul_bench.cpp times ember's).
  {
    const int shapes[][3] = {{64, 784, 256}, {64, 256, 256}, {784, 64, 256},
                             {256, 64, 256}, {64, 256, 784}, {64, 256, 10}};
    for (const auto &s : shapes) {
      auto a = torch::rand({s[0], s[1]}), b = torch::rand({s[1], s[2]});
      torch::Tensor c = torch::matmul(a, b);
      double seconds = bench::medianSeconds(7, 20, [&] { c = torch::matmul(a, b); });
      std::string name = "torch.matmul_gflops_" + std::to_string(s[0]) + "x" +
                         std::to_string(s[1]) + "x" + std::to_string(s[2]);
      bench::report(name.c_str(), 2.0 * s[0] * s[1] * s[2] / seconds / 1e9, "GFLOP/s");
    }
  }

  const int64_t n = 16 << 20;
  auto x = torch::rand({n}), y = torch::rand({n});
  torch::Tensor z = x + y;
  bench::report("torch.add_f32_16M",
                bench::medianSeconds(11, 1, [&] { z = x + y; }) * 1e3, "ms");
  bench::report("torch.mul_f32_16M",
                bench::medianSeconds(11, 1, [&] { z = x * y; }) * 1e3, "ms");
  bench::report("torch.exp_f32_16M", bench::medianSeconds(11, 1, [&] { z = torch::exp(x); }) * 1e3,
                "ms");
  bench::report("torch.reduce_sum_16M",
                bench::medianSeconds(11, 1, [&] { torch::sum(x).item<float>(); }) * 1e3, "ms");
  bench::report("torch.tanh_f32_16M",
                bench::medianSeconds(11, 1, [&] { z = torch::tanh(x); }) * 1e3, "ms");
}
