//===- JitMain.cpp - ember-gpu-jit: the GPU JIT tests, or its benchmark ---===//
//
// One program (MLIR and LLVM linked in statically are most of its size, and
// what travels to the GPU machine is limited): `ember-gpu-jit [gtest flags]`
// runs unittests/GPU/JitTest.cpp, `ember-gpu-jit --bench` bench/gpu/jit_bench.cpp.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstring>

int runGpuJitBench();

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--bench") == 0)
    return runGpuJitBench();
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
