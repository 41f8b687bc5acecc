// Story C2's model in ember (channels last): Conv2D(16, 3x3, relu) ->
// Conv2D(16, 3x3, relu) -> global average pooling -> Dense(10), shared by
// c2_bench.cpp and distributed_bench.cpp (torch_c2_net.h is LibTorch's).
#ifndef EMBER_BENCH_C2_MODEL_H
#define EMBER_BENCH_C2_MODEL_H

#include "ember/ember.h"

#include <memory>

inline std::shared_ptr<ember::layers::Sequential> c2Model() {
  using namespace ember::layers;
  return std::make_shared<Sequential>(std::vector<std::shared_ptr<Layer>>{
      std::make_shared<Conv2D>(16, std::array<int64_t, 2>{3, 3}, "relu"),
      std::make_shared<Conv2D>(16, std::array<int64_t, 2>{3, 3}, "relu"),
      std::make_shared<GlobalAveragePooling2D>(), std::make_shared<Dense>(10)});
}

#endif // EMBER_BENCH_C2_MODEL_H
