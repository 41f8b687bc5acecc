// LibTorch's side of distributed_bench.cpp c2: the same model, loss, Adam and
// batch 32 per rank (channels first), its gradients all-reduced by c10d's
// ProcessGroupGloo (PyTorch DDP's CPU engine, on the same Gloo) as DDP does
// for a model this small (one bucket: the gradients flattened, all-reduced,
// averaged, unflattened) after backward. Run under ember-run (RANK,
// WORLD_SIZE; a file store). Threads: OMP_NUM_THREADS / torch::set_num_threads.
#include "bench_util.h"
#include "torch_c2_net.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/torch.h>

#include <cstdlib>
#include <string>

int main() {
  int rank = std::atoi(std::getenv("RANK")), size = std::atoi(std::getenv("WORLD_SIZE"));
  std::string path = "/tmp/torch-distributed-bench-" + std::string(std::getenv("MASTER_PORT"));
  auto store = c10::make_intrusive<c10d::FileStore>(path, size);
  auto options = c10d::ProcessGroupGloo::Options::create();
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);

  torch::manual_seed(rank);
  auto images = torch::rand({32, 1, 28, 28});
  auto labels = torch::arange(32, torch::kLong) % 10;
  auto net = std::make_shared<C2Net>();
  for (auto &p : net->parameters()) { // rank 0's weights everywhere
    std::vector<at::Tensor> one = {p.data()};
    group->broadcast(one)->wait();
  }
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
  auto step = [&] {
    adam.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(images), labels);
    loss.backward();
    std::vector<at::Tensor> grads;
    for (auto &p : net->parameters())
      grads.push_back(p.grad().view({-1}));
    std::vector<at::Tensor> bucket = {torch::cat(grads)};
    group->allreduce(bucket)->wait();
    bucket[0].div_(size);
    int64_t at = 0;
    for (auto &p : net->parameters()) {
      int64_t n = p.grad().numel();
      p.grad().copy_(bucket[0].slice(0, at, at + n).view_as(p.grad()));
      at += n;
    }
    adam.step();
    return loss;
  };
  step();
  double seconds = bench::medianSeconds(7, 10, step);
  if (rank == 0) {
    std::string prefix = "ranks" + std::to_string(size) + ".";
    bench::report((prefix + "torch.c2_step").c_str(), seconds * 1e3, "ms");
    bench::report((prefix + "torch.c2_images_per_s").c_str(), 32.0 * size / seconds, "images/s");
  }
  group->barrier()->wait();
  if (rank == 0)
    std::remove(path.c_str());
}
