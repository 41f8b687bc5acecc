// Story C2: an image classifier trained with a custom loop. Fashion-MNIST
// (Debian's dataset-fashion-mnist; any IDX files with --data) as float32
// [N, 28, 28, 1] in [0, 1]; Conv2D(16, 3x3, relu) -> Conv2D(16, 3x3, relu) ->
// global average pooling -> Dense(10); Adam; batches of 32 shuffled with a
// buffer of 1000; the whole training step one compiled function. Shows
// progress per epoch, keeps the loss per batch and plots it (SVG), writes
// TensorBoard summaries and a checkpoint, and restores it.
//
//   c2_image_classifier [--data DIR] [--epochs N] [--train N] [--test N] [--out DIR]
//                       [--seed N] [--device cpu|cuda] [--export FILE.mlir]
//                       [--policy float32|mixed_bfloat16]
//
// --export writes the trained classifier's inference on a batch of 8 images
// as ember MLIR (its weights inside) for ember-compile, the first 8 test
// images beside it as raw float32 (FILE.images.f32) and prints the classes
// the JIT predicts for them: examples/c2_classify_main.c, compiled ahead of
// time, prints the same (scripts/demo.sh runs both).
//
// --device cuda trains on the GPU: the weights are made where the model
// first runs, the batches are staged there ahead of the steps, and the
// compiled step runs there; the printed lines are the same.
// --train / --test take the first N examples (the test in test/Examples
// trains on a small subset; scripts/train-c2.sh runs the full 3 epochs).
// --batch N sets the global batch (default 32).
// --policy mixed_bfloat16 trains as Keras's mixed_precision policy of that
// name: the layers compute in bfloat16 (the images are cast, the layers then
// cast their float32 variables when they read them; matmuls and convolutions
// sum in float32, on the CPU's bfloat16 dot products where it has them), the
// logits are cast back to float32 for the loss and the metrics, and the
// variables, gradients and Adam's state stay float32. The printed lines are
// the same, with one more saying so.
//
// Data parallel: started by ember-run (WORLD_SIZE set), e.g.
//   ember-run -n 2 c2_image_classifier --batch 64
// each of the N processes takes every N-th batch of batch/N images of the
// same shuffled stream (Dataset::shard), so that a step's N batches make the
// global batch one process would take; rank 0's weights are broadcast at the
// start, the step's gradients are averaged over the ranks
// (DistributedGradientTape, inside the compiled step), and the metrics are
// summed over them. Rank 0 alone prints, plots, logs and writes the
// checkpoint; every rank restores it. The printed lines are the same, with
// one more: whether every rank ended with the same weights.
#include "ember/ember.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

using namespace ember;

namespace {
struct Options {
  std::string data = "/usr/share/datasets/fashion-mnist";
  int epochs = 3;
  int64_t train = -1, test = -1; // all
  std::string out = "c2_output";
  uint64_t seed = 1;
  std::string device = "cpu";
  std::string exportPath; // none
  int64_t batch = 32;
  std::string policy = "float32";
};

Options parse(int argc, char **argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--data")
      options.data = value;
    else if (flag == "--epochs")
      options.epochs = std::stoi(value);
    else if (flag == "--train")
      options.train = std::stoll(value);
    else if (flag == "--test")
      options.test = std::stoll(value);
    else if (flag == "--out")
      options.out = value;
    else if (flag == "--seed")
      options.seed = std::stoull(value);
    else if (flag == "--export")
      options.exportPath = value;
    else if (flag == "--device")
      options.device = value;
    else if (flag == "--batch")
      options.batch = std::stoll(value);
    else if (flag == "--policy")
      options.policy = value;
    else
      throw Error("unknown option " + flag +
                  " (--data DIR, --epochs N, --train N, --test N, --out DIR, --seed N, --device D, "
                  "--export FILE, --batch N, --policy P)");
  }
  if (options.policy != "float32" && options.policy != "mixed_bfloat16")
    throw Error("--policy " + options.policy + ": expected float32 or mixed_bfloat16");
  return options;
}

/// The first `count` rows of `t` (all for -1).
Tensor firstRows(const Tensor &t, int64_t count) {
  if (count < 0 || count >= t.size(0))
    return t;
  std::vector<int64_t> start(t.rank(), 0), limit = t.shape().vec();
  limit[0] = count;
  return slice(t, start, limit);
}

/// The model, its initial weights drawn from `seed`.
std::shared_ptr<layers::Sequential> makeModel(uint64_t seed) {
  using namespace layers;
  std::array<int64_t, 2> kernel = {3, 3}, strides = {1, 1};
  return std::make_shared<Sequential>(
      std::vector<std::shared_ptr<Layer>>{
          std::make_shared<Conv2D>(16, kernel, "relu", strides, "VALID", seed * 3 + 1),
          std::make_shared<Conv2D>(16, kernel, "relu", strides, "VALID", seed * 3 + 2),
          std::make_shared<GlobalAveragePooling2D>(),
          std::make_shared<Dense>(10, "linear", true, seed * 3 + 3)},
      "classifier");
}

/// The float32 logits of `model` on `images`, its layers computing in
/// `compute` (float32, or bfloat16 under mixed_bfloat16).
Tensor logitsOf(layers::Sequential &model, const Tensor &images, DType compute,
                bool training = false) {
  return cast(model(cast(images, compute), training), kFloat32);
}

/// Accuracy of `model` on (x, y), in batches run on `device`.
double evaluate(layers::Sequential &model, const Tensor &x, const Tensor &y, DType compute,
                const Device &device) {
  metrics::SparseCategoricalAccuracy accuracy;
  auto predict =
      function([&](const Tensor &images) { return logitsOf(model, images, compute); }, "predict");
  for (const data::Element &batch : data::Dataset::from_tensor_slices({x, y}).batch(500))
    accuracy.update_state(batch[1], predict(batch[0].to(device)).cpu());
  return accuracy.result().item<double>();
}

/// Writes the inference of `model` on a batch of 8 images to `path` (ember
/// MLIR), the first 8 of `images` to `path`.images.f32, and prints the
/// classes the JIT predicts for them.
void exportClassifier(layers::Sequential &model, const Tensor &images, const std::string &path,
                      DType compute, const Device &device) {
  auto classify =
      function([&](const Tensor &batch) { return logitsOf(model, batch, compute); }, "classify");
  Tensor batch = firstRows(images, 8);
  classify.export_mlir(path, batch);
  std::vector<float> pixels = batch.to_vector<float>();
  std::string imagesPath = path + ".images.f32";
  std::FILE *file = std::fopen(imagesPath.c_str(), "wb");
  if (!file || std::fwrite(pixels.data(), sizeof(float), pixels.size(), file) != pixels.size() ||
      std::fclose(file) != 0)
    throw IOError("cannot write '" + imagesPath + "'");
  std::vector<int64_t> classes = argmax(classify(batch.to(device)), 1).cpu().to_vector<int64_t>();
  std::printf("Exported the classifier: %s (images: %s)\nJIT predictions:", path.c_str(),
              imagesPath.c_str());
  for (int64_t c : classes)
    std::printf(" %lld", static_cast<long long>(c));
  std::printf("\n");
}
} // namespace

int main(int argc, char **argv) try {
  namespace dist = ember::distributed;
  Options options = parse(argc, argv);
  const Device device(options.device);
  if (device.is_cuda() && !cuda_is_available())
    throw Error("--device " + options.device + ": " + cuda_status());
  const bool distributed = std::getenv("WORLD_SIZE") != nullptr; // started by ember-run
  if (distributed)
    dist::init_process_group();
  const int rank = distributed ? dist::rank() : 0, world = distributed ? dist::world_size() : 1;
  const bool chief = rank == 0; // prints, plots, logs and checkpoints
  if (options.batch < 1 || options.batch % world != 0)
    throw Error("--batch " + std::to_string(options.batch) + " must be a positive multiple of " +
                "the number of processes (" + std::to_string(world) + ")");
  const int64_t batchSize = options.batch / world; // this process's part of a step
  if (chief)
    std::filesystem::create_directories(options.out);

  auto [x_train, y_train, x_test, y_test] = data::fashion_mnist::load_data(options.data);
  x_train = firstRows(x_train, options.train);
  y_train = firstRows(y_train, options.train);
  x_test = firstRows(x_test, options.test);
  y_test = firstRows(y_test, options.test);
  if (chief)
    std::printf("Training on %lld images, testing on %lld\n", (long long)x_train.size(0),
                (long long)x_test.size(0));

  const DType compute = options.policy == "mixed_bfloat16" ? kBFloat16 : kFloat32;
  if (chief && compute != kFloat32)
    std::printf("Policy mixed_bfloat16: layers compute in bfloat16, variables are float32\n");
  auto model = makeModel(options.seed);
  Tensor one = firstRows(x_train, 1).to(device); // the weights are made where it is
  Shape untrained = logitsOf(*model, one, compute).shape();
  if (chief)
    std::printf("Logits of one untrained image: shape %s\n", untrained.str().c_str());
  if (distributed) // every rank starts from rank 0's weights
    dist::broadcast_variables(model->variables());

  // Steps of the global batch; with several processes, step k's batches are
  // the k-th `world` consecutive ones of the same shuffled stream, one each.
  int64_t steps = x_train.size(0) / options.batch;
  data::Dataset train = data::Dataset::from_tensor_slices({x_train, y_train})
                            .shuffle(1000, options.seed)
                            .batch(batchSize, /*drop_remainder=*/true)
                            .take(steps * world)
                            .shard(world, rank)
                            .prefetch_to_device(device); // prefetch(AUTOTUNE) on the CPU
  losses::SparseCategoricalCrossentropy lossFn(/*from_logits=*/true);
  optimizers::Adam adam(1e-3);
  metrics::Mean trainLoss("loss");
  metrics::SparseCategoricalAccuracy trainAccuracy("accuracy");

  auto trainStep = function(
      [&](const Tensor &images, const Tensor &labels) {
        // With several processes the gradients are averaged over them.
        std::unique_ptr<GradientTape> tape = distributed
                                                 ? std::make_unique<dist::DistributedGradientTape>()
                                                 : std::make_unique<GradientTape>();
        Tensor logits = logitsOf(*model, images, compute, /*training=*/true);
        if (logits.shape() != Shape({batchSize, 10}))
          throw Error("logits of shape " + logits.shape().str() + ", expected (" +
                      std::to_string(batchSize) + ", 10)");
        Tensor loss = lossFn(labels, logits);
        std::vector<Variable> weights = model->trainable_variables();
        adam.apply_gradients(tape->gradient(loss, weights), weights);
        trainLoss.update_state(loss);
        trainAccuracy.update_state(labels, logits);
        return loss;
      },
      "train_step");

  std::optional<summary::SummaryWriter> writer;
  if (chief)
    writer = summary::create_file_writer(options.out + "/logs");
  std::vector<double> lossHistory;
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    trainLoss.reset_state();
    trainAccuracy.reset_state();
    std::optional<utils::Progbar> progress;
    if (chief) {
      std::printf("Epoch %d/%d\n", epoch, options.epochs);
      progress.emplace(steps);
    }
    int64_t step = 0;
    for (const data::Element &batch : train) {
      double loss = trainStep(batch[0], batch[1]).item<float>();
      lossHistory.push_back(loss);
      ++step;
      int64_t global = static_cast<int64_t>(lossHistory.size());
      if (step == steps && distributed) // the epoch's metrics over every rank's batches
        for (const std::vector<Variable> &state :
             {trainLoss.variables(), trainAccuracy.variables()})
          dist::all_reduce_variables(state);
      if (!chief)
        continue;
      if (global % 100 == 0)
        writer->scalar("loss", loss, global);
      progress->update(step, {{"loss", loss}, {"accuracy", trainAccuracy.result().item<double>()}});
    }
    if (chief) {
      writer->scalar("epoch_accuracy", trainAccuracy.result().item<double>(), epoch);
      std::printf("Epoch %d finished\n", epoch);
    }
  }
  if (chief) {
    writer->flush();
    std::printf("Compiled training steps: %zu\n", trainStep.concrete_functions().size());
  }

  double accuracy = evaluate(*model, x_test, y_test, compute, device);
  if (chief)
    std::printf("Test accuracy: %.4f\n", accuracy);

  Checkpoint checkpoint({{"model", *model}, {"optimizer", adam}});
  if (chief) {
    std::string plot = options.out + "/loss.svg";
    // Smoothed as TensorBoard draws scalars: the loss of one batch of 32 is noisy.
    plot::save_line_plot(plot, lossHistory, "Training loss per batch", "batch", "loss",
                         /*smoothing=*/0.9);
    std::printf("Loss plot: %s\n", plot.c_str());
    std::string saved = checkpoint.save(options.out + "/checkpoints/ckpt");
    std::printf("Checkpoint saved: %s\n", saved.c_str());
  }
  if (distributed) {
    dist::barrier(); // the checkpoint is written: every rank restores it
    // Every rank's weights, laid end to end, against rank 0's.
    std::vector<Tensor> flat;
    for (const Variable &w : model->trainable_variables())
      flat.push_back(reshape(w.value(), {1, -1}));
    std::vector<float> every = dist::all_gather(concat(flat, 1)).to_vector<float>();
    size_t count = every.size() / world;
    bool same = true;
    for (size_t i = count; i < every.size(); ++i)
      same &= every[i] == every[i % count];
    if (chief)
      std::printf("Weights identical on every rank: %s\n", same ? "yes" : "NO");
  }

  auto restored = makeModel(options.seed + 1000); // other weights, then loaded
  logitsOf(*restored, one, compute); // weights made, then loaded
  optimizers::Adam restoredAdam(1e-3);
  Checkpoint({{"model", *restored}, {"optimizer", restoredAdam}})
      .restore(*train::latest_checkpoint(options.out + "/checkpoints"));
  double again = evaluate(*restored, x_test, y_test, compute, device);
  if (chief) {
    std::printf("Restored model's test accuracy: %.4f (%s)\n", again,
                again == accuracy ? "the same" : "DIFFERENT");
    std::printf("TensorBoard logs: %s\n", writer->path().c_str());
    if (!options.exportPath.empty())
      exportClassifier(*model, x_test, options.exportPath, compute, device);
  }
  if (distributed)
    dist::destroy_process_group();
  return again == accuracy ? 0 : 1;
} catch (const std::exception &error) {
  std::fprintf(stderr, "c2_image_classifier: %s\n", error.what());
  return 1;
}
