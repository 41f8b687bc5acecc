// Story C5: metrics are objects. Mean("loss") fed 0 and 5 gives 2.5; fed
// [8, 9] more, 5.5; reset, 0. Accuracy for a classifier's logits, over two
// batches, then reset.
#include "ember/ember.h"

#include <cstdio>

int main() {
  ember::metrics::Mean loss("loss");
  loss.update_state(0.0);
  loss.update_state(5.0);
  std::printf("%s after 0 and 5: %g\n", loss.name().c_str(), loss.result().item<double>());
  loss.update_state(ember::Tensor({8.0, 9.0}));
  std::printf("%s after [8, 9]: %g\n", loss.name().c_str(), loss.result().item<double>());
  loss.reset_state();
  std::printf("%s after reset: %g\n", loss.name().c_str(), loss.result().item<double>());

  ember::metrics::SparseCategoricalAccuracy accuracy("accuracy");
  ember::Tensor logits = ember::Tensor({{0.1f, 0.9f}, {0.8f, 0.2f}, {0.3f, 0.7f}});
  accuracy.update_state(ember::Tensor({1, 1, 1}), logits); // 2 of 3 right
  accuracy.update_state(ember::Tensor({1, 0, 1}), logits); // 3 of 3
  std::printf("%s: %.4f\n", accuracy.name().c_str(), accuracy.result().item<double>());
  accuracy.reset_state();
  std::printf("%s after reset: %g\n", accuracy.name().c_str(), accuracy.result().item<double>());
}
