// Imported ONNX models (issue 28) against PyTorch running the same model:
//   onnx_bench DIR...   DIR/model.onnx and DIR/test_data_set_1/input_0.pb
// (scripts/export_onnx_models.py writes them). Per model: the import and
// first call (load, trace, compile) and the median call once compiled.
// bench/onnx_models.sh runs it with PyTorch's side; threads:
// EMBER_NUM_THREADS.
#include "bench_util.h"

#include "ember/ember.h"

#include <filesystem>
#include <string>

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path dir = argv[i];
    std::string name = dir.filename().string();
    ember::Tensor x = ember::onnx::load_tensor((dir / "test_data_set_1" / "input_0.pb").string());
    double start = bench::now();
    ember::onnx::Model model = ember::onnx::load((dir / "model.onnx").string());
    model({x});
    bench::report(("ember." + name + "_import_and_first_call").c_str(),
                  (bench::now() - start) * 1e3, "ms");
    double seconds = bench::medianSeconds(7, 20, [&] { return model({x}); });
    bench::report(("ember." + name + "_call").c_str(), seconds * 1e3, "ms");
  }
}
