// Shapes that change (issue 25), ember's side; torch_bench.cpp `sweep` is
// LibTorch's. bench/shape_sweep.sh runs both and records the ratios.
//  - `sweep`: relu(x * w + b) and reduce_sum over the rows, x of
//    [1000..1063, 64] f32, w and b of [64]: the 64 row counts once (in a
//    fresh process: with an empty or a warm disk cache) and a second time,
//    with the compiles counted.
//  - `mlp100`: an MLP (784 -> 128 -> 10, relu, softmax-free logits) evaluated
//    eagerly on batch sizes 1 to 100 in a fresh process: total time and
//    compiles.
//  - `loop`: the same MLP evaluated eagerly on one batch of 256, 800 times:
//    the median call of each block of 100, with the background compiles and the
//    specializations that landed (hot shapes: EMBER_HOT_SHAPE_CALLS, 100 by
//    default, 0 off).
//  - `traced`: the sweep's function as an ember::function, traced per
//    shape, with an input signature of [None, 64], and with
//    reduce_retracing; and the MLP traced with [None, 784] on batch sizes
//    1 to 100.
//  - `c2`: story C2's training step (c2_bench.cpp) traced for batch 32 and
//    with an input signature of a None batch: the step at 32 with each (the
//    generic against the specialized), then an epoch's last partial batch,
//    and the model's predictions on batch sizes 1 to 100 (a None batch).
//  - `tape`: story C2's training step run eagerly on a GradientTape (no
//    ember::function) over 10 batch sizes in a fresh process, then at 32
//    again, before and after the eager ops' hot shapes are specialized, and
//    at 16 (a size served by the derivative with a `?` batch): the compiled
//    derivatives and the times (with EMBER_SHAPE_GENERIC=0, a derivative per
//    size, as before issue 25).
//  - `kernels`: an elementwise chain, a broadcast and reductions on 16M f32,
//    SGEMM 1024 and 4096 (M, N, K all `?` in the generic kernel),
//    in the mode the argument names: `generic` (the default: generic kernels),
//    `static` (with EMBER_SHAPE_GENERIC=0: kernels for each shape), `hot`
//    (specialization on, after 21 calls and finish_background_compiles()).
#include "bench_util.h"

#include "ember/ember.h"

#include <algorithm>
#include <string>

using namespace ember;

static void sweep() {
  Tensor w = random_uniform({64}, 1), b = random_uniform({64}, 2);
  std::vector<Tensor> xs;
  for (int64_t rows = 1000; rows < 1064; ++rows)
    xs.push_back(random_uniform({rows, 64}, rows));
  auto pass = [&] {
    double start = bench::now();
    for (const Tensor &x : xs) {
      Tensor y = reduce_sum(relu(x * w + b), {1});
      (void)y.data();
    }
    return bench::now() - start;
  };
  KernelCacheStats before = kernel_cache_stats();
  double first = pass();
  KernelCacheStats after = kernel_cache_stats();
  double second = pass();
  bench::report("ember.sweep64_first_ms", first * 1e3, "ms");
  bench::report("ember.sweep64_second_ms", second * 1e3, "ms");
  bench::report("ember.sweep64_compiles", static_cast<double>(after.misses - before.misses),
                "kernels");
  bench::report("ember.sweep64_disk_loads",
                static_cast<double>(after.disk_loads - before.disk_loads), "kernels");
  bench::report("ember.sweep64_compile_ms", (after.compile_seconds - before.compile_seconds) * 1e3,
                "ms");
}

static void loop() {
  Tensor w1 = random_uniform({784, 128}, 1, -0.05, 0.05), b1 = random_uniform({128}, 2);
  Tensor w2 = random_uniform({128, 10}, 3, -0.05, 0.05), b2 = random_uniform({10}, 4);
  Tensor x = random_uniform({256, 784}, 5);
  for (int block = 0; block < 8; ++block) {
    std::vector<double> calls;
    for (int i = 0; i < 100; ++i) {
      double start = bench::now();
      (void)(matmul(relu(matmul(x, w1) + b1), w2) + b2).data();
      calls.push_back(bench::now() - start);
    }
    std::sort(calls.begin(), calls.end());
    bench::report(("ember.loop256_block" + std::to_string(block) + "_median_us").c_str(),
                  calls[50] * 1e6, "us");
  }
  KernelCacheStats stats = kernel_cache_stats();
  bench::report("ember.loop256_background_compiles", double(stats.background_compiles), "kernels");
  bench::report("ember.loop256_specializations", double(stats.specializations), "kernels");
  bench::report("ember.loop256_background_compile_ms", stats.background_compile_seconds * 1e3,
                "ms");
}

static void mlp100() {
  Tensor w1 = random_uniform({784, 128}, 1, -0.05, 0.05), b1 = random_uniform({128}, 2);
  Tensor w2 = random_uniform({128, 10}, 3, -0.05, 0.05), b2 = random_uniform({10}, 4);
  std::vector<Tensor> batches;
  for (int64_t n = 1; n <= 100; ++n)
    batches.push_back(random_uniform({n, 784}, 100 + n));
  KernelCacheStats before = kernel_cache_stats();
  double start = bench::now();
  for (const Tensor &x : batches) {
    Tensor logits = matmul(relu(matmul(x, w1) + b1), w2) + b2;
    (void)logits.data();
  }
  double seconds = bench::now() - start;
  KernelCacheStats after = kernel_cache_stats();
  bench::report("ember.mlp100_ms", seconds * 1e3, "ms");
  bench::report("ember.mlp100_compiles", static_cast<double>(after.misses - before.misses),
                "kernels");
}

/// The eager sweep's function traced: per shape (`default`), with an input
/// signature of [None, 64] (`signature`) or with reduce_retracing
/// (`relaxed`), over the 64 row counts once, in a fresh process; and the
/// MLP of mlp100 traced with a [None, 784] signature on batch sizes 1..100.
static void traced() {
  Tensor w = random_uniform({64}, 1), b = random_uniform({64}, 2);
  std::vector<Tensor> xs;
  for (int64_t rows = 1000; rows < 1064; ++rows)
    xs.push_back(random_uniform({rows, 64}, rows));
  auto body = [&](const Tensor &x) { return reduce_sum(relu(x * w + b), {1}); };
  auto sweep = [&](const char *what, FunctionOptions options) {
    auto f = function(body, what, options);
    double start = bench::now();
    for (const Tensor &x : xs)
      (void)f(x).data();
    double seconds = bench::now() - start;
    bench::report((std::string("ember.traced_sweep64.") + what + "_ms").c_str(), seconds * 1e3,
                  "ms");
    bench::report((std::string("ember.traced_sweep64.") + what + "_traces").c_str(),
                  static_cast<double>(f.concrete_functions().size()), "traces");
  };
  sweep("default", {});
  sweep("signature", {.input_signature = {{{kNone, 64}}}});
  sweep("relaxed", {.reduce_retracing = true});

  Tensor w1 = random_uniform({784, 128}, 1, -0.05, 0.05), b1 = random_uniform({128}, 2);
  Tensor w2 = random_uniform({128, 10}, 3, -0.05, 0.05), b2 = random_uniform({10}, 4);
  auto mlp = function(
      [&](const Tensor &x) { return matmul(relu(matmul(x, w1) + b1), w2) + b2; }, "mlp",
      {.input_signature = {{{kNone, 784}}}});
  std::vector<Tensor> batches;
  for (int64_t n = 1; n <= 100; ++n)
    batches.push_back(random_uniform({n, 784}, 100 + n));
  double start = bench::now();
  for (const Tensor &x : batches)
    (void)mlp(x).data();
  bench::report("ember.traced_mlp100_ms", (bench::now() - start) * 1e3, "ms");
  bench::report("ember.traced_mlp100_traces", static_cast<double>(mlp.concrete_functions().size()),
                "traces");
}

static std::shared_ptr<layers::Sequential> c2Model() {
  using namespace layers;
  return std::make_shared<Sequential>(std::vector<std::shared_ptr<Layer>>{
      std::make_shared<Conv2D>(16, std::array<int64_t, 2>{3, 3}, "relu"),
      std::make_shared<Conv2D>(16, std::array<int64_t, 2>{3, 3}, "relu"),
      std::make_shared<GlobalAveragePooling2D>(), std::make_shared<Dense>(10)});
}

static void c2() {
  Tensor images = random_uniform({32, 28, 28, 1}, 1);
  Tensor labels = cast(arange(0, 32) % 10, DType::Int64);
  losses::SparseCategoricalCrossentropy lossFn(/*from_logits=*/true);
  auto stepOf = [&](const char *name, FunctionOptions options) {
    auto net = c2Model();
    auto adam = std::make_shared<optimizers::Adam>(1e-3);
    (*net)(images); // weights made
    auto step = function(
        [net, adam, &lossFn](const Tensor &x, const Tensor &y) {
          GradientTape tape;
          Tensor loss = lossFn(y, (*net)(x, true));
          std::vector<Variable> vars = net->trainable_variables();
          adam->apply_gradients(tape.gradient(loss, vars), vars);
          return loss;
        },
        name, options);
    return step;
  };
  for (int round = 0; round < 2; ++round) { // alternated: the VM is noisy
    for (bool generic : {false, true}) {
      if (getenv("C2_ONLY") && std::string(getenv("C2_ONLY")) != (generic ? "none" : "static"))
        continue;
      auto step = generic
                      ? stepOf("c2_step_none",
                               {.input_signature = {{{kNone, 28, 28, 1}}, {{kNone}, DType::Int64}}})
                      : stepOf("c2_step_32", {});
      (void)step(images, labels).data();
      double seconds = bench::medianSeconds(7, 10, [&] { return step(images, labels).data(); });
      bench::report(generic ? "ember.c2_step32.none_batch_ms" : "ember.c2_step32.static_ms",
                    seconds * 1e3, "ms");
      if (generic && round == 0) {
        // The epoch's last partial batch (60000 % 32 = 0; 50000 % 32 = 16).
        Tensor tail = random_uniform({16, 28, 28, 1}, 2);
        Tensor tailLabels = cast(arange(0, 16) % 10, DType::Int64);
        double start = bench::now();
        (void)step(tail, tailLabels).data();
        bench::report("ember.c2_step.partial_batch16_ms", (bench::now() - start) * 1e3, "ms");
        bench::report("ember.c2_step.traces", double(step.concrete_functions().size()), "traces");
      }
    }
  }
  auto net = c2Model();
  (*net)(images);
  auto predict = function([net](const Tensor &x) { return (*net)(x); }, "c2_predict",
                          {.input_signature = {{{kNone, 28, 28, 1}}}});
  std::vector<Tensor> batches;
  for (int64_t n = 1; n <= 100; ++n)
    batches.push_back(random_uniform({n, 28, 28, 1}, 100 + n));
  double start = bench::now();
  for (const Tensor &x : batches)
    (void)predict(x).data();
  bench::report("ember.c2_predict100_ms", (bench::now() - start) * 1e3, "ms");
  bench::report("ember.c2_predict100_traces", double(predict.concrete_functions().size()),
                "traces");
}

static void tape() {
  auto net = c2Model();
  auto adam = std::make_shared<optimizers::Adam>(1e-3);
  losses::SparseCategoricalCrossentropy lossFn(/*from_logits=*/true);
  auto step = [&](const Tensor &x, const Tensor &y) {
    GradientTape tape;
    Tensor loss = lossFn(y, (*net)(x, true));
    std::vector<Variable> vars = net->trainable_variables();
    adam->apply_gradients(tape.gradient(loss, vars), vars);
    return loss;
  };
  auto batch = [](int64_t n) {
    return std::pair{random_uniform({n, 28, 28, 1}, static_cast<uint64_t>(n)),
                     cast(arange(0, n) % 10, DType::Int64)};
  };
  const int64_t sizes[] = {32, 16, 24, 8, 31, 17, 5, 12, 20, 27};
  std::vector<std::pair<Tensor, Tensor>> batches;
  for (int64_t n : sizes)
    batches.push_back(batch(n));
  KernelCacheStats before = kernel_cache_stats();
  double start = bench::now();
  for (auto &[x, y] : batches)
    (void)step(x, y).data();
  double first = bench::now() - start;
  KernelCacheStats after = kernel_cache_stats();
  bench::report("ember.tape_c2_10_sizes_ms", first * 1e3, "ms");
  bench::report("ember.tape_c2_10_sizes_derivatives",
                static_cast<double>(after.tape_compiles - before.tape_compiles), "compiles");
  auto [x, y] = batch(32);
  double seconds = bench::medianSeconds(7, 5, [&] { return step(x, y).data(); });
  bench::report("ember.tape_c2_step32_ms", seconds * 1e3, "ms");
  // The eager ops' hot shapes specialized (after 100 calls of a shape).
  for (int i = 0; i < 100; ++i)
    (void)step(x, y).data();
  finish_background_compiles();
  seconds = bench::medianSeconds(7, 5, [&] { return step(x, y).data(); });
  bench::report("ember.tape_c2_step32_hot_ms", seconds * 1e3, "ms");
  auto [x16, y16] = batch(16); // a size that shares the derivative with `?` dims
  seconds = bench::medianSeconds(7, 5, [&] { return step(x16, y16).data(); });
  bench::report("ember.tape_c2_step16_ms", seconds * 1e3, "ms");
}

static void kernels(const std::string &mode) {
  // generic: the generic kernels alone (no specialization, whatever the
  // size); hot: specialized after 20 calls; fresh: the default policy, a
  // shape this large specialized at its first call in the background while
  // the next calls run (the figure is the median of the 11 after the first).
  if (mode == "generic")
    set_hot_shape_calls(0);
  const int64_t rows = 4096, cols = 4096; // 16M
  Tensor x = random_uniform({rows, cols}, 3), y = random_uniform({rows, cols}, 4);
  Tensor bias = random_uniform({cols}, 5);
  Tensor sink;
  auto measure = [&](const char *what, auto &&op) {
    sink = op();
    if (mode == "hot") { // past the hot-shape threshold, specialization landed
      set_hot_shape_calls(16);
      for (int i = 0; i < 20; ++i)
        sink = op();
      finish_background_compiles();
    }
    double seconds = bench::medianSeconds(std::string(what) == "sgemm_4096" ? 3 : 11, 1,
                                          [&] { sink = op(); });
    bench::report(("ember." + mode + "." + what).c_str(), seconds * 1e3, "ms");
  };
  measure("add_16M", [&] { return x + y; });
  measure("chain3_16M", [&] { return tanh(x * y + y); });
  measure("bias_relu_16M", [&] { return relu(x + bias); });
  measure("reduce_sum_rows_16M", [&] { return reduce_sum(x, {1}); });
  measure("reduce_sum_cols_16M", [&] { return reduce_sum(x, {0}); });
  measure("reduce_mean_all_16M", [&] { return reduce_mean(x, {0, 1}); });
  for (int64_t n : {1024, 4096}) {
    Tensor a = random_uniform({n, n}, 6), b = random_uniform({n, n}, 7);
    measure(("sgemm_" + std::to_string(n)).c_str(), [&] { return matmul(a, b); });
  }
  finish_background_compiles();
}

int main(int argc, char **argv) {
  std::string what = argc > 1 ? argv[1] : "sweep";
  if (what == "sweep")
    sweep();
  else if (what == "mlp100")
    mlp100();
  else if (what == "loop")
    loop();
  else if (what == "traced")
    traced();
  else if (what == "c2")
    c2();
  else if (what == "tape")
    tape();
  else
    kernels(what);
  return 0;
}
