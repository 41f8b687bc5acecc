// Checkpoint::restore on arbitrary bytes, into a small model and its Adam
// slots: restored, or an ember::Error (and then nothing changed).
#include "FuzzInput.h"

#include "ember/ember.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static auto *model = new ember::layers::Sequential(
      {std::make_shared<ember::layers::Dense>(2, "relu", true, 1)});
  static auto *optimizer = new ember::optimizers::Adam(0.01);
  static bool built = [] {
    (*model)(ember::zeros({1, 3}));
    optimizer->build(model->trainable_variables());
    return true;
  }();
  (void)built;
  std::string path = fuzz::inputFile(data, size, ".safetensors");
  ember::Checkpoint checkpoint({{"model", *model}, {"optimizer", *optimizer}});
  for (bool partial : {false, true}) {
    std::vector<ember::Tensor> before;
    for (const ember::Variable &v : model->variables())
      before.push_back(v.value());
    try {
      checkpoint.restore(path, partial);
    } catch (const ember::Error &) {
      // A refused restore changes nothing.
      std::vector<ember::Variable> now = model->variables();
      for (size_t i = 0; i < now.size(); ++i)
        if (now[i].value().impl() != before[i].impl())
          std::abort();
    }
  }
  return 0;
}
