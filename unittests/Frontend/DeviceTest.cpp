//===- DeviceTest.cpp - devices, scopes and the CUDA compile path ---------===//
//
// What can be checked on a machine without a GPU: device names, scopes, the
// errors for a GPU that is not there, and that the JIT compiles eager ops and
// traced functions for the CUDA target (PTX embedded in host code, linked,
// its initializer run). unittests/GPU/JitTest.cpp runs them on a GPU.
//
//===----------------------------------------------------------------------===//

#include "ember/ember.h"
#include "ember/JIT/KernelCompiler.h"
#include "emberrt/cuda.h"

#include <gtest/gtest.h>

using namespace ember;

namespace {

TEST(Device, NamesAsPyTorchAndTensorFlowSpellThem) {
  EXPECT_EQ(Device("cpu"), Device());
  EXPECT_EQ(Device("cuda"), Device(DeviceType::CUDA, 0));
  EXPECT_EQ(Device("cuda:0").str(), "cuda:0");
  EXPECT_EQ(Device("GPU:0"), Device("cuda:0"));
  EXPECT_EQ(Device("/device:GPU:1").index(), 1);
  EXPECT_EQ(Device("/CPU:0"), Device("cpu"));
  // TensorFlow's full names (tensor.device, tf.config.list_logical_devices).
  EXPECT_EQ(Device("/job:localhost/replica:0/task:0/device:GPU:0"), Device("cuda:0"));
  EXPECT_EQ(Device("/job:localhost/replica:0/task:0/device:CPU:0"), Device("cpu"));
  EXPECT_EQ(Device("/job:localhost/device:GPU:1").index(), 1);
  EXPECT_TRUE(Device("cuda:0").is_cuda());
  EXPECT_TRUE(Device().is_cpu());
  for (const char *bad : {"tpu", "cuda:", "cuda:x", "cpu:1", "", "cuda:0:1",
                          "/job:worker/replica:0/task:0/device:GPU:0",
                          "/job:localhost/replica:1/task:0/device:GPU:0"})
    EXPECT_THROW(Device{std::string_view(bad)}, Error) << bad;
  try {
    Device d("tpu:0");
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("unknown device 'tpu:0'"), std::string::npos)
        << e.what();
  }
}

TEST(Device, ListsTheHostFirstAndTheGpuWhenThereIsOne) {
  std::vector<Device> devices = list_devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices[0], Device("cpu"));
  EXPECT_EQ(devices.size(), cuda_is_available() ? 2u : 1u);
  EXPECT_FALSE(cuda_status().empty());
}

TEST(Device, ScopesNestPerThread) {
  EXPECT_EQ(current_device(), Device("cpu"));
  {
    DeviceScope outer("cuda:0");
    EXPECT_EQ(current_device(), Device("cuda:0"));
    {
      DeviceScope inner("cpu");
      EXPECT_EQ(current_device(), Device("cpu"));
    }
    EXPECT_EQ(current_device(), Device("cuda:0"));
  }
  EXPECT_EQ(current_device(), Device("cpu"));
}

TEST(Device, HostTensorsStayOnTheHost) {
  Tensor x = Tensor({1.0f, 2.0f});
  EXPECT_EQ(x.device(), Device("cpu"));
  Tensor same = x.to("cpu");
  EXPECT_EQ(same.impl(), x.impl()); // no copy
  EXPECT_EQ((x + 1.0f).device(), Device("cpu"));
  {
    DeviceScope cpu("cpu"); // an explicit host scope changes nothing
    EXPECT_EQ((x * 2.0f).to_vector<float>(), (std::vector<float>{2, 4}));
  }
  synchronize(); // nothing queued; fine with or without a GPU
}

TEST(Device, AMissingGpuIsAClearError) {
  if (cuda_is_available())
    GTEST_SKIP() << "this machine has a GPU: " << cuda_status();
  Tensor x = Tensor({1.0f, 2.0f});
  try {
    (void)x.to("cuda");
    FAIL() << "copied to a GPU that is not there";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("device cuda:0 is not available"), std::string::npos)
        << e.what();
  }
  DeviceScope gpu("cuda");
  EXPECT_THROW((void)Tensor({1, 2}), Error);
  EXPECT_THROW((void)(x + x), Error);
}

TEST(Device, TheJitCompilesEagerOpsForCuda) {
  // Without a GPU the kernel loads fail (recorded by the runtime), but
  // everything before them runs: ember -> NVVM -> PTX embedded in host code,
  // translated, compiled, linked, the entry point found.
  trace::TensorSpec spec;
  spec.dtype = DType::Float32;
  spec.rank = 2;
  spec.dims[0] = 4;
  spec.dims[1] = 8;
  trace::TensorSpec inputs[] = {spec, spec};
  jit::KernelRequest request;
  request.opName = "ember.add";
  request.inputs = inputs;
  request.target = jit::Target::Cuda;
  jit::CompiledKernel kernel;
  std::string error;
  ASSERT_TRUE(jit::compileKernel(request, kernel, error)) << error;
  EXPECT_NE(kernel.entry, nullptr);
  EXPECT_EQ(kernel.result.rank, 2);
  if (!cuda_is_available())
    EXPECT_NE(std::string(emberrt_cuda_last_error()), "");
  emberrt_cuda_clear_error();
}

} // namespace
