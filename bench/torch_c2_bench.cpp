// LibTorch's side of c2_bench.cpp: the same model, loss, optimizer and batch
// (Conv2d 1->16 3x3 relu, Conv2d 16->16 3x3 relu, mean over H and W, Linear
// 16->10; cross-entropy; Adam 1e-3; 32x1x28x28, channels first as LibTorch
// computes best). Threads: OMP_NUM_THREADS / torch::set_num_threads.
#include "bench_util.h"

#include <torch/torch.h>

#include <sys/resource.h>

struct C2Net : torch::nn::Module {
  torch::nn::Conv2d conv1{torch::nn::Conv2dOptions(1, 16, 3)};
  torch::nn::Conv2d conv2{torch::nn::Conv2dOptions(16, 16, 3)};
  torch::nn::Linear dense{16, 10};
  C2Net() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("dense", dense);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv1(x));
    x = torch::relu(conv2(x));
    return dense(x.mean({2, 3}));
  }
};

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
