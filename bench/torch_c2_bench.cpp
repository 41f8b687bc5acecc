// LibTorch's side of c2_bench.cpp: the same model, loss, optimizer and batch
// (Conv2d 1->16 3x3 relu, Conv2d 16->16 3x3 relu, mean over H and W, Linear
// 16->10; cross-entropy; Adam 1e-3; 32x1x28x28, channels first as LibTorch
// computes best). Threads: OMP_NUM_THREADS / torch::set_num_threads.
// `torch_c2_bench bf16`: the step under CPU autocast to bfloat16 (float32
// parameters; convolutions and linear layers in bfloat16), c2_bench bf16's peer.
#include "bench_util.h"
#include "torch_c2_net.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <string>

#include <sys/resource.h>

int main(int argc, char **argv) {
  bool bf16 = argc > 1 && std::string(argv[1]) == "bf16";
  if (bf16) {
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
  }
  torch::manual_seed(0);
  auto images = torch::rand({32, 1, 28, 28});
  auto labels = torch::arange(32, torch::kLong) % 10;
  auto net = std::make_shared<C2Net>();
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
  auto step = [&] {
    adam.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(images), labels);
    if (bf16) // the backward pass runs outside autocast, as torch.autocast's scope ends
      at::autocast::set_cpu_enabled(false);
    loss.backward();
    if (bf16)
      at::autocast::set_cpu_enabled(true);
    adam.step();
    return loss;
  };
  step();
  if (bf16) {
    bench::report("torch.c2_bf16_autocast_step", bench::medianSeconds(7, 10, step) * 1e3, "ms");
    return 0;
  }
  bench::report("torch.c2_step", bench::medianSeconds(7, 10, step) * 1e3, "ms");
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  bench::report("torch.c2_peak_rss", usage.ru_maxrss / 1024.0, "MiB");
}
