// Story E1: multiply a 1000x1000 matrix by itself 200 times on the CPU and,
// where there is one, on the GPU, printing both times (TensorFlow's guide:
// "Explicit device placement"). Placement is explicit with a device scope;
// the GPU's result is copied back and compared with the CPU's.
// Usage: e1_device_placement [loops] (200 by default).
#include "ember/ember.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

using ember::Tensor;

double timeMatmul(const Tensor &x, int loops, Tensor &result) {
  result = ember::matmul(x, x); // compiles the kernel once
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < loops; ++i)
    result = ember::matmul(x, x);
  ember::synchronize(); // GPU ops are queued: wait for them to finish
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int main(int argc, char **argv) {
  int loops = argc > 1 ? std::atoi(argv[1]) : 200;
  Tensor cpuResult, gpuResult;
  {
    ember::DeviceScope cpu("CPU:0");
    Tensor x = ember::random_uniform({1000, 1000}, /*seed=*/1);
    std::cout << "On CPU: " << loops << " loops: " << timeMatmul(x, loops, cpuResult) * 1e3
              << " ms\n";
  }
  if (!ember::cuda_is_available()) {
    std::cout << "No GPU (" << ember::cuda_status() << "): only the CPU ran.\n";
    return 0;
  }
  {
    ember::DeviceScope gpu("GPU:0");
    Tensor x = ember::random_uniform({1000, 1000}, /*seed=*/1); // created on the GPU
    std::cout << "On GPU: " << loops << " loops: " << timeMatmul(x, loops, gpuResult) * 1e3
              << " ms\n";
  }
  float difference = ember::reduce_max(ember::abs(gpuResult.cpu() - cpuResult)).item<float>();
  std::cout << "GPU result on " << gpuResult.device().str()
            << ", largest difference from the CPU's: " << (difference < 1e-2f ? "< 0.01" : "too large")
            << "\n";
}
