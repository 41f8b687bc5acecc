//===- Print.cpp - ember::print, now or every time compiled code runs -----===//

#include "Dispatcher.h"
#include "Format.h"
#include "OpTable.h"
#include "TensorImpl.h"
#include "Tracer.h"

#include <cstring>
#include <iostream>
#include <mutex>
#include <vector>

using namespace ember;
using namespace ember::detail;

namespace {

/// The runtime's print hook: numpy formatting of a strided memref.
void printFromCompiledCode(const char *message, size_t messageSize, emberrt_dtype_t dtype,
                           int rank, const int64_t *sizes, const int64_t *strides,
                           const void *data) {
  DType type = static_cast<DType>(dtype);
  size_t element = dtypeSize(type);
  int64_t total = 1;
  for (int d = 0; d < rank; ++d)
    total *= sizes[d];
  std::vector<unsigned char> dense(static_cast<size_t>(total) * element);
  for (int64_t n = 0; n < total; ++n) {
    int64_t offset = 0, rem = n;
    for (int d = rank - 1; d >= 0; --d) {
      offset += (rem % sizes[d]) * strides[d];
      rem /= sizes[d];
    }
    std::memcpy(dense.data() + n * element,
                static_cast<const unsigned char *>(data) + offset * static_cast<int64_t>(element),
                element);
  }
  std::cout << std::string(message, messageSize) << formatValues(dense.data(), type, sizes, rank)
            << std::endl;
}
} // namespace

void ember::print(const Tensor &x, const std::string &message, SourceLoc loc) {
  static std::once_flag installed;
  std::call_once(installed, [] { emberrt_set_print_hook(&printFromCompiledCode); });
  Tracer *tracer = currentTracer();
  if (!tracer) {
    std::cout << message << x.values_string() << std::endl;
    return;
  }
  std::vector<int64_t> words = {static_cast<int64_t>(message.size())};
  for (size_t i = 0; i < message.size(); i += 8) {
    int64_t word = 0;
    std::memcpy(&word, message.data() + i, std::min<size_t>(8, message.size() - i));
    words.push_back(word);
  }
  const Tensor *inputs[] = {&x};
  tracer->addEffect(kPrint, words, inputs, loc);
}
