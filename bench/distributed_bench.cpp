// Data parallel (issue 26), one rank of it: run under ember-run, e.g.
//   ember-run -n 2 distributed_bench allreduce   25 MB all-reduced: ember (a new tensor, and
//                                                in place) against Gloo itself
//   ember-run -n 2 distributed_bench c2          the C2 step, batch 32 per rank
//   ember-run -n 2 distributed_bench c2-alone    the same without its all-reduce
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

/// The C2 step on every rank; `reduce`: its gradients averaged over the
/// ranks (DistributedGradientTape), else each rank steps alone (what the
/// machine allows N processes at once, without communication).
void c2Bench(bool reduce) {
  Tensor images = random_uniform({32, 28, 28, 1}, dist::rank() + 1);
  Tensor labels = cast(arange(0, 32) % 10, DType::Int64);
  losses::SparseCategoricalCrossentropy lossFn(/*from_logits=*/true);
  auto net = c2Model();
  optimizers::Adam adam(1e-3);
  (*net)(images); // weights made
  dist::broadcast_variables(net->variables());
  auto step = function(
      [&](const Tensor &x, const Tensor &y) {
        std::unique_ptr<GradientTape> tape = reduce
                                                 ? std::make_unique<dist::DistributedGradientTape>()
                                                 : std::make_unique<GradientTape>();
        Tensor loss = lossFn(y, (*net)(x, true));
        std::vector<Variable> vars = net->trainable_variables();
        adam.apply_gradients(tape->gradient(loss, vars), vars);
        return loss;
      },
      "c2_data_parallel_step");
  step(images, labels);
  dist::barrier();
  double seconds = bench::medianSeconds(7, 10, [&] { return step(images, labels); });
  if (dist::rank() == 0) {
    std::string prefix =
        "ranks" + std::to_string(dist::world_size()) + (reduce ? "." : ".no_all_reduce.");
    bench::report((prefix + "ember.c2_step").c_str(), seconds * 1e3, "ms");
    bench::report((prefix + "ember.c2_images_per_s").c_str(), 32.0 * dist::world_size() / seconds,
                  "images/s");
  }
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "allreduce" && mode != "c2" && mode != "c2-alone") {
    std::fprintf(stderr, "usage: ember-run -n N distributed_bench allreduce|c2|c2-alone\n");
    return 2;
  }
  dist::init_process_group();
  mode == "allreduce" ? allReduceBench() : c2Bench(mode == "c2");
  dist::destroy_process_group();
}
