//===- JitMain.cpp - ember-gpu-jit: the GPU JIT tests, or its benchmark ---===//
//
// One program (MLIR and LLVM linked in statically are most of its size, and
// what travels to the GPU machine is limited): `ember-gpu-jit [gtest flags]`
// runs unittests/GPU/JitTest.cpp, `ember-gpu-jit --bench` bench/gpu/jit_bench.cpp,
// `ember-gpu-jit --c2 [flags]` examples/c2_image_classifier.cpp.
//
//===----------------------------------------------------------------------===//

#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cstring>

int runGpuJitBench();
int emberC2ExampleMain(int argc, char **argv);

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--bench") == 0)
    return runGpuJitBench();
  if (argc > 1 && std::strcmp(argv[1], "--c2") == 0)
    return emberC2ExampleMain(argc - 1, argv + 1);
  // The tests compare float32 matmuls with the CPU's to 1e-4 or closer: as
  // TensorFlow's own GPU tests do, without TF32, except where a test turns
  // it on (GpuJit.TensorFloat32MatmulsFollowTheSwitch).
  ember::enable_tensor_float_32_execution(false);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
