// Story C2's training step (issue 11): Conv2D(16, 3x3, relu) -> Conv2D(16,
// 3x3, relu) -> global average pooling -> Dense(10), sparse softmax
// cross-entropy from logits, Adam, batch 32 of 28x28x1 images. Traced (the
// whole step one compiled function, as tf.function / jax.jit of a train
// step) and eager on a GradientTape; torch_c2_bench.cpp is LibTorch's side.
// Threads: EMBER_NUM_THREADS (bench/run.sh runs 1 and 2). Then the peak RSS
// (as LibTorch's bench, without data), and steps/s fed by Fashion-MNIST.
// `c2_bench bf16`: the traced step in mixed bfloat16 (Keras's mixed_bfloat16:
// bfloat16 images, so layers compute in bfloat16 with float32 variables; the
// logits widened to float32 for the loss); torch_c2_bench bf16 is the peer.
#include "bench_util.h"
#include "c2_model.h"

#include "ember/ember.h"

#include <filesystem>
#include <string>

#include <sys/resource.h>

using namespace ember;

int main(int argc, char **argv) {
  Tensor images = random_uniform({32, 28, 28, 1}, 1);
  Tensor labels = cast(arange(0, 32) % 10, DType::Int64);
  losses::SparseCategoricalCrossentropy lossFn(/*from_logits=*/true);
  // The whole step traced: the loss on float32 logits (a cast of bfloat16
  // ones under mixed bfloat16; none for float32).
  auto tracedStepOf = [&](layers::Sequential &model, optimizers::Adam &adam, const char *name) {
    return function(
        [&](const Tensor &x, const Tensor &y) {
          GradientTape tape;
          Tensor loss = lossFn(y, cast(model(x, true), kFloat32));
          std::vector<Variable> vars = model.trainable_variables();
          adam.apply_gradients(tape.gradient(loss, vars), vars);
          return loss;
        },
        name);
  };
  if (argc > 1 && std::string(argv[1]) == "bf16") {
    auto model = c2Model();
    optimizers::Adam adam(1e-3);
    Tensor halfImages = cast(images, kBFloat16);
    (*model)(halfImages);
    auto step = tracedStepOf(*model, adam, "c2_bf16_train_step");
    step(halfImages, labels);
    bench::report("ember.c2_mixed_bf16_step",
                  bench::medianSeconds(7, 10, [&] { return step(halfImages, labels); }) * 1e3,
                  "ms");
    return 0;
  }

  auto tracedModel = c2Model();
  optimizers::Adam tracedAdam(1e-3);
  (*tracedModel)(images); // weights made
  auto tracedStep = tracedStepOf(*tracedModel, tracedAdam, "c2_train_step");
  double start = bench::now();
  tracedStep(images, labels);
  bench::report("ember.c2_traced_first_step", (bench::now() - start) * 1e3, "ms");
  bench::report("ember.c2_traced_step",
                bench::medianSeconds(7, 10, [&] { return tracedStep(images, labels); }) * 1e3,
                "ms");

  auto eagerModel = c2Model();
  optimizers::Adam eagerAdam(1e-3);
  auto tapeStep = [&] {
    GradientTape tape;
    Tensor loss = lossFn(labels, (*eagerModel)(images, true));
    std::vector<Variable> vars = eagerModel->trainable_variables();
    eagerAdam.apply_gradients(tape.gradient(loss, vars), vars);
    return loss;
  };
  tapeStep();
  bench::report("ember.c2_tape_step", bench::medianSeconds(7, 5, tapeStep) * 1e3, "ms");
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  bench::report("ember.c2_peak_rss", usage.ru_maxrss / 1024.0, "MiB"); // before the data

  // The input pipeline is not the bottleneck: steps fed by a shuffled,
  // batched, prefetched Fashion-MNIST against steps on one batch.
  if (std::filesystem::exists("/usr/share/datasets/fashion-mnist")) {
    auto [x, y, xTest, yTest] = data::fashion_mnist::load_data();
    data::Dataset batches = data::Dataset::from_tensor_slices({x, y})
                                .shuffle(1000, 1)
                                .batch(32, true)
                                .prefetch(data::AUTOTUNE);
    const int steps = 500;
    auto fromData = [&] {
      int n = 0;
      for (const data::Element &batch : batches) {
        tracedStep(batch[0], batch[1]);
        if (++n == steps)
          break;
      }
    };
    auto fixed = [&] {
      for (int n = 0; n < steps; ++n)
        tracedStep(images, labels);
    };
    double withData = bench::medianSeconds(3, 1, fromData) / steps;
    double without = bench::medianSeconds(3, 1, fixed) / steps;
    bench::report("ember.c2_steps_per_second_with_data", 1 / withData, "steps/s");
    bench::report("ember.c2_steps_per_second_without_data", 1 / without, "steps/s");
  }
}
