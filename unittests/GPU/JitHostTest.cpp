//===- JitHostTest.cpp - the host side of the GPU, without a GPU ----------===//
//
// Run by ctest with EMBERRT_CUDA_DRIVER naming the fake driver
// (unittests/runtime/FakeCudaDriver.cpp): "device memory" is host memory and
// kernels do not run, so these tests check what happens on the host — where
// tensors go, copies, errors, and that eager ops, traced functions, control
// flow and gradients compile for the CUDA target and launch their kernels —
// but not what the kernels compute (JitTest.cpp checks that on a GPU).
//
//===----------------------------------------------------------------------===//

#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>

using namespace ember;

namespace {

/// One of the fake driver's counters (-1 without it).
int fakeCount(const char *counter) {
  const char *path = std::getenv("EMBERRT_CUDA_DRIVER");
  void *driver = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  auto count = driver ? reinterpret_cast<int (*)()>(dlsym(driver, counter)) : nullptr;
  return count ? count() : -1;
}
int launches() { return fakeCount("emberFakeCudaLaunches"); }

#define REQUIRE_FAKE_GPU()                                                                         \
  if (!cuda_is_available() || cuda_status().find("Fake GPU") == std::string::npos)                \
  GTEST_SKIP() << "needs EMBERRT_CUDA_DRIVER=<libember-fake-cuda.so> (ctest sets it)"

const Device kGpu("cuda:0");

TEST(GpuJitHost, CopiesKeepValuesAndDevicesAreListed) {
  REQUIRE_FAKE_GPU();
  EXPECT_EQ(list_devices().size(), 2u);
  Tensor x = Tensor({{1, 2, 3}, {4, 5, 6}});
  Tensor onGpu = x.to(kGpu);
  EXPECT_EQ(onGpu.device(), kGpu);
  EXPECT_NE(onGpu.data(), x.data());
  EXPECT_EQ(onGpu.to_vector<int>(), (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(onGpu.to(kGpu).impl(), onGpu.impl());
  EXPECT_EQ(onGpu.cpu().device(), Device("cpu"));
  EXPECT_EQ(onGpu.to_string(), x.to_string());
  EXPECT_EQ(Tensor(7).cuda().item<int>(), 7);
}

TEST(GpuJitHost, OpsRunWhereTheirOperandsAre) {
  REQUIRE_FAKE_GPU();
  Tensor host = Tensor({1.0f, 2.0f}), gpu = host.to(kGpu);
  int before = launches();
  Tensor sum = gpu + gpu;
  EXPECT_EQ(sum.device(), kGpu);
  EXPECT_GT(launches(), before);
  EXPECT_EQ((gpu * 2.0f).device(), kGpu);         // a host scalar follows
  EXPECT_EQ((gpu * Tensor(2.0f)).device(), kGpu); // a 0-d host tensor too
  EXPECT_EQ((host + host).device(), Device("cpu"));
  try {
    (void)maximum(host, gpu);
    FAIL() << "mixed devices accepted";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("JitHostTest.cpp"), std::string::npos) << message;
    EXPECT_NE(message.find("'ember.maximum' op has operands on different devices: operand #0 "
                           "(shape (2,)) is on cpu, operand #1 (shape (2,)) on cuda:0"),
              std::string::npos)
        << message;
  }
  DeviceScope scope(kGpu);
  EXPECT_EQ((host + host).device(), kGpu); // host operands follow the scope
  EXPECT_EQ(zeros({3}).device(), kGpu);
  EXPECT_EQ(Tensor::empty({3}, DType::Float32).device(), kGpu);
}

TEST(GpuJitHost, EagerKernelsAreCachedPerDevice) {
  REQUIRE_FAKE_GPU();
  Tensor x = Tensor({{1.5f, 2.5f}, {3.5f, 4.5f}});
  (void)exp(x);
  KernelCacheStats before = kernel_cache_stats();
  (void)exp(x.to(kGpu)); // same signature, another device: compiled again
  (void)exp(x.to(kGpu));
  (void)exp(x);
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.misses, before.misses + 1);
  EXPECT_EQ(after.hits, before.hits + 2);
  // A cached kernel is launched without asking the driver for it again.
  Tensor y = x.to(kGpu);
  int lookups = fakeCount("emberFakeCudaFunctionLookups"), launched = launches();
  for (int i = 0; i < 10; ++i)
    (void)exp(y);
  EXPECT_EQ(launches(), launched + 10);
  EXPECT_EQ(fakeCount("emberFakeCudaFunctionLookups"), lookups);
}

Tensor crossEntropy(const Tensor &logits, const Tensor &labels) {
  Tensor shifted = logits - reduce_max(logits, {1}, true);
  Tensor logProbs = shifted - log(reduce_sum(exp(shifted), {1}, true));
  return -reduce_mean(reduce_sum(labels * logProbs, {1}));
}

TEST(GpuJitHost, TracedFunctionsControlFlowAndGradientsCompileForTheGpu) {
  REQUIRE_FAKE_GPU();
  Tensor x = random_uniform({16, 8}, 1).to(kGpu), w = random_uniform({8, 4}, 2).to(kGpu);
  Tensor labels =
      cast(equal(reshape(arange(0, 64) % 4, {16, 4}), Tensor(1)), DType::Float32).to(kGpu);
  int before = launches();
  auto step = function(
      [](const Tensor &input, const Tensor &weights, const Tensor &target) {
        Tensor total = fori_loop(
            0, 3, [&](const Tensor &, const Tensor &t) { return t * 0.5f + input; }, input);
        Tensor h = cond(reduce_sum(total) > 0.0f, [&] { return total; }, [&] { return -total; });
        return crossEntropy(matmul(h, weights), target);
      },
      "host_step");
  EXPECT_EQ(step(x, w, labels).device(), kGpu);
  auto grads = value_and_grad([](const Tensor &weights, const Tensor &input, const Tensor &target) {
    return crossEntropy(relu(matmul(input, weights)), target);
  });
  ValueAndGrad r = grads(w, x, labels);
  EXPECT_EQ(r.value.device(), kGpu);
  EXPECT_EQ(r.gradients.at(0).device(), kGpu);
  {
    Variable v(w);
    GradientTape tape;
    Tensor loss = crossEntropy(matmul(x, v), labels);
    std::vector<Tensor> g = tape.gradient(loss, {v}, UnconnectedGradients::Zero);
    EXPECT_EQ(g.at(0).device(), kGpu);
    EXPECT_EQ(g.at(0).shape(), w.shape());
  }
  EXPECT_GT(launches(), before);
}

} // namespace
