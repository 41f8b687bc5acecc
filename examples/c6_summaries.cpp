// Story C6: summaries for TensorBoard. A file writer on a log directory; a
// training loop writes scalar("loss", v, step) every 100 steps (and the
// weights' histogram at the end) into an event file that TensorBoard reads:
// `tensorboard --logdir <dir>`.
//
//   c6_summaries [LOGDIR]
#include "ember/ember.h"

#include <cstdio>

int main(int argc, char **argv) {
  std::string logdir = argc > 1 ? argv[1] : "logs/c6";
  auto writer = ember::summary::create_file_writer(logdir);
  ember::Variable w(ember::Tensor({3.f, -2.f, 1.f}), "w");
  ember::optimizers::SGD sgd(0.01);
  {
    auto scope = writer.as_default();
    for (int64_t step = 0; step < 500; ++step) {
      ember::GradientTape tape;
      ember::Tensor loss = ember::reduce_sum(ember::square(w.value()));
      sgd.apply_gradients(tape.gradient(loss, {w}), {w});
      if (step % 100 == 0) {
        ember::summary::scalar("loss", loss.item<float>(), step);
        std::printf("step %lld: loss %.4f\n", (long long)step, loss.item<float>());
      }
    }
    ember::summary::histogram("w", w.value(), 500);
  }
  writer.close();
  std::printf("events: %s\n", writer.path().c_str());
}
