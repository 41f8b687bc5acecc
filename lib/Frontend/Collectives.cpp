//===- Collectives.cpp - ember.all_reduce and its engine -------------------===//

#include "ember/Frontend/Collectives.h"

#include "Dispatcher.h"
#include "OpTable.h"

#include <atomic>
#include <cstring>

using namespace ember;
using namespace ember::detail;

namespace {

std::atomic<collectives::AllReduceEngine> engine{nullptr};

/// The runtime's hook: the engine, with its message copied out.
int32_t callEngine(const void *input, void *output, int64_t count, emberrt_dtype_t dtype,
                   int32_t reduction, char *error, size_t capacity) {
  collectives::AllReduceEngine installed = engine.load();
  std::string why = installed ? installed(input, output, count, static_cast<DType>(dtype),
                                          static_cast<collectives::Reduction>(reduction))
                              : "ran without a process group: call "
                                "ember::distributed::init_process_group() first";
  if (why.empty())
    return 0;
  std::strncpy(error, why.c_str(), capacity - 1);
  error[capacity - 1] = '\0';
  return 1;
}

} // namespace

void collectives::set_all_reduce_engine(AllReduceEngine newEngine, bool onCommunicationThread) {
  engine.store(newEngine);
  emberrt_set_all_reduce_hook(newEngine ? &callEngine : nullptr);
  emberrt_set_collective_thread(newEngine && onCommunicationThread);
}

Tensor collectives::all_reduce(const Tensor &x, Reduction reduction, SourceLoc loc) {
  DType dtype = x.dtype();
  bool floating = isFloatingPoint(dtype) && !isHalfPrecision(dtype);
  if (!floating && !isInteger(dtype))
    throw_op_error(kAllReduce.name,
                   "reduces float32, float64, int32 or int64 tensors, not " + describe(x), loc);
  if (reduction == Reduction::Mean && !floating)
    throw_op_error(kAllReduce.name, "mean needs a floating-point tensor, not " + describe(x), loc);
  if (!x.device().is_cpu())
    throw_op_error(kAllReduce.name,
                   "runs on CPU tensors (NCCL, for " + x.device().str() +
                       ", is not supported yet): " + describe(x),
                   loc);
  int64_t words[] = {static_cast<int64_t>(reduction)};
  trace::TensorSpec result = specOf(dtype, x.shape());
  return dispatch(kAllReduce, words, {&x}, &result, loc);
}
