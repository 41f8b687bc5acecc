//===- JitHostTest.cpp - the host side of the GPU, without a GPU ----------===//
//
// Run by ctest with EMBERRT_CUDA_DRIVER naming the fake driver
// (unittests/runtime/FakeCudaDriver.cpp): "device memory" is host memory and
// kernels do not run, so these tests check what happens on the host — where
// tensors go, copies, errors, and that eager ops, traced functions, control
// flow and gradients compile for the CUDA target and launch their kernels —
// but not what the kernels compute (JitTest.cpp checks that on a GPU).
//
//===----------------------------------------------------------------------===//

#include "ErrorTestUtil.h"
#include "c2.h"
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>

using namespace ember;

namespace {

/// The fake driver's function `name` (null without it).
void *fakeSymbol(const char *name) {
  const char *path = std::getenv("EMBERRT_CUDA_DRIVER");
  void *driver = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  return driver ? dlsym(driver, name) : nullptr;
}

/// One of the fake driver's counters (-1 without it).
int fakeCount(const char *counter) {
  auto count = reinterpret_cast<int (*)()>(fakeSymbol(counter));
  return count ? count() : -1;
}
int launches() { return fakeCount("emberFakeCudaLaunches"); }

/// The fake driver's memory for global `name` of the module that last had
/// it looked up (the runtime looks up the fault globals as it loads).
void *fakeGlobal(const char *name) {
  auto global = reinterpret_cast<void *(*)(const char *)>(fakeSymbol("emberFakeCudaLastGlobal"));
  return global ? global(name) : nullptr;
}

#define REQUIRE_FAKE_GPU()                                                                         \
  if (!cuda_is_available() || cuda_status().find("Fake GPU") == std::string::npos)                \
  GTEST_SKIP() << "needs EMBERRT_CUDA_DRIVER=<libember-fake-cuda.so> (ctest sets it)"

const Device kGpu("cuda:0");

TEST(GpuJitHost, CopiesKeepValuesAndDevicesAreListed) {
  REQUIRE_FAKE_GPU();
  EXPECT_EQ(list_devices().size(), 2u);
  Tensor x = Tensor({{1, 2, 3}, {4, 5, 6}});
  Tensor onGpu = x.to(kGpu);
  EXPECT_EQ(onGpu.device(), kGpu);
  EXPECT_NE(onGpu.data(), x.data());
  EXPECT_EQ(onGpu.to_vector<int>(), (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(onGpu.to(kGpu).impl(), onGpu.impl());
  EXPECT_EQ(onGpu.cpu().device(), Device("cpu"));
  EXPECT_EQ(onGpu.to_string(), x.to_string());
  EXPECT_EQ(Tensor(7).cuda().item<int>(), 7);
}

TEST(GpuJitHost, OpsRunWhereTheirOperandsAre) {
  REQUIRE_FAKE_GPU();
  Tensor host = Tensor({1.0f, 2.0f}), gpu = host.to(kGpu);
  int before = launches();
  Tensor sum = gpu + gpu;
  EXPECT_EQ(sum.device(), kGpu);
  EXPECT_GT(launches(), before);
  EXPECT_EQ((gpu * 2.0f).device(), kGpu);         // a host scalar follows
  EXPECT_EQ((gpu * Tensor(2.0f)).device(), kGpu); // a 0-d host tensor too
  EXPECT_EQ((host + host).device(), Device("cpu"));
  {
    // Under a tape each broadcast operand is an op of its own: a host
    // scalar broadcast where the op runs (it once stayed on the host and met
    // the GPU operand: "operands on different devices").
    Variable w(gpu);
    GradientTape tape;
    Tensor scaled = w * 0.01f, shifted = 1.0f + w;
    EXPECT_EQ(scaled.device(), kGpu);
    EXPECT_EQ(shifted.device(), kGpu);
    EXPECT_EQ(tape.gradient(reduce_sum(scaled + shifted), std::vector<Variable>{w},
                            UnconnectedGradients::Zero)[0]
                  .device(),
              kGpu);
  }
  {
    // What the tape recorded on the host (a variable's value, an op's
    // result) is not copied to the GPU for an op: the copy is no op of the
    // tape's, and the variable's gradient would be missing, not an error.
    // (Integers, which have no gradient, are copied: dropout's counters.)
    Variable hostScale(Tensor(0.5f)), hostRow(Tensor({1.0f, 2.0f}));
    GradientTape tape;
    for (auto use : std::initializer_list<std::function<Tensor()>>{
             [&] { return gpu * hostScale.value(); },
             [&] { return gpu + reduce_sum(hostRow.value() * 3.0f); },
             [&] {
               DeviceScope onGpu(kGpu);
               return hostRow.value() + 1.0f;
             }}) {
      try {
        (void)use();
        FAIL() << "a recorded host operand was copied to the GPU";
      } catch (const OpError &e) {
        EXPECT_NE(std::string(e.what()).find("where a GradientTape recorded it, and runs on "
                                             "cuda:0"),
                  std::string::npos)
            << e.what();
      }
    }
  }
  try {
    (void)maximum(host, gpu);
    FAIL() << "mixed devices accepted";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("JitHostTest.cpp"), std::string::npos) << message;
    EXPECT_NE(message.find("'ember.maximum' op has operands on different devices: operand #0 "
                           "(shape (2,)) is on cpu, operand #1 (shape (2,)) on cuda:0"),
              std::string::npos)
        << message;
  }
  DeviceScope scope(kGpu);
  EXPECT_EQ((host + host).device(), kGpu); // host operands follow the scope
  EXPECT_EQ(zeros({3}).device(), kGpu);
  EXPECT_EQ(Tensor::empty({3}, DType::Float32).device(), kGpu);
}

// A traced function with a None batch compiles once for the GPU (its
// kernels take memref descriptors) and launches for every batch; a softmax
// over None rows and columns too (a buffer bufferization left with a `?`
// size once stopped it: "a host buffer of dynamic size").
TEST(GpuJitHost, NoneDimsCompileOnceForTheGpu) {
  REQUIRE_FAKE_GPU();
  auto f = function(
      [](const Tensor &x, const Tensor &w) { return relu(matmul(x, w)); }, "dense",
      {.input_signature = {TensorSpec({kNone, 16}, kFloat32), TensorSpec({16, 8}, kFloat32)}});
  Tensor w = ones({16, 8}).to(kGpu);
  for (int64_t rows : {1, 5, 300}) {
    int before = launches();
    Tensor y = f(ones({rows, 16}).to(kGpu), w);
    EXPECT_EQ(y.device(), kGpu);
    EXPECT_EQ(y.shape(), Shape({rows, 8}));
    EXPECT_GT(launches(), before);
  }
  EXPECT_EQ(f.concrete_functions().size(), 1u);
  auto softmaxRows = function([](const Tensor &x) { return nn::softmax(x); }, "softmax_rows",
                              {.input_signature = {TensorSpec({kNone, kNone}, kFloat32)}});
  EXPECT_EQ(softmaxRows(ones({3, 7}).to(kGpu)).shape(), Shape({3, 7}));
  EXPECT_EQ(softmaxRows(ones({30, 2}).to(kGpu)).shape(), Shape({30, 2}));
  EXPECT_EQ(softmaxRows.concrete_functions().size(), 1u);
}

// An eager tape on the GPU whose recordings differ only in the batch
// compiles two derivatives for all of them: the first batch's own (static
// sizes: tiled matmuls, tensor cores) and one with the batch `?` for the
// others (not every size `?`, as on the CPU: a `?` N or K is a thread per
// element of C on the GPU).
TEST(GpuJitHost, EagerTapesShareOneDerivativeAcrossBatches) {
  REQUIRE_FAKE_GPU();
  Variable w(ones({16, 8}).to(kGpu));
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t rows : {3, 5, 9, 17}) {
    GradientTape tape;
    Tensor loss = reduce_sum(relu(matmul(ones({rows, 16}).to(kGpu), w)) * 0.5f);
    std::vector<Tensor> grads =
        tape.gradient(loss, std::vector<Variable>{w}, UnconnectedGradients::Zero);
    EXPECT_EQ(grads.at(0).device(), kGpu);
    EXPECT_EQ(grads.at(0).shape(), Shape({16, 8}));
  }
  EXPECT_EQ(kernel_cache_stats().tape_compiles, before.tape_compiles + 2)
      << "the first batch's derivative and one for every other batch";
}

TEST(GpuJitHost, EagerKernelsAreCachedPerDevice) {
  REQUIRE_FAKE_GPU();
  Tensor x = Tensor({{1.5f, 2.5f}, {3.5f, 4.5f}});
  (void)exp(x);
  KernelCacheStats before = kernel_cache_stats();
  (void)exp(x.to(kGpu)); // same signature, another device: compiled again
  (void)exp(x.to(kGpu));
  (void)exp(x);
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.misses, before.misses + 1);
  EXPECT_EQ(after.hits, before.hits + 2);
  // A cached kernel is launched without asking the driver for it again.
  Tensor y = x.to(kGpu);
  int lookups = fakeCount("emberFakeCudaFunctionLookups"), launched = launches();
  for (int i = 0; i < 10; ++i)
    (void)exp(y);
  EXPECT_EQ(launches(), launched + 10);
  EXPECT_EQ(fakeCount("emberFakeCudaFunctionLookups"), lookups);
}

// Eager ops on the GPU share one shape-generic kernel across sizes, as on
// the CPU: a new row count compiles nothing; a hot shape is compiled for its
// sizes on the background thread (its module loaded there) and swapped in.
TEST(GpuJitHost, EagerGpuOpsShareOneKernelAcrossShapes) {
  REQUIRE_FAKE_GPU();
  uint32_t saved = hot_shape_calls();
  set_hot_shape_calls(4);
  (void)tanh(ones({3, 6}).to(kGpu));
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t rows : {5, 9, 17, 33})
    EXPECT_EQ(tanh(ones({rows, 6}).to(kGpu)).shape(), Shape({rows, 6}));
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.misses, before.misses) << "a new shape compiled";
  EXPECT_EQ(after.generic_shapes, before.generic_shapes + 4);
  Tensor hot = ones({9, 6}).to(kGpu);
  int launched = launches();
  for (int i = 0; i < 6; ++i)
    (void)tanh(hot);
  finish_background_compiles();
  EXPECT_EQ(kernel_cache_stats().specializations, after.specializations + 1);
  // The next call runs the specialization: its own module's kernel, looked
  // up from the driver at its first launch (the generic one's was cached).
  int lookups = fakeCount("emberFakeCudaFunctionLookups");
  (void)tanh(hot);
  EXPECT_EQ(launches(), launched + 7);
  EXPECT_GT(fakeCount("emberFakeCudaFunctionLookups"), lookups)
      << "the call did not run the specialization";
  set_hot_shape_calls(saved);
}

Tensor crossEntropy(const Tensor &logits, const Tensor &labels) {
  Tensor shifted = logits - reduce_max(logits, {1}, true);
  Tensor logProbs = shifted - log(reduce_sum(exp(shifted), {1}, true));
  return -reduce_mean(reduce_sum(labels * logProbs, {1}));
}

TEST(GpuJitHost, TracedFunctionsControlFlowAndGradientsCompileForTheGpu) {
  REQUIRE_FAKE_GPU();
  Tensor x = random_uniform({16, 8}, 1).to(kGpu), w = random_uniform({8, 4}, 2).to(kGpu);
  Tensor labels =
      cast(equal(reshape(arange(0, 64) % 4, {16, 4}), Tensor(1)), DType::Float32).to(kGpu);
  int before = launches();
  auto step = function(
      [](const Tensor &input, const Tensor &weights, const Tensor &target) {
        Tensor total = fori_loop(
            0, 3, [&](const Tensor &, const Tensor &t) { return t * 0.5f + input; }, input);
        Tensor h = cond(reduce_sum(total) > 0.0f, [&] { return total; }, [&] { return -total; });
        return crossEntropy(matmul(h, weights), target);
      },
      "host_step");
  EXPECT_EQ(step(x, w, labels).device(), kGpu);
  auto grads = value_and_grad([](const Tensor &weights, const Tensor &input, const Tensor &target) {
    return crossEntropy(relu(matmul(input, weights)), target);
  });
  ValueAndGrad r = grads(w, x, labels);
  EXPECT_EQ(r.value.device(), kGpu);
  EXPECT_EQ(r.gradients.at(0).device(), kGpu);
  {
    Variable v(w);
    GradientTape tape;
    Tensor loss = crossEntropy(matmul(x, v), labels);
    std::vector<Tensor> g = tape.gradient(loss, {v}, UnconnectedGradients::Zero);
    EXPECT_EQ(g.at(0).device(), kGpu);
    EXPECT_EQ(g.at(0).shape(), w.shape());
  }
  EXPECT_GT(launches(), before);
}

TEST(GpuJitHost, ConvolutionsPoolingAndTheirGradientsCompileForTheGpu) {
  REQUIRE_FAKE_GPU();
  Tensor x = random_uniform({2, 9, 9, 3}, 1).to(kGpu), w = random_uniform({3, 3, 3, 4}, 2).to(kGpu);
  int before = launches();
  EXPECT_EQ(nn::conv2d(x, w, {2, 2}, "SAME").device(), kGpu);
  EXPECT_EQ(nn::max_pool2d(x, {2, 2}, {2, 2}, "SAME").device(), kGpu);
  EXPECT_EQ(nn::avg_pool2d(x, {3, 3}, {1, 1}).device(), kGpu);
  Variable filters(w);
  GradientTape tape;
  Tensor y = nn::max_pool2d(relu(nn::conv2d(x, filters, {1, 1}, "SAME")), {2, 2}, {2, 2});
  y = layers::Dropout(0.5, 7)(y, /*training=*/true); // its counters made beside y
  Tensor logits = reduce_mean(nn::avg_pool2d(y, {2, 2}, {2, 2}), {1, 2});
  Tensor loss = losses::SparseCategoricalCrossentropy(true)(Tensor({1, 3}).to(kGpu), logits);
  std::vector<Tensor> grads = tape.gradient(loss, {filters}, UnconnectedGradients::Zero);
  EXPECT_EQ(grads.at(0).device(), kGpu);
  EXPECT_EQ(grads.at(0).shape(), w.shape());
  EXPECT_GT(launches(), before);
}

TEST(GpuJitHost, TheC2TrainingStepKeepsItsVariablesOnTheGpu) {
  REQUIRE_FAKE_GPU();
  c2::Trainer trainer(kGpu, 4);
  for (const Variable &v : trainer.net->trainable_variables())
    EXPECT_EQ(v.value().device(), kGpu) << v.name();
  // The optimizer's slots are made beside their variables (Keras's rule).
  trainer.adam->build(trainer.net->trainable_variables());
  for (const auto &[name, slot] : trainer.adam->variables())
    if (slot.shape().rank() > 0)
      EXPECT_EQ(slot.value().device(), kGpu) << name;
  int before = launches();
  Tensor loss = trainer.step(c2::images(4).to(kGpu), c2::labels(4).to(kGpu));
  EXPECT_EQ(loss.device(), kGpu);
  EXPECT_GT(launches(), before);
  for (const Variable &v : trainer.net->trainable_variables())
    EXPECT_EQ(v.value().device(), kGpu) << v.name();
}

TEST(GpuJitHost, PinnedTensorsAreStagedAndTheirBlocksReused) {
  REQUIRE_FAKE_GPU();
  Tensor x = arange(0, 12, 1, DType::Float32);
  EXPECT_FALSE(x.is_pinned());
  Tensor pinned = x.pin_memory();
  EXPECT_TRUE(pinned.is_pinned());
  EXPECT_EQ(pinned.device(), Device("cpu"));
  EXPECT_EQ(pinned.pin_memory().impl(), pinned.impl()); // pinned already
  EXPECT_EQ(pinned.to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ((pinned * 2.0f).to_vector<float>(), (x * 2.0f).to_vector<float>()); // host ops read it
  Tensor onGpu = pinned.to(kGpu);
  EXPECT_EQ(onGpu.device(), kGpu);
  EXPECT_EQ(onGpu.to_vector<float>(), x.to_vector<float>());
  try {
    (void)onGpu.pin_memory();
    FAIL() << "a GPU tensor pinned";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("is on cuda:0; only host tensors can be pinned"),
              std::string::npos)
        << e.what();
  }
  // A freed block is reused once its copies are done (the fake driver's are
  // at once), not allocated again: one block more at most for the loop.
  int held = fakeCount("emberFakeCudaPinnedBlocks");
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ((x + float(i)).pin_memory().to(kGpu).to_vector<float>(),
              (x + float(i)).to_vector<float>());
  EXPECT_LE(fakeCount("emberFakeCudaPinnedBlocks"), held + 1);
}

TEST(GpuJitHost, PrefetchToDeviceDeliversBatchesOnTheGpu) {
  REQUIRE_FAKE_GPU();
  Tensor images = reshape(arange(0, 40, 1, DType::Float32), {10, 2, 2});
  Tensor classes = arange(0, 10, 1, DType::Int64);
  data::Dataset batches =
      data::Dataset::from_tensor_slices({images, classes}).batch(4).prefetch_to_device(kGpu);
  EXPECT_EQ(batches.cardinality(), 3);
  int64_t row = 0;
  for (const data::Element &batch : batches) {
    ASSERT_EQ(batch.size(), 2u);
    EXPECT_EQ(batch[0].device(), kGpu);
    EXPECT_EQ(batch[1].device(), kGpu);
    int64_t n = batch[0].size(0);
    EXPECT_EQ(batch[0].to_vector<float>(),
              slice(images, {row, 0, 0}, {row + n, 2, 2}).to_vector<float>());
    EXPECT_EQ(batch[1].to_vector<int64_t>(), slice(classes, {row}, {row + n}).to_vector<int64_t>());
    row += n;
  }
  EXPECT_EQ(row, 10);
  for (const data::Element &batch :
       data::Dataset::from_tensor_slices(classes).batch(5).prefetch_to_device(Device("cpu")))
    EXPECT_EQ(batch[0].device(), Device("cpu"));
}

} // namespace

// A GPU kernel reports a fault to the runtime's word some time after its
// launch; the host raises it where it waits for the GPU (a download,
// synchronize) as an OpError naming the op and the user's line, once. The
// fake driver's kernels do not run: the test writes what the kernel would
// (GpuJit.KernelFaultsNameTheOpAndTheLine runs real ones).
TEST(GpuJitHost, KernelFaultsAreRaisedWhereTheHostWaits) {
  REQUIRE_FAKE_GPU();
  Tensor a = Tensor({7, 8}).to(kGpu), b = Tensor({0, 1}).to(kGpu);
  int line = __LINE__ + 1;
  Tensor quotient = div(a, b);
  // The module's globals, which the runtime set as it loaded the kernel.
  auto *wordAddress = static_cast<uint64_t *>(fakeGlobal("__ember_fault_word"));
  auto *tag = static_cast<uint32_t *>(fakeGlobal("__ember_fault_tag"));
  ASSERT_TRUE(wordAddress && tag) << "the division's module has no fault globals";
  ASSERT_NE(*wordAddress, 0u);
  ASSERT_NE(*tag, 0u);
  auto *word = reinterpret_cast<uint64_t *>(*wordAddress);
  const uint64_t divisionByZeroAtSite0 = uint64_t(*tag) << 32 | uint64_t(1) << 24;
  *word = divisionByZeroAtSite0;
  std::string message = test::errorOf<OpError>([&] { (void)quotient.to_vector<int32_t>(); });
  test::expectContains(message, std::string(__FILE__) + ":" + std::to_string(line) + ":");
  test::expectContains(message, "'ember.div' op integer division by zero");
  EXPECT_EQ(*word, 0u) << "taken faults are cleared";
  EXPECT_NO_THROW(synchronize());
  *word = divisionByZeroAtSite0;
  test::expectContains(test::errorOf<OpError>([] { synchronize(); }),
                       "'ember.div' op integer division by zero");
  // A kernel that cannot fault has no globals: an add's module leaves the
  // division's globals the last ones looked up.
  (void)(a + b);
  EXPECT_EQ(fakeGlobal("__ember_fault_tag"), tag);
}
