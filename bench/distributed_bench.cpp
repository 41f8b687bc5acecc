// Data parallel (issue 26), one rank of it: run under ember-run, e.g.
//   ember-run -n 2 distributed_bench allreduce   25 MB all-reduced: ember (a new tensor, and
//                                                in place) against Gloo itself
//   ember-run -n 2 distributed_bench c2          the C2 step, batch 32 per rank
//   ember-run -n 2 distributed_bench c2-alone    the same without its all-reduce
//   ember-run -n 2 distributed_bench c2-no-overlap  all-reduces where they start
//   ember-run -n 2 distributed_bench mlp[-alone|-no-overlap] [MB]  an MLP, 2.6 MB
//                                                of gradients in buckets of MB (1)
// (bench/run.sh distributed runs both, 1 and 2 ranks, and LibTorch's side).
// Every rank measures; rank 0 reports medians. Threads: EMBER_NUM_THREADS.
#include "bench_util.h"
#include "c2_model.h"

#include "ember/ember.h"

#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

using namespace ember;
namespace dist = ember::distributed;

namespace {

/// Gloo alone, as its users call it: its own context, connected through a
/// file store, reducing a buffer in place.
struct PlainGloo {
  std::shared_ptr<gloo::rendezvous::Context> context;
  PlainGloo(int rank, int size, const std::string &store) {
    gloo::rendezvous::FileStore files(store);
    auto device = gloo::transport::tcp::CreateDevice("127.0.0.1");
    context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->connectFullMesh(files, device);
  }
  void allReduce(float *data, size_t count) {
    gloo::AllreduceOptions options(context);
    options.setOutput(data, count);
    options.setReduceFunction(
        static_cast<void (*)(void *, const void *, const void *, size_t)>(&gloo::sum<float>));
    gloo::allreduce(options);
  }
};

void allReduceBench() {
  const int64_t count = 25 * 1024 * 1024 / 4; // 25 MB of float32 (PyTorch DDP's bucket)
  Tensor x = full({count}, 1.0);
  std::string store = "/tmp/ember-distributed-bench-" + std::string(std::getenv("MASTER_PORT"));
  if (dist::rank() == 0)
    std::filesystem::create_directories(store);
  dist::barrier();
  PlainGloo gloo(dist::rank(), dist::world_size(), store);
  std::vector<float> buffer(count, 1.f);
  for (int round = 0; round < 3; ++round) { // interleaved, so that drift hits both
    double plain = bench::medianSeconds(7, 3, [&] {
      gloo.allReduce(buffer.data(), buffer.size());
      return 0;
    });
    double ours = bench::medianSeconds(7, 3, [&] { return dist::all_reduce(x); });
    double inPlace = bench::medianSeconds(7, 3, [&] {
      dist::all_reduce_(x);
      return 0;
    });
    if (dist::rank() == 0) {
      std::string prefix = "round" + std::to_string(round) + ".";
      bench::report((prefix + "gloo.allreduce_25MB").c_str(), plain * 1e3, "ms");
      bench::report((prefix + "ember.all_reduce_25MB").c_str(), ours * 1e3, "ms");
      bench::report((prefix + "ember.all_reduce_in_place_25MB").c_str(), inPlace * 1e3, "ms");
    }
  }
  dist::barrier();
  if (dist::rank() == 0)
    std::filesystem::remove_all(store);
}

/// A training step (Adam, softmax cross-entropy) of `net` traced on every
/// rank; `reduce`: its gradients averaged over the ranks
/// (DistributedGradientTape, buckets of `bucketMb`), else each rank steps
/// alone (what the machine allows N processes at once, without
/// communication). Reported as `<ranks>[.no_all_reduce|.no_overlap].ember.<name>_step`.
void stepBench(const std::string &name, std::shared_ptr<layers::Sequential> net,
               const Tensor &inputs, const Tensor &labels, bool reduce, double bucketMb,
               const std::string &variant) {
  losses::SparseCategoricalCrossentropy lossFn(/*from_logits=*/true);
  optimizers::Adam adam(1e-3);
  (*net)(inputs); // weights made
  dist::broadcast_variables(net->variables());
  auto step = function(
      [&](const Tensor &x, const Tensor &y) {
        std::unique_ptr<GradientTape> tape =
            reduce ? std::make_unique<dist::DistributedGradientTape>(false, dist::ReduceOp::Mean,
                                                                     bucketMb)
                   : std::make_unique<GradientTape>();
        Tensor loss = lossFn(y, (*net)(x, true));
        std::vector<Variable> vars = net->trainable_variables();
        adam.apply_gradients(tape->gradient(loss, vars), vars);
        return loss;
      },
      name + "_data_parallel_step");
  step(inputs, labels);
  dist::barrier();
  double seconds = bench::medianSeconds(7, 10, [&] { return step(inputs, labels); });
  if (dist::rank() == 0) {
    std::string prefix = "ranks" + std::to_string(dist::world_size()) + variant + ".ember." + name;
    int64_t batch = inputs.shape()[0];
    bench::report((prefix + "_step").c_str(), seconds * 1e3, "ms");
    bench::report((prefix + "_examples_per_s").c_str(),
                  double(batch) * dist::world_size() / seconds, "examples/s");
  }
}

/// The C2 step, batch 32 per rank, its 12 KB of gradients one bucket.
void c2Bench(bool reduce, const std::string &variant) {
  Tensor images = random_uniform({32, 28, 28, 1}, dist::rank() + 1);
  Tensor labels = cast(arange(0, 32) % 10, DType::Int64);
  stepBench("c2", c2Model(), images, labels, reduce, 25, variant);
}

/// An MLP 784-512-512-10, batch 128 per rank: 2.6 MB of gradients in
/// buckets of `bucketMb` (1 MB: four, the first (the last layers') reduced
/// while the first layer's gradients are computed).
void mlpBench(bool reduce, const std::string &variant, double bucketMb) {
  using namespace layers;
  auto net = std::make_shared<Sequential>(std::vector<std::shared_ptr<Layer>>{
      std::make_shared<Dense>(512, "relu"), std::make_shared<Dense>(512, "relu"),
      std::make_shared<Dense>(10)});
  Tensor inputs = random_uniform({128, 784}, dist::rank() + 1);
  Tensor labels = cast(arange(0, 128) % 10, DType::Int64);
  stepBench("mlp", net, inputs, labels, reduce, bucketMb, variant);
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  const char *modes[] = {"allreduce", "c2", "c2-alone", "c2-no-overlap",
                         "mlp",       "mlp-alone", "mlp-no-overlap"};
  if (std::find(std::begin(modes), std::end(modes), mode) == std::end(modes)) {
    std::fprintf(stderr, "usage: ember-run -n N distributed_bench "
                         "allreduce|c2|c2-alone|c2-no-overlap|mlp|mlp-alone|mlp-no-overlap\n");
    return 2;
  }
  bool alone = mode.ends_with("-alone"), noOverlap = mode.ends_with("-no-overlap");
  dist::ProcessGroupOptions options;
  options.overlap_communication = !noOverlap;
  dist::init_process_group(options);
  std::string variant = alone ? ".no_all_reduce" : noOverlap ? ".no_overlap" : "";
  if (mode == "allreduce")
    allReduceBench();
  else if (mode.starts_with("c2"))
    c2Bench(!alone, variant);
  else
    mlpBench(!alone, variant, argc > 2 ? std::atof(argv[2]) : 1.0);
  dist::destroy_process_group();
}
