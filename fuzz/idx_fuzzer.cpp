// ember::data::read_idx (MNIST's IDX files, plain or gzip) on arbitrary
// bytes: a tensor or an ember::Error.
#include "FuzzInput.h"

#include "ember/ember.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = fuzz::inputFile(data, size, ".idx");
  try {
    (void)ember::data::read_idx(path).numel();
  } catch (const ember::Error &) {
  }
  return 0;
}
