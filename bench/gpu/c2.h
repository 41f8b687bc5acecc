//===- c2.h - story C2's classifier and training step on any device -------===//
//
// Shared by unittests/GPU (GPU against CPU, and the host side with the fake
// driver) and bench/gpu/jit_bench.cpp (the step's time beside PyTorch's in
// torch_peer.py): examples/c2_image_classifier.cpp's model, Conv2D(16, 3x3,
// relu) -> Conv2D(16, 3x3, relu) -> global average pooling -> Dense(10),
// sparse softmax cross-entropy from logits and Adam, the whole step one
// ember::function. The weights are made on `device` (where the model is
// first called), the optimizer's slots beside them.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_BENCH_GPU_C2_H
#define EMBER_BENCH_GPU_C2_H

#include "ember/ember.h"

#include <memory>

namespace ember::c2 {

/// Images [batch, 28, 28, 1] in [0, 1) and int64 labels in [0, 10).
inline Tensor images(int64_t batch, uint64_t seed = 1) {
  return random_uniform({batch, 28, 28, 1}, seed);
}
inline Tensor labels(int64_t batch) { return cast(arange(0, batch) % 10, DType::Int64); }

/// The model, its weights made on `device` by a first call on `batch` images.
inline std::shared_ptr<layers::Sequential> model(const Device &device, int64_t batch,
                                                 uint64_t seed = 1) {
  using namespace layers;
  std::array<int64_t, 2> kernel = {3, 3}, strides = {1, 1};
  auto net = std::make_shared<Sequential>(std::vector<std::shared_ptr<Layer>>{
      std::make_shared<Conv2D>(16, kernel, "relu", strides, "VALID", seed * 3 + 1),
      std::make_shared<Conv2D>(16, kernel, "relu", strides, "VALID", seed * 3 + 2),
      std::make_shared<GlobalAveragePooling2D>(),
      std::make_shared<Dense>(10, "linear", true, seed * 3 + 3)});
  (*net)(images(batch).to(device));
  return net;
}

using Step = Function<std::function<Tensor(const Tensor &, const Tensor &)>>;

/// The training step on (images, labels), traced whole; returns the loss.
inline Step tracedStep(std::shared_ptr<layers::Sequential> net,
                       std::shared_ptr<optimizers::Adam> adam) {
  return function(std::function<Tensor(const Tensor &, const Tensor &)>(
                      [net, adam](const Tensor &x, const Tensor &y) {
                        losses::SparseCategoricalCrossentropy lossFn(/*from_logits=*/true);
                        GradientTape tape;
                        Tensor loss = lossFn(y, (*net)(x, /*training=*/true));
                        std::vector<Variable> vars = net->trainable_variables();
                        adam->apply_gradients(tape.gradient(loss, vars), vars);
                        return loss;
                      }),
                  "c2_train_step");
}

/// A model on `device`, its Adam and its step.
struct Trainer {
  std::shared_ptr<layers::Sequential> net;
  std::shared_ptr<optimizers::Adam> adam = std::make_shared<optimizers::Adam>(1e-3);
  Step step;
  Trainer(const Device &device, int64_t batch, uint64_t seed = 1)
      : net(model(device, batch, seed)), step(tracedStep(net, adam)) {}
};

} // namespace ember::c2

#endif // EMBER_BENCH_GPU_C2_H
