// LibTorch's side of c2_bench.cpp: the same model, loss, optimizer and batch
// (Conv2d 1->16 3x3 relu, Conv2d 16->16 3x3 relu, mean over H and W, Linear
// 16->10; cross-entropy; Adam 1e-3; 32x1x28x28, channels first as LibTorch
// computes best). Threads: OMP_NUM_THREADS / torch::set_num_threads.
#include "bench_util.h"
#include "torch_c2_net.h"

#include <torch/torch.h>

#include <sys/resource.h>

int main() {
  torch::manual_seed(0);
  auto images = torch::rand({32, 1, 28, 28});
  auto labels = torch::arange(32, torch::kLong) % 10;
  auto net = std::make_shared<C2Net>();
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
  auto step = [&] {
    adam.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(images), labels);
    loss.backward();
    adam.step();
    return loss;
  };
  step();
  bench::report("torch.c2_step", bench::medianSeconds(7, 10, step) * 1e3, "ms");
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  bench::report("torch.c2_peak_rss", usage.ru_maxrss / 1024.0, "MiB");
}
