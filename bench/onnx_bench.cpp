// Imported ONNX models (issue 28) against PyTorch running the same model:
//   onnx_bench DIR[:BATCH]...   DIR/model.onnx and DIR/test_data_set_1/input_0.pb
// (scripts/export_onnx_models.py writes them); with a batch size, a random
// input of that batch (the model's symbolic dim) instead. Per model: the import and
// first call (load, trace, compile) and the median call once compiled.
// bench/onnx_models.sh runs it with PyTorch's side; threads:
// EMBER_NUM_THREADS.
#include "bench_util.h"

#include "ember/ember.h"

#include <algorithm>
#include <filesystem>
#include <string>

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], batch;
    if (size_t colon = arg.rfind(':'); colon != std::string::npos) {
      batch = arg.substr(colon + 1);
      arg.resize(colon);
    }
    std::filesystem::path dir = arg;
    std::string name = dir.filename().string() + (batch.empty() ? "" : "_batch" + batch);
    double start = bench::now();
    ember::onnx::Model model = ember::onnx::load((dir / "model.onnx").string());
    ember::Tensor x;
    if (batch.empty()) {
      x = ember::onnx::load_tensor((dir / "test_data_set_1" / "input_0.pb").string());
    } else {
      std::vector<int64_t> dims = model.inputs()[0].shape;
      for (int64_t &d : dims)
        d = d == ember::kNone ? std::stoll(batch) : d;
      x = ember::random_normal(ember::Shape(std::span<const int64_t>(dims)), 0);
      start = bench::now(); // loaded again: the first load read the input's shape
      model = ember::onnx::load((dir / "model.onnx").string());
    }
    model({x});
    bench::report(("ember." + name + "_import_and_first_call").c_str(),
                  (bench::now() - start) * 1e3, "ms");
    double once = bench::now();
    model({x});
    once = bench::now() - once;
    long repeat = std::max(1L, std::min(20L, static_cast<long>(0.2 / std::max(once, 1e-6))));
    double seconds = bench::medianSeconds(repeat > 1 ? 7 : 5, repeat, [&] { return model({x}); });
    bench::report(("ember." + name + "_call").c_str(), seconds * 1e3, "ms");
  }
}
