// The C2 model in LibTorch (channels first): Conv2d 1->16 3x3 relu, Conv2d
// 16->16 3x3 relu, mean over H and W, Linear 16->10, initialized as Keras
// initializes ember's layers (Glorot-uniform kernels, zero biases), shared by
// torch_c2_bench.cpp and torch_c2_train.cpp.
#ifndef EMBER_BENCH_TORCH_C2_NET_H
#define EMBER_BENCH_TORCH_C2_NET_H

#include <torch/torch.h>

#include <string>

struct C2Net : torch::nn::Module {
  torch::nn::Conv2d conv1{torch::nn::Conv2dOptions(1, 16, 3)};
  torch::nn::Conv2d conv2{torch::nn::Conv2dOptions(16, 16, 3)};
  torch::nn::Linear dense{16, 10};
  C2Net() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("dense", dense);
    // LibTorch's default is Kaiming-uniform weights and biases.
    for (auto &p : named_parameters()) {
      if (p.key().find("bias") != std::string::npos)
        torch::nn::init::zeros_(p.value());
      else
        torch::nn::init::xavier_uniform_(p.value());
    }
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv1(x));
    x = torch::relu(conv2(x));
    return dense(x.mean({2, 3}));
  }
};

#endif // EMBER_BENCH_TORCH_C2_NET_H
