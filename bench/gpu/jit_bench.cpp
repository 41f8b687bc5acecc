//===- jit_bench.cpp - the front end on the GPU, timed ---------------------===//
//
// Eager ops and traced functions on cuda:0 through the JIT (part of the
// ember-gpu-jit program that scripts/gpu-bundle.sh carries to the GPU
// machine; `ember-gpu-jit --bench` runs this). Host wall time per call: calls
// queue their kernels and return, so a sample of N calls ends with one
// synchronize. The same run's ember-gpu-bench measures the driver's floor
// (an empty kernel launched back to back) and torch_peer.py PyTorch.
//
//===----------------------------------------------------------------------===//

#include "../bench_util.h"
#include "c2.h"
#include "ember/ember.h"
#include "mlp.h"

#include <cstdio>
#include <cstdlib>

using namespace ember;

namespace {
template <typename F> double asyncSeconds(int repeats, long iterations, F &&body) {
  return bench::medianSeconds(repeats, 1, [&] {
           for (long i = 0; i < iterations; ++i)
             body();
           synchronize();
         }) /
         static_cast<double>(iterations);
}

template <typename F> double firstCallMs(F &&body) {
  double start = bench::now();
  body();
  synchronize();
  return (bench::now() - start) * 1e3;
}

Tensor chain(const Tensor &x) {
  Tensor t = x;
  for (int op = 0; op < 8; ++op)
    t = op % 3 == 0 ? t * 1.0001f : op % 3 == 1 ? t + 0.5f : maximum(t, x);
  return t;
}

Tensor power(const Tensor &x, int y) {
  Tensor result = eye(x.size(0), x.dtype());
  for (int i = 0; i < y; ++i)
    result = matmul(result, x);
  return result;
}

} // namespace

int runGpuJitBench() {
  if (!cuda_is_available()) {
    std::printf("no GPU: %s\n", cuda_status().c_str());
    return 0;
  }
  std::printf("%s\n", cuda_status().c_str());
  const Device gpu("cuda:0");
  // EMBER_GPU_BENCH_C2_BATCH=n: only story C2's step at batch n, 10 times
  // (for a profiler: `ncu ... ember-gpu-jit --bench` sees its kernels alone).
  if (const char *text = std::getenv("EMBER_GPU_BENCH_C2_BATCH")) {
    int64_t batch = std::atoll(text);
    c2::Trainer trainer(gpu, batch);
    Tensor images = c2::images(batch).to(gpu), classes = c2::labels(batch).to(gpu);
    for (int i = 0; i < 10; ++i)
      (void)trainer.step(images, classes);
    synchronize();
    return 0;
  }

  // An eager op: add [10x10] f32, its kernel cached.
  Tensor a = random_uniform({10, 10}, 1).to(gpu), b = random_uniform({10, 10}, 2).to(gpu);
  bench::report("jit.eager_add_10x10_first_call", firstCallMs([&] { (void)(a + b); }), "ms");
  bench::report("jit.eager_add_10x10", asyncSeconds(7, 20000, [&] { (void)(a + b); }) * 1e6, "us");
  bench::report("jit.eager_add_10x10_synchronized",
                bench::medianSeconds(7, 2000, [&] {
                  (void)(a + b);
                  synchronize();
                }) * 1e6,
                "us");

  // power(x, 100), 10x10 f32, traced.
  auto tracedPower = function([](const Tensor &x) { return power(x, 100); }, "power");
  Tensor p = random_uniform({10, 10}, 3, -0.3, 0.3).to(gpu);
  bench::report("jit.power100_first_call", firstCallMs([&] { (void)tracedPower(p); }), "ms");
  bench::report("jit.power100", asyncSeconds(7, 200, [&] { (void)tracedPower(p); }) * 1e6, "us");

  // The 8-op chain on 16384x4096 f32, traced: one kernel, bytes read + written.
  auto tracedChain = function(chain, "chain8");
  Tensor big = random_uniform({16384, 4096}, 4).to(gpu);
  bench::report("jit.chain8_first_call", firstCallMs([&] { (void)tracedChain(big); }), "ms");
  double chainSeconds = asyncSeconds(7, 20, [&] { (void)tracedChain(big); });
  bench::report("jit.chain8_16384x4096", chainSeconds * 1e3, "ms");
  bench::report("jit.chain8_16384x4096_bandwidth",
                2.0 * 16384 * 4096 * sizeof(float) / chainSeconds * 1e-12, "TB/s");

  // The MLP 784-256-256-10 training step, batch 64, traced whole.
  std::vector<Variable> vars;
  for (const Tensor &param : mlp::parameters())
    vars.emplace_back(param.to(gpu));
  auto step = mlp::tracedStep(vars, 0.01f);
  Tensor x = random_uniform({64, 784}, 1).to(gpu), labels = mlp::labels().to(gpu);
  bench::report("jit.mlp_step_first_call", firstCallMs([&] { (void)step(x, labels); }), "ms");
  bench::report("jit.mlp_step", asyncSeconds(7, 100, [&] { (void)step(x, labels); }) * 1e6, "us");

  // A 64 MB batch to the GPU from pageable memory (a plain host tensor: the
  // driver stages it) and from page-locked memory (pin_memory, queued);
  // torch_peer.py copies from PyTorch's pinned memory beside it.
  Tensor batch64 = random_uniform({16 << 20}, 6);
  Tensor pinned = batch64.pin_memory();
  double pageable = bench::medianSeconds(7, 5, [&] { (void)batch64.to(gpu); });
  double fromPinned = asyncSeconds(7, 10, [&] { (void)pinned.to(gpu); });
  bench::report("jit.copy_64mb_pageable", batch64.nbytes() / pageable * 1e-9, "GB/s");
  bench::report("jit.copy_64mb_pinned", batch64.nbytes() / fromPinned * 1e-9, "GB/s");

  // A float32 GEMM 4096 through the JIT on tensor cores with TF32 (on by
  // default, as in TensorFlow) and without; torch_peer.py times cuBLAS's
  // TF32 GEMM beside it.
  Tensor g4096 = full({4096, 4096}, 0.5f).to(gpu);
  for (bool tf32 : {true, false}) {
    enable_tensor_float_32_execution(tf32);
    (void)matmul(g4096, g4096);
    double seconds = asyncSeconds(5, 5, [&] { (void)matmul(g4096, g4096); });
    std::string name = tf32 ? "jit.tf32gemm4096" : "jit.sgemm4096";
    bench::report(name.c_str(), seconds * 1e3, "ms");
    bench::report((name + "_rate").c_str(), 2.0 * 4096 * 4096 * 4096 / seconds / 1e12, "TFLOP/s");
  }
  enable_tensor_float_32_execution(true);

  // A dense layer, relu(x w + b), traced for one batch size and under an
  // input signature with a None batch (one compile for every batch): the
  // generic kernels' cost at 4096 rows (TF32 matmuls).
  auto denseLayer = [](const Tensor &x, const Tensor &w, const Tensor &b) {
    return relu(matmul(x, w) + b);
  };
  Tensor dw = random_uniform({1024, 1024}, 7).to(gpu), db = random_uniform({1024}, 8).to(gpu);
  Tensor dx = random_uniform({4096, 1024}, 9).to(gpu);
  auto staticDense = function(denseLayer, "dense_static");
  auto noneDense = function(
      denseLayer, "dense_none",
      {.input_signature = {TensorSpec({kNone, 1024}, kFloat32), TensorSpec({1024, 1024}, kFloat32),
                           TensorSpec({1024}, kFloat32)}});
  for (auto [name, traced] : {std::pair{"jit.dense_gemm_4096_static", &staticDense},
                              std::pair{"jit.dense_gemm_4096_none_batch", &noneDense}}) {
    (void)(*traced)(dx, dw, db);
    double seconds = asyncSeconds(5, 10, [&] { (void)(*traced)(dx, dw, db); });
    bench::report(name, seconds * 1e6, "us");
  }

  // The same layer's weight gradient x^T dz, summed over the batch: for 4096
  // rows and for a None batch (K `?`: tiles whose reduction is split among
  // blocks as counted at the call; they were a thread per element of dW),
  // float32 without TF32 in both (a `?` K is not on tensor cores).
  enable_tensor_float_32_execution(false);
  auto weightGradient = [](const Tensor &x, const Tensor &dz) { return matmul(transpose(x), dz); };
  Tensor dz = random_uniform({4096, 1024}, 10).to(gpu);
  auto staticGradient = function(weightGradient, "weight_gradient_static");
  auto noneGradient = function(weightGradient, "weight_gradient_none",
                               {.input_signature = {TensorSpec({kNone, 1024}, kFloat32),
                                                    TensorSpec({kNone, 1024}, kFloat32)}});
  for (auto [name, traced] : {std::pair{"jit.weight_gradient_4096_static", &staticGradient},
                              std::pair{"jit.weight_gradient_4096_none_batch", &noneGradient}}) {
    (void)(*traced)(dx, dz);
    double seconds = asyncSeconds(5, 10, [&] { (void)(*traced)(dx, dz); });
    bench::report(name, seconds * 1e6, "us");
    bench::report((std::string(name) + "_rate").c_str(), 2.0 * 4096 * 1024 * 1024 / seconds / 1e12,
                  "TFLOP/s");
  }
  enable_tensor_float_32_execution(true);

  // Story C2's training step (conv2d, pooling, their gradients, sparse
  // softmax cross-entropy, Adam), traced whole, at batches of 32 and 256.
  for (int64_t batch : {32, 256}) {
    c2::Trainer trainer(gpu, batch);
    Tensor images = c2::images(batch).to(gpu), classes = c2::labels(batch).to(gpu);
    std::string name = "jit.c2_step_batch" + std::to_string(batch);
    bench::report((name + "_first_call").c_str(),
                  firstCallMs([&] { (void)trainer.step(images, classes); }), "ms");
    bench::report(name.c_str(),
                  asyncSeconds(7, 50, [&] { (void)trainer.step(images, classes); }) * 1e6, "us");
  }
  return 0;
}
