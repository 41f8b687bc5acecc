// Story F1 (and issue 9's example): a model trained in C++, its inference
// exported for ahead-of-time compilation. Linear regression as in C1
// (y = 3x + 2 plus noise), then `predict` is traced and written to a file
// as ember MLIR with W and B as named weights; ember-compile turns it into
// an object that a plain C program calls (test/Examples/f1-export.test).
// Usage: f1_export <predict.mlir>
#include "ember/ember.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: f1_export <predict.mlir>\n");
    return 2;
  }
  ember::Tensor x = ember::random_normal({2000}, /*seed=*/1);
  ember::Tensor y = x * 3.f + 2.f + ember::random_normal({2000}, /*seed=*/2);
  ember::Variable W(ember::Tensor(5.f), "W"), B(ember::Tensor(10.f), "B");
  auto model = [&](const ember::Tensor &inputs) { return inputs * W + B; };
  for (int step = 0; step < 300; ++step) {
    ember::GradientTape tape;
    ember::Tensor loss = ember::reduce_mean(ember::square(y - model(x)));
    auto grads = tape.gradient(loss, {W, B});
    W.assign_sub(*grads[0] * 0.01f);
    B.assign_sub(*grads[1] * 0.01f);
  }

  // The inference step for batches of any size (a None dim: TensorFlow's
  // input_signature), traced once and exported: one compiled object serves
  // every batch size.
  auto predict = ember::function(model, "predict", {.input_signature = {{{ember::kNone}}}});
  ember::Tensor batch = ember::Tensor({1.f, 2.f, 3.f, 4.f});
  predict.export_mlir(argv[1], batch);
  std::vector<float> predicted = predict(batch).to_vector<float>();
  std::printf("JIT: predict(1, 2, 3, 4) = %.4f %.4f %.4f %.4f\n", predicted[0], predicted[1],
              predicted[2], predicted[3]);
  predicted = predict(ember::Tensor({10.f, 20.f})).to_vector<float>();
  std::printf("JIT: predict(10, 20) = %.4f %.4f\n", predicted[0], predicted[1]);
}
