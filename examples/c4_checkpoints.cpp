// Story C4: object-based checkpoints. A checkpoint of one variable x saved
// at 2.0; x set to 11; restoring the latest checkpoint of the directory gives
// 2.0 again. Then a model and its Adam optimizer (slots and step counter
// included) saved by a CheckpointManager and restored into fresh ones, and
// the model's weights alone through save_weights / load_weights.
//
//   c4_checkpoints [DIR]
#include "ember/ember.h"

#include <cstdio>

using namespace ember;

namespace {
std::shared_ptr<layers::Sequential> makeModel() {
  return std::make_shared<layers::Sequential>(std::vector<std::shared_ptr<layers::Layer>>{
      std::make_shared<layers::Dense>(8, "relu"), std::make_shared<layers::Dense>(1)});
}
} // namespace

int main(int argc, char **argv) {
  std::string dir = argc > 1 ? argv[1] : "c4_checkpoints";

  Variable x(Tensor(2.f), "x");
  Checkpoint single({{"x", x}});
  std::string path = single.save(dir + "/variable/ckpt");
  x.assign(Tensor(11.f));
  std::printf("x = %g after assign\n", x.value().item<float>());
  single.restore(*train::latest_checkpoint(dir + "/variable"));
  std::printf("x = %g after restoring %s\n", x.value().item<float>(),
              path.substr(path.find_last_of('/') + 1).c_str());

  // A model and its optimizer, a few steps in.
  Tensor inputs = random_uniform({16, 4}, 1), targets = random_uniform({16, 1}, 2);
  losses::MeanSquaredError mse;
  auto model = makeModel();
  optimizers::Adam adam(0.01);
  auto step = [&](layers::Sequential &m, optimizers::Adam &opt) {
    GradientTape tape;
    Tensor loss = mse(targets, m(inputs));
    std::vector<Variable> weights = m.trainable_variables();
    opt.apply_gradients(tape.gradient(loss, weights), weights);
    return loss.item<float>();
  };
  for (int i = 0; i < 5; ++i)
    step(*model, adam);
  Checkpoint checkpoint({{"model", *model}, {"optimizer", adam}});
  train::CheckpointManager manager(checkpoint, dir + "/training", /*max_to_keep=*/2);
  for (int i = 0; i < 3; ++i)
    manager.save();
  std::printf("kept %zu checkpoints, latest %s\n", manager.checkpoints().size(),
              manager.latest_checkpoint()->substr(dir.size() + 1).c_str());

  // Fresh objects resume where the saved ones were: the next step agrees.
  auto resumed = makeModel();
  (*resumed)(inputs); // its weights, to restore into
  optimizers::Adam resumedAdam(0.01);
  Checkpoint({{"model", *resumed}, {"optimizer", resumedAdam}})
      .restore(*manager.latest_checkpoint());
  std::printf("restored optimizer at step %lld\n",
              (long long)resumedAdam.iterations().value().item<int64_t>());
  float original = step(*model, adam), again = step(*resumed, resumedAdam);
  std::printf("next step's loss: %s\n", original == again ? "the same" : "DIFFERENT");

  // The weights alone, into a model built alike.
  model->save_weights(dir + "/weights.safetensors");
  auto copy = makeModel();
  (*copy)(inputs);
  copy->load_weights(dir + "/weights.safetensors");
  bool same = ((*copy)(inputs).to_vector<float>() == (*model)(inputs).to_vector<float>());
  std::printf("loaded weights give %s outputs\n", same ? "the same" : "DIFFERENT");
  return original == again && same ? 0 : 1;
}
