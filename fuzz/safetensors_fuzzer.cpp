// ember's safetensors reader (what load_weights and Checkpoint::restore read)
// on arbitrary bytes: every entry's tensor, or an ember::Error.
#include "FuzzInput.h"

#include "ember/IO/Safetensors.h"

#include "ember/ember.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = fuzz::inputFile(data, size, ".safetensors");
  try {
    ember::safetensors::File file(path);
    for (const auto &[name, entry] : file.entries())
      (void)file.tensor(entry).numel();
  } catch (const ember::Error &) {
  }
  return 0;
}
