//===- gpu_bench.cpp - ember's compiled GPU functions, timed ---------------===//
//
// Runs on the GPU machine (scripts/gpu-bundle.sh carries it there) next to
// bench/gpu/torch_peer.py, which times PyTorch on the same problems in the
// same run. Times are host wall time per call: calls queue their kernels
// and return (compiled functions are asynchronous), so a sample of N calls
// ends with one synchronize; "_synchronized" rows wait after every call.
//  - the driver's floor: an empty kernel launched back to back, and with a
//    synchronize after each, through ember's runtime;
//  - add [10x10] (an eager op's kernel), power(x, 100) on 10x10 f32 (a loop
//    of 100 matmuls: one kernel of one block with the loop inside), the 8-op
//    chain on 16384x4096 f32, SGEMM 4096.
//
//===----------------------------------------------------------------------===//

#include "../bench_util.h"
#include "gpu_kernels.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

using namespace ember::gpu_test;

namespace {
/// Median time per call of `body` over samples of `iterations` calls, each
/// sample ending when the GPU has finished them.
template <typename F> double asyncSeconds(int repeats, long iterations, F &&body) {
  return bench::medianSeconds(repeats, 1, [&] {
           for (long i = 0; i < iterations; ++i)
             body();
           emberrt_cuda_synchronize();
         }) /
         static_cast<double>(iterations);
}

// One thread that returns: the cheapest kernel there is.
const char kEmptyKernel[] = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry empty() { ret; }
)";
/// The MLP 784-256-256-10 training step, batch 64 (weights 0.01, x 0.5),
/// `iterations` calls a sample.
void benchMlpStep(long iterations) {
  const int64_t sizes[] = {784, 256, 256, 10};
  std::vector<DeviceArray> arrays;
  for (int l = 0; l < 3; ++l) {
    arrays.push_back(DeviceArray::from(std::vector<float>(sizes[l] * sizes[l + 1], 0.01f),
                                       {sizes[l], sizes[l + 1]}));
    arrays.push_back(DeviceArray::from(std::vector<float>(sizes[l + 1], 0.f), {sizes[l + 1]}));
  }
  arrays.push_back(DeviceArray::from(std::vector<float>(64 * 784, 0.5f), {64, 784}));
  std::vector<float> labels(64 * 10, 0.f);
  for (int r = 0; r < 64; ++r)
    labels[r * 10 + r % 10] = 1.f;
  arrays.push_back(DeviceArray::from(labels, {64, 10}));
  arrays.emplace_back(std::vector<int64_t>{}, sizeof(float));
  for (int l = 0; l < 3; ++l) {
    arrays.emplace_back(std::vector<int64_t>{sizes[l], sizes[l + 1]}, sizeof(float));
    arrays.emplace_back(std::vector<int64_t>{sizes[l + 1]}, sizeof(float));
  }
  std::vector<DeviceArray *> args;
  for (DeviceArray &a : arrays)
    args.push_back(&a);
  call(ember_entry_mlp_step, args);
  bench::report("ember.gpu.mlp_step_batch64",
                asyncSeconds(7, iterations, [&] { call(ember_entry_mlp_step, args); }) * 1e6,
                "us/step");
}
} // namespace

int main(int argc, char **argv) {
  // `ember-gpu-bench mlp`: one MLP step only (for a profiler's kernel list).
  bool mlpOnly = argc > 1 && std::string(argv[1]) == "mlp";
  if (!emberrt_cuda_available()) {
    std::printf("no GPU: %s\n", emberrt_cuda_status());
    return 0;
  }
  std::printf("# %s\n", emberrt_cuda_status());
  if (mlpOnly) {
    benchMlpStep(1);
    return 0;
  }
  void *module = nullptr, *empty = nullptr;
  if (emberrt_cuda_module_load(kEmptyKernel, &module) != EMBERRT_OK ||
      emberrt_cuda_function(module, "empty", &empty) != EMBERRT_OK) {
    std::printf("error: %s\n", emberrt_cuda_last_error());
    return 1;
  }
  auto launchEmpty = [&] { emberrt_cuda_launch(empty, 1, 1, 1, 1, 1, 1, 0, nullptr); };

  for (int i = 0; i < 1000; ++i)
    launchEmpty();
  emberrt_cuda_synchronize();
  bench::report("floor.empty_launch_back_to_back",
                asyncSeconds(5, 20000, [&] { launchEmpty(); }) * 1e6, "us/launch");
  bench::report("floor.empty_launch_synchronized", bench::medianSeconds(5, 5000, [&] {
                  launchEmpty();
                  emberrt_cuda_synchronize();
                }) * 1e6,
                "us/launch");

  std::vector<float> small(100, 1.f);
  DeviceArray a = DeviceArray::from(small, {10, 10}), b = DeviceArray::from(small, {10, 10});
  DeviceArray c({10, 10}, sizeof(float));
  bench::report("ember.gpu.add10",
                asyncSeconds(5, 20000, [&] { call(ember_entry_add10, {&a, &b, &c}); }) * 1e6,
                "us/call");
  bench::report("ember.gpu.add10_synchronized", bench::medianSeconds(5, 5000, [&] {
                  call(ember_entry_add10, {&a, &b, &c});
                  emberrt_cuda_synchronize();
                }) * 1e6,
                "us/call");

  std::vector<float> x(100, 0.f);
  for (int d = 0; d < 10; ++d)
    x[d * 11] = 0.9f;
  DeviceArray dx = DeviceArray::from(x, {10, 10}), power({10, 10}, sizeof(float));
  call(ember_entry_power100, {&dx, &power});
  bench::report("ember.gpu.power100",
                asyncSeconds(5, 2000, [&] { call(ember_entry_power100, {&dx, &power}); }) * 1e6,
                "us/call");
  bench::report("ember.gpu.power100_synchronized", bench::medianSeconds(5, 500, [&] {
                  call(ember_entry_power100, {&dx, &power});
                  emberrt_cuda_synchronize();
                }) * 1e6,
                "us/call");

  std::vector<float> big(size_t(16384) * 4096, 0.25f);
  DeviceArray in = DeviceArray::from(big, {16384, 4096}), out({16384, 4096}, sizeof(float));
  call(ember_entry_chain8_big, {&in, &out});
  double chain = asyncSeconds(7, 20, [&] { call(ember_entry_chain8_big, {&in, &out}); });
  bench::report("ember.gpu.chain8_16384x4096", chain * 1e3, "ms/call");
  bench::report("ember.gpu.chain8_bandwidth", 2.0 * big.size() * sizeof(float) / chain / 1e12,
                "TB/s");

  std::vector<float> ones(size_t(1) << 24, 1.f);
  DeviceArray vector16m = DeviceArray::from(ones, {int64_t(1) << 24}), sum({}, sizeof(float));
  call(ember_entry_sum16m, {&vector16m, &sum});
  double summed = asyncSeconds(7, 20, [&] { call(ember_entry_sum16m, {&vector16m, &sum}); });
  bench::report("ember.gpu.reduce_sum_16m", summed * 1e3, "ms/call");
  bench::report("ember.gpu.reduce_sum_16m_bandwidth", 4.0 * ones.size() / summed / 1e12, "TB/s");

  std::vector<float> square(size_t(4096) * 4096, 0.5f);
  DeviceArray rows = DeviceArray::from(square, {4096, 4096}), maxima({4096}, sizeof(float));
  call(ember_entry_row_max, {&rows, &maxima});
  double rowMax = asyncSeconds(7, 20, [&] { call(ember_entry_row_max, {&rows, &maxima}); });
  bench::report("ember.gpu.row_max_4096x4096", rowMax * 1e3, "ms/call");
  bench::report("ember.gpu.row_max_bandwidth", 4.0 * square.size() / rowMax / 1e12, "TB/s");

  benchMlpStep(50);

  DeviceArray ga = DeviceArray::from(square, {4096, 4096}), gb = DeviceArray::from(square, {4096, 4096});
  DeviceArray gc({4096, 4096}, sizeof(float));
  call(ember_entry_sgemm4096, {&ga, &gb, &gc});
  double sgemm = asyncSeconds(3, 2, [&] { call(ember_entry_sgemm4096, {&ga, &gb, &gc}); });
  bench::report("ember.gpu.sgemm4096", sgemm * 1e3, "ms/call");
  bench::report("ember.gpu.sgemm4096_rate", 2.0 * 4096.0 * 4096.0 * 4096.0 / sgemm / 1e12,
                "TFLOP/s");
  // 16-bit GEMMs on tensor cores: 0.5 in both types (0x3f00 in bfloat16,
  // 0x3800 in float16), C = 2048 everywhere.
  struct HalfGemm {
    emberrt_entry_fn entry;
    const char *name;
    uint16_t half;
  };
  for (auto [entry, name, half] : {HalfGemm{ember_entry_hgemm8192_bf16, "bf16", 0x3f00},
                                   HalfGemm{ember_entry_hgemm8192_f16, "f16", 0x3800}}) {
    std::vector<uint16_t> halves(size_t(8192) * 8192, half);
    DeviceArray ha = DeviceArray::from(halves, {8192, 8192}),
                hb = DeviceArray::from(halves, {8192, 8192}), hc({8192, 8192}, 2);
    call(entry, {&ha, &hb, &hc});
    double seconds = asyncSeconds(3, 2, [&] { call(entry, {&ha, &hb, &hc}); });
    std::string prefix = std::string("ember.gpu.hgemm8192_") + name;
    bench::report(prefix.c_str(), seconds * 1e3, "ms/call");
    bench::report((prefix + "_rate").c_str(), 2.0 * 8192.0 * 8192.0 * 8192.0 / seconds / 1e12,
                  "TFLOP/s");
    std::vector<uint16_t> c = hc.toHost<uint16_t>();
    uint16_t expected = name[0] == 'b' ? 0x4500 : 0x6800; // 2048
    if (c.front() != expected || c.back() != expected) {
      std::printf("error: hgemm8192_%s computed 0x%04x, expected 0x%04x\n", name, c.front(),
                  expected);
      return 1;
    }
  }
  emberrt_cuda_synchronize();
  if (const char *error = emberrt_cuda_last_error(); error && *error) {
    std::printf("error: %s\n", error);
    return 1;
  }
  return 0;
}
