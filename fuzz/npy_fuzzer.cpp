// ember::load_npy on arbitrary bytes: a tensor or an ember::Error, nothing
// else (no crash, no other exception, no allocation the file cannot back).
#include "FuzzInput.h"

#include "ember/ember.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = fuzz::inputFile(data, size, ".npy");
  try {
    ember::Tensor t = ember::load_npy(path);
    (void)ember::reduce_sum(ember::cast(t, ember::DType::Float64)).item<double>();
  } catch (const ember::Error &) {
  }
  return 0;
}
