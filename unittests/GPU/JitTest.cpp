//===- JitTest.cpp - eager ops, traced functions and tapes on a GPU -------===//
//
// The front end on cuda:0 through the JIT's CUDA target, each result compared
// with the same computation on the CPU. Without a GPU every test skips,
// naming why. Linked with MLIR and LLVM statically (EMBER_STATIC_LLVM) by
// scripts/gpu-bundle.sh, so that it runs on the GPU machine, which has no
// LLVM.
//
//===----------------------------------------------------------------------===//

#include "ErrorTestUtil.h"
#include "c2.h"
#include "ember/ember.h"
#include "mlp.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ember;

namespace {

#define REQUIRE_GPU()                                                                              \
  if (!cuda_is_available())                                                                        \
  GTEST_SKIP() << "no GPU: " << cuda_status()

const Device kGpu("cuda:0");

void expectClose(const Tensor &gpu, const Tensor &cpu, double tolerance = 1e-5) {
  ASSERT_EQ(gpu.shape(), cpu.shape());
  ASSERT_EQ(gpu.dtype(), cpu.dtype());
  std::vector<double> got = gpu.to_vector<double>(), expected = cpu.to_vector<double>();
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], expected[i], tolerance * std::max(1.0, std::abs(expected[i])))
        << "at " << i;
}

TEST(GpuJit, EagerOpsRunOnTheGpuAndMatchTheCpu) {
  REQUIRE_GPU();
  Tensor a = random_uniform({33, 70}, 1, -2, 2), b = random_uniform({33, 70}, 2, -2, 2);
  Tensor ga = a.to(kGpu), gb = b.to(kGpu);
  EXPECT_EQ(ga.device(), kGpu);
  Tensor sum = ga + gb;
  EXPECT_EQ(sum.device(), kGpu);
  expectClose(sum, a + b);
  expectClose(ga * gb - ga / (abs(gb) + 1.0f), a * b - a / (abs(b) + 1.0f));
  expectClose(exp(ga) + tanh(gb), exp(a) + tanh(b), 1e-5);
  expectClose(maximum(ga, gb), maximum(a, b));
  expectClose(reduce_sum(ga, {1}), reduce_sum(a, {1}), 1e-4);
  expectClose(reduce_max(ga, {0}), reduce_max(a, {0}));
  expectClose(reduce_sum(ga), reduce_sum(a), 1e-4);
  expectClose(transpose(ga), transpose(a));
  expectClose(matmul(ga, transpose(gb)), matmul(a, transpose(b)), 1e-4);
  // Broadcasting, integer ops, comparisons.
  Tensor row = random_uniform({70}, 3);
  expectClose(ga + row.to(kGpu), a + row);
  Tensor ints = arange(0, 100, 1, DType::Int32);
  expectClose(ints.to(kGpu) * 3 + 7, ints * 3 + 7);
  expectClose(cast(ga > gb, DType::Int32), cast(a > b, DType::Int32));
}

// bfloat16 and float16 matmuls run on tensor cores on the GPU and in
// float32 on the CPU: the products are exact in both, the float32 sums differ
// in order only, so C agrees to about a unit in its last place. Eager, traced
// (transposed operands fused into the matmul) and through a tape (the
// gradients' transposed matmuls).
TEST(GpuJit, HalfPrecisionMatmulsOnTensorCoresMatchTheCpu) {
  REQUIRE_GPU();
  for (DType dtype : {kBFloat16, kFloat16}) {
    SCOPED_TRACE(std::string(dtypeName(dtype)));
    double ulp = dtype == kBFloat16 ? 1.0 / 128 : 1.0 / 1024;
    Tensor a = cast(random_uniform({200, 72}, 31, -1, 1), dtype);
    Tensor b = cast(random_uniform({72, 136}, 32, -1, 1), dtype);
    expectClose(matmul(a.to(kGpu), b.to(kGpu)), matmul(a, b), ulp);
    auto transposed = function(
        [](const Tensor &x, const Tensor &y) { return matmul(transpose(x), transpose(y)); },
        "transposed");
    Tensor at = transpose(a), bt = transpose(b);
    expectClose(transposed(at.to(kGpu), bt.to(kGpu)), transposed(at, bt), ulp);
    auto gradients = [&](const Device &device) {
      Variable x(a.to(device)), w(b.to(device));
      GradientTape tape;
      Tensor loss = reduce_sum(cast(matmul(x, w), kFloat32) * 0.01f);
      return tape.gradient(loss, std::vector<Variable>{x, w}, UnconnectedGradients::Zero);
    };
    std::vector<Tensor> gpu = gradients(kGpu), cpu = gradients(Device("cpu"));
    for (size_t i = 0; i < gpu.size(); ++i)
      expectClose(gpu[i], cpu[i], ulp);
  }
}

// TF32 (TensorFlow's switch; this binary's main turns it off): 1 + 2^-12 is
// a quarter of TF32's last place above 1, so a TF32 matmul sums ones where
// a float32 one sums 1 + 2^-12; eager ops, traced functions and a tape's
// derivative (x^T @ dz) compile again when the switch changes. Random
// operands stay within TF32's error.
TEST(GpuJit, TensorFloat32MatmulsFollowTheSwitch) {
  REQUIRE_GPU();
  EXPECT_FALSE(tensor_float_32_execution_enabled());
  Tensor a = full({64, 128}, 1.0f + 1.0f / 4096), b = ones({128, 64});
  auto traced = function([](const Tensor &x, const Tensor &y) { return matmul(x, y); }, "mm");
  auto first = [](const Tensor &t) { return t.to_vector<float>()[0]; };
  // dw = a^T dz1 with dz1 = dz2 u^T = 8 everywhere: 64 rows of 8 (1 + 2^-12);
  // the tape's first derivative has static sizes, so dw takes tensor cores.
  auto weightGradient = [&] {
    Variable w(ones({128, 64}).to(kGpu));
    GradientTape tape;
    Tensor loss = reduce_sum(matmul(matmul(a.to(kGpu), w), ones({64, 8}).to(kGpu)));
    return first(*tape.gradient(loss, std::vector<Variable>{w})[0]);
  };
  enable_tensor_float_32_execution(true);
  float eagerTF32 = first(matmul(a.to(kGpu), b.to(kGpu)));
  float tracedTF32 = first(traced(a.to(kGpu), b.to(kGpu)));
  float gradientTF32 = weightGradient();
  Tensor x = random_uniform({256, 512}, 41, -1, 1), w = random_uniform({512, 200}, 42, -1, 1);
  expectClose(matmul(x.to(kGpu), w.to(kGpu)), matmul(x, w), 1e-2);
  enable_tensor_float_32_execution(false);
  EXPECT_EQ(eagerTF32, 128.0f);
  EXPECT_EQ(tracedTF32, 128.0f);
  EXPECT_EQ(gradientTF32, 512.0f);
  EXPECT_EQ(weightGradient(), 512.125f);
  EXPECT_EQ(first(matmul(a.to(kGpu), b.to(kGpu))), 128.03125f);
  EXPECT_EQ(first(traced(a.to(kGpu), b.to(kGpu))), 128.03125f);
  EXPECT_EQ(traced.concrete_functions().size(), 2u); // one per setting
  expectClose(matmul(x.to(kGpu), w.to(kGpu)), matmul(x, w), 1e-4);
}

// Eager ops on the GPU serve new shapes from one shape-generic kernel (and
// hot shapes from their specialization, compiled in the background): the
// CPU's values at every size, broadcasts and reductions included (a matmul
// keeps a kernel per shape on the GPU).
TEST(GpuJit, EagerOpsOfNewShapesShareGenericKernels) {
  REQUIRE_GPU();
  uint32_t saved = hot_shape_calls();
  set_hot_shape_calls(3);
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t rows : {2, 7, 64, 1000, 7, 7, 7, 7}) {
    SCOPED_TRACE(rows);
    Tensor a = random_uniform({rows, 37}, 81 + rows, -2, 2), b = random_uniform({37}, 82, -2, 2);
    Tensor ga = a.to(kGpu), gb = b.to(kGpu);
    expectClose(tanh(ga) * gb + 1.0f, tanh(a) * b + 1.0f);
    expectClose(reduce_sum(ga * ga, {1}), reduce_sum(a * a, {1}), 1e-5);
    expectClose(matmul(ga, transpose(ga)), matmul(a, transpose(a)), 1e-4);
    finish_background_compiles();
  }
  KernelCacheStats after = kernel_cache_stats();
  EXPECT_GT(after.generic_shapes, before.generic_shapes);
  EXPECT_GT(after.specializations, before.specializations);
  set_hot_shape_calls(saved);
}

// Faults in kernels (issue 27): an integer division by zero and a gather
// index out of range are guarded in the kernel and reported to the runtime;
// the host raises them where it waits for the GPU, naming the op and the
// user's line as on the CPU. The process goes on with the same kernels.
TEST(GpuJit, KernelFaultsNameTheOpAndTheLine) {
  REQUIRE_GPU();
  auto at = [](int line) { return std::string(__FILE__) + ":" + std::to_string(line) + ":"; };
  Tensor a = Tensor({7, 8, 9}).to(kGpu), b = Tensor({1, 0, 1}).to(kGpu);
  int line = __LINE__ + 1;
  Tensor quotient = div(a, b);
  std::string message = test::errorOf<OpError>([&] { (void)quotient.to_vector<int32_t>(); });
  test::expectContains(message, at(line));
  test::expectContains(message, "'ember.div' op integer division by zero");
  EXPECT_EQ(div(a, Tensor({1, 2, 3}).to(kGpu)).to_vector<int32_t>(),
            (std::vector<int32_t>{7, 4, 3}));

  int gatherLine = 0;
  auto take = function([&](const Tensor &x, const Tensor &indices) {
    gatherLine = __LINE__ + 1;
    return gather(x, indices) + 0.f;
  });
  Tensor x = Tensor({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}}).to(kGpu);
  Tensor taken = take(x, Tensor({0, 7}).to(kGpu));
  message = test::errorOf<OpError>([] { synchronize(); });
  test::expectContains(message, at(gatherLine));
  test::expectContains(message, "'ember.gather' op index out of range for axis 0 of size 3");
  EXPECT_NO_THROW(synchronize()) << "a fault is raised once";
  EXPECT_EQ(take(x, Tensor({2, -3}).to(kGpu)).to_vector<float>(), (std::vector<float>{5, 6, 1, 2}));
}

// None dims on the GPU (issue 25): a traced function and a gradient under
// an input signature compile once each for every batch (kernels take memref
// descriptors; grids are sized at the call), batches of 1 to 1000 rows
// matching the CPU; a softmax over None rows and None columns too. Their
// matmuls are tiled with the batch counted at the call (float32 on the CUDA
// cores, bfloat16 on tensor cores).
TEST(GpuJit, NoneDimsCompileOnceForEveryBatch) {
  REQUIRE_GPU();
  auto dense = [](const Tensor &x, const Tensor &w) {
    return reduce_sum(relu(matmul(x, w) + 0.5f), {1});
  };
  auto f = function(
      dense, "dense",
      {.input_signature = {TensorSpec({kNone, 64}, kFloat32), TensorSpec({64, 32}, kFloat32)}});
  auto softmaxRows = function([](const Tensor &x) { return nn::softmax(x * 2.0f); }, "softmax_rows",
                              {.input_signature = {TensorSpec({kNone, kNone}, kFloat32)}});
  auto halfDense = function(
      [](const Tensor &x, const Tensor &w) { return matmul(x, w); }, "half_dense",
      {.input_signature = {TensorSpec({kNone, 64}, kBFloat16), TensorSpec({64, 32}, kBFloat16)}});
  auto loss = [](const Tensor &x) { return reduce_sum(tanh(x) * x); };
  auto gradient = value_and_grad(loss, "loss", {.input_signature = {{{kNone, 8}}}});
  // A weight gradient summed over the None batch (x^T dz: K `?`) and a
  // matmul of None sizes alone (M, N and K `?`): tiled, the reduction split
  // among blocks as counted at the call.
  auto denseLoss = [](const Tensor &x, const Tensor &w) { return reduce_sum(tanh(matmul(x, w))); };
  auto weightGradient = value_and_grad(
      denseLoss, Argnums{1}, "dense_loss",
      {.input_signature = {TensorSpec({kNone, 64}, kFloat32), TensorSpec({64, 32}, kFloat32)}});
  auto anySizes = function([](const Tensor &a, const Tensor &b) { return matmul(a, b); }, "any",
                           {.input_signature = {TensorSpec({kNone, kNone}, kFloat32),
                                                TensorSpec({kNone, kNone}, kFloat32)}});
  Tensor w = random_uniform({64, 32}, 51, -1, 1);
  for (int64_t rows : {1, 3, 17, 1000}) {
    SCOPED_TRACE(rows);
    Tensor x = random_uniform({rows, 64}, 52 + rows, -1, 1);
    Tensor onGpu = f(x.to(kGpu), w.to(kGpu));
    EXPECT_EQ(onGpu.device(), kGpu);
    expectClose(onGpu, dense(x, w), 1e-4);
    Tensor xh = cast(x, kBFloat16), wh = cast(w, kBFloat16);
    expectClose(halfDense(xh.to(kGpu), wh.to(kGpu)), matmul(xh, wh), 1.0 / 128);
    Tensor wide = random_uniform({rows, 5 + rows % 7}, 53, -2, 2);
    expectClose(softmaxRows(wide.to(kGpu)), nn::softmax(wide * 2.0f), 1e-5);
    Tensor small = random_uniform({rows, 8}, 54, -1, 1);
    auto [value, grad] = gradient(small.to(kGpu));
    auto [expectedValue, expectedGrad] = gradient(small);
    expectClose(value, expectedValue, 1e-4);
    expectClose(grad, expectedGrad, 1e-5);
    std::vector<Tensor> dw = weightGradient(x.to(kGpu), w.to(kGpu)).gradients;
    expectClose(dw.at(0), weightGradient(x, w).gradients.at(0), 1e-4);
    Tensor left = random_uniform({rows, 3 + rows % 50}, 55, -1, 1);
    Tensor right = random_uniform({3 + rows % 50, 70}, 56, -1, 1);
    expectClose(anySizes(left.to(kGpu), right.to(kGpu)), matmul(left, right), 1e-4);
  }
  EXPECT_EQ(f.concrete_functions().size(), 1u);
  EXPECT_EQ(anySizes.concrete_functions().size(), 1u);
  EXPECT_EQ(halfDense.concrete_functions().size(), 1u);
  EXPECT_EQ(softmaxRows.concrete_functions().size(), 1u);
}

// A None batch beside 1024 columns: large blocks where the batch is at
// least 1024 rows, small ones below, chosen at the call (float32 on CUDA
// cores, bfloat16 on tensor cores); a weight gradient over a None batch
// (K `?`) into 1024 x 1024 takes the large tiles.
TEST(GpuJit, NoneDimsChooseTheirBlocksAtTheCall) {
  REQUIRE_GPU();
  auto product = [](const Tensor &x, const Tensor &w) { return matmul(x, w); };
  auto wide = function(
      product, "wide",
      {.input_signature = {TensorSpec({kNone, 64}, kFloat32), TensorSpec({64, 1024}, kFloat32)}});
  auto wideHalf = function(
      product, "wide_half",
      {.input_signature = {TensorSpec({kNone, 64}, kBFloat16), TensorSpec({64, 1024}, kBFloat16)}});
  auto gradient = function(
      [](const Tensor &x, const Tensor &dz) { return matmul(transpose(x), dz); }, "gradient",
      {.input_signature = {TensorSpec({kNone, 1024}, kFloat32),
                           TensorSpec({kNone, 1024}, kFloat32)}});
  Tensor w = random_uniform({64, 1024}, 71, -1, 1);
  for (int64_t rows : {5, 1100}) {
    SCOPED_TRACE(rows);
    Tensor x = random_uniform({rows, 64}, 72 + rows, -1, 1);
    expectClose(wide(x.to(kGpu), w.to(kGpu)), matmul(x, w), 1e-4);
    Tensor xh = cast(x, kBFloat16), wh = cast(w, kBFloat16);
    expectClose(wideHalf(xh.to(kGpu), wh.to(kGpu)), matmul(xh, wh), 1.0 / 128);
  }
  for (int64_t rows : {7, 300}) {
    SCOPED_TRACE(rows);
    Tensor x = random_uniform({rows, 1024}, 73 + rows, -1, 1);
    Tensor dz = random_uniform({rows, 1024}, 74 + rows, -1, 1);
    expectClose(gradient(x.to(kGpu), dz.to(kGpu)), matmul(transpose(x), dz), 1e-4);
  }
  EXPECT_EQ(wide.concrete_functions().size(), 1u);
  EXPECT_EQ(gradient.concrete_functions().size(), 1u);
}

// An eager tape on the GPU over batches of several sizes: one derivative
// with a None batch serves them all, its gradients the CPU's.
TEST(GpuJit, EagerTapesShareOneDerivativeAcrossBatches) {
  REQUIRE_GPU();
  Tensor w = random_uniform({32, 16}, 61, -1, 1), b = random_uniform({16}, 62, -1, 1);
  auto gradients = [&](const Device &device, const Tensor &x) {
    Variable wv(w.to(device)), bv(b.to(device));
    GradientTape tape;
    Tensor loss = reduce_mean(tanh(matmul(x.to(device), wv) + bv) * 2.0f);
    return tape.gradient(loss, std::vector<Variable>{wv, bv}, UnconnectedGradients::Zero);
  };
  KernelCacheStats before = kernel_cache_stats();
  for (int64_t rows : {5, 12, 1, 300}) {
    SCOPED_TRACE(rows);
    Tensor x = random_uniform({rows, 32}, 63 + rows, -1, 1);
    std::vector<Tensor> gpu = gradients(kGpu, x), cpu = gradients(Device("cpu"), x);
    for (size_t i = 0; i < gpu.size(); ++i)
      expectClose(gpu[i], cpu[i], 1e-4);
  }
  // On the GPU the first batch's own derivative, one with a `?` batch for
  // the other batches above 1, and the batch of 1's own (broadcasting
  // differs); on the CPU one with every size `?` and the batch of 1's.
  EXPECT_LE(kernel_cache_stats().tape_compiles - before.tape_compiles, 5u);
}

TEST(GpuJit, ValuesComeBackThroughToVectorItemAndPrinting) {
  REQUIRE_GPU();
  Tensor x = Tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}).to(kGpu);
  Tensor y = x * 2.0f; // queued; reading waits
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(reduce_sum(y).item<float>(), 20.0f);
  EXPECT_EQ(y.to_string(), Tensor({{2.0f, 4.0f}, {6.0f, 8.0f}}).to_string());
  EXPECT_EQ(y.cpu().device(), Device("cpu"));
  Tensor back = y.to("cpu").to(kGpu).to("cpu");
  EXPECT_EQ(back.to_vector<float>(), y.to_vector<float>());
}

TEST(GpuJit, MixingDevicesIsAnErrorNamingBoth) {
  REQUIRE_GPU();
  Tensor host = Tensor({1.0f, 2.0f, 3.0f}), gpu = host.to(kGpu);
  try {
    (void)(gpu + host);
    FAIL() << "mixed devices accepted";
  } catch (const OpError &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("'ember.add' op has operands on different devices"), std::string::npos)
        << message;
    EXPECT_NE(message.find("cuda:0"), std::string::npos) << message;
    EXPECT_NE(message.find("on cpu"), std::string::npos) << message;
    EXPECT_NE(message.find("JitTest.cpp"), std::string::npos) << message; // the user's line
  }
  // Scalars follow the other operands: a host 0-d tensor with a GPU tensor.
  expectClose(gpu * Tensor(2.0f), host * 2.0f);
  EXPECT_EQ((gpu * Tensor(2.0f)).device(), kGpu);
}

TEST(GpuJit, ADeviceScopePlacesCreatedTensorsAndOps) {
  REQUIRE_GPU();
  Tensor host = Tensor({1.0f, 2.0f});
  DeviceScope scope(kGpu);
  Tensor ones2 = ones({2, 2});
  EXPECT_EQ(ones2.device(), kGpu);
  EXPECT_EQ(Tensor({3, 4}).device(), kGpu);
  EXPECT_EQ(Tensor::from_vector(std::vector<float>{1, 2}, {2}).device(), kGpu);
  Tensor sum = host + host; // host operands follow the scope
  EXPECT_EQ(sum.device(), kGpu);
  EXPECT_EQ(sum.to_vector<float>(), (std::vector<float>{2, 4}));
}

TEST(GpuJit, EagerOpsReuseTheirKernels) {
  REQUIRE_GPU();
  Tensor x = random_uniform({10, 10}, 4).to(kGpu);
  (void)(x + x);
  KernelCacheStats before = kernel_cache_stats();
  for (int i = 0; i < 10; ++i)
    x = x + 1.0f;
  KernelCacheStats after = kernel_cache_stats();
  // `+ 1.0f` compiled once at most (none if its shape-generic kernel was).
  EXPECT_LE(after.misses, before.misses + 1);
  synchronize();
}

Tensor chain(const Tensor &x) {
  Tensor t = x;
  for (int op = 0; op < 8; ++op)
    t = op % 3 == 0 ? t * 1.0001f : op % 3 == 1 ? t + 0.5f : maximum(t, x);
  return t;
}

TEST(GpuJit, TracedFunctionsCompileOncePerDevice) {
  REQUIRE_GPU();
  auto traced = function(chain, "chain8");
  Tensor x = random_uniform({256, 1000}, 5, -2, 2);
  Tensor onCpu = traced(x), onGpu = traced(x.to(kGpu));
  EXPECT_EQ(onGpu.device(), kGpu);
  expectClose(onGpu, onCpu, 1e-6);
  (void)traced(x.to(kGpu));
  EXPECT_EQ(traced.concrete_functions().size(), 2u); // one per device
}

Tensor power(const Tensor &x, int y) {
  Tensor result = eye(x.size(0), x.dtype());
  for (int i = 0; i < y; ++i)
    result = matmul(result, x);
  return result;
}

TEST(GpuJit, PowerOfAMatrix) {
  REQUIRE_GPU();
  auto traced = function([](const Tensor &x) { return power(x, 100); }, "power");
  // Near the identity, so that the 100th power is neither 0 nor huge and
  // every element is checked to 1e-4.
  Tensor x = eye(10) * 0.99f + random_uniform({10, 10}, 6, -0.01, 0.01);
  Tensor onGpu;
  {
    DeviceScope scope(kGpu); // eye() inside the trace is a constant either way
    onGpu = traced(x.to(kGpu));
  }
  expectClose(onGpu, traced(x), 1e-4);
  Tensor ints = cast(random_uniform({10, 10}, 7, 0, 2), DType::Int32);
  expectClose(traced(ints.to(kGpu)), traced(ints));
}

TEST(GpuJit, ControlFlowInTracedFunctions) {
  REQUIRE_GPU();
  auto traced = function(
      [](const Tensor &x) {
        Tensor total = fori_loop(0, 5, [&](const Tensor &i, const Tensor &t) { return t * 0.5f + x; },
                                 x * 0.0f);
        return cond(reduce_sum(total) > 0.0f, [&] { return total * 2.0f; }, [&] { return -total; });
      },
      "loop_and_branch");
  Tensor x = random_uniform({64}, 8, -1, 1.5);
  expectClose(traced(x.to(kGpu)), traced(x), 1e-5);
}

TEST(GpuJit, GradientTapeOnTheGpu) {
  REQUIRE_GPU();
  Tensor x = random_uniform({64, 784}, 1), labels = mlp::labels();
  auto gradients = [&](const Device &device) {
    std::vector<Variable> vars;
    for (const Tensor &p : mlp::parameters())
      vars.emplace_back(p.to(device));
    GradientTape tape;
    Tensor loss =
        mlp::crossEntropy(mlp::forward(x.to(device), {vars.begin(), vars.end()}), labels.to(device));
    std::vector<Tensor> grads = tape.gradient(loss, vars, UnconnectedGradients::Zero);
    grads.insert(grads.begin(), loss);
    return grads;
  };
  std::vector<Tensor> gpu = gradients(kGpu), cpu = gradients(Device("cpu"));
  ASSERT_EQ(gpu.size(), cpu.size());
  for (size_t i = 0; i < gpu.size(); ++i) {
    EXPECT_EQ(gpu[i].device(), kGpu) << i;
    expectClose(gpu[i], cpu[i], 1e-3);
  }
}

TEST(GpuJit, TracedTrainingStepOnTheGpu) {
  REQUIRE_GPU();
  Tensor x = random_uniform({64, 784}, 1), labels = mlp::labels();
  auto train = [&](const Device &device) {
    std::vector<Variable> vars;
    for (const Tensor &p : mlp::parameters())
      vars.emplace_back(p.to(device));
    auto step = mlp::tracedStep(vars, 0.01f);
    std::vector<Tensor> losses;
    Tensor input = x.to(device), target = labels.to(device);
    for (int i = 0; i < 5; ++i)
      losses.push_back(step(input, target));
    losses.push_back(vars[0].value());
    return losses;
  };
  std::vector<Tensor> gpu = train(kGpu), cpu = train(Device("cpu"));
  for (size_t i = 0; i < gpu.size(); ++i)
    expectClose(gpu[i], cpu[i], 1e-3);
  EXPECT_LT(gpu[4].item<float>(), gpu[0].item<float>()); // it learns
}

TEST(GpuJit, ConvolutionsAndPoolingMatchTheCpu) {
  REQUIRE_GPU();
  Tensor x = random_uniform({3, 17, 15, 5}, 11, -1, 1), w = random_uniform({3, 4, 5, 7}, 12, -1, 1);
  for (std::string_view padding : {"VALID", "SAME"}) {
    SCOPED_TRACE(padding);
    expectClose(nn::conv2d(x.to(kGpu), w.to(kGpu), {1, 1}, padding),
                nn::conv2d(x, w, {1, 1}, padding), 1e-4);
    expectClose(nn::conv2d(x.to(kGpu), w.to(kGpu), {2, 3}, padding, {1, 1}),
                nn::conv2d(x, w, {2, 3}, padding, {1, 1}), 1e-4);
    expectClose(nn::max_pool2d(x.to(kGpu), {3, 2}, {2, 2}, padding),
                nn::max_pool2d(x, {3, 2}, {2, 2}, padding));
    expectClose(nn::avg_pool2d(x.to(kGpu), {3, 3}, {2, 1}, padding),
                nn::avg_pool2d(x, {3, 3}, {2, 1}, padding), 1e-5);
  }
  expectClose(nn::conv2d(x.to(kGpu), w.to(kGpu), {1, 1}, "VALID", {2, 2}),
              nn::conv2d(x, w, {1, 1}, "VALID", {2, 2}), 1e-4);
}

TEST(GpuJit, ConvolutionAndPoolingGradientsMatchTheCpu) {
  REQUIRE_GPU();
  Tensor x = random_uniform({4, 12, 12, 3}, 13, -1, 1), w = random_uniform({3, 3, 3, 6}, 14, -1, 1);
  Tensor labels = Tensor({1, 0, 5, 2});
  auto gradients = [&](const Device &device) {
    Variable input(x.to(device)), filters(w.to(device));
    GradientTape tape;
    Tensor h = relu(nn::conv2d(input, filters, {1, 1}, "SAME"));
    Tensor pooled = nn::avg_pool2d(nn::max_pool2d(h, {2, 2}, {2, 2}), {3, 3}, {3, 3}, "SAME");
    Tensor logits = reshape(pooled, {4, 24});
    Tensor loss = losses::SparseCategoricalCrossentropy(true)(labels.to(device), logits);
    std::vector<Tensor> grads = tape.gradient(loss, {input, filters}, UnconnectedGradients::Zero);
    grads.insert(grads.begin(), loss);
    return grads;
  };
  std::vector<Tensor> gpu = gradients(kGpu), cpu = gradients(Device("cpu"));
  ASSERT_EQ(gpu.size(), 3u);
  for (size_t i = 0; i < gpu.size(); ++i) {
    EXPECT_EQ(gpu[i].device(), kGpu) << i;
    expectClose(gpu[i], cpu[i], 1e-4);
  }
}

TEST(GpuJit, TheC2TrainingStepOnTheGpuMatchesTheCpu) {
  REQUIRE_GPU();
  auto train = [&](const Device &device) {
    c2::Trainer trainer(device, 32);
    std::vector<Tensor> losses;
    for (int i = 0; i < 4; ++i)
      losses.push_back(trainer.step(c2::images(32, i + 2).to(device), c2::labels(32).to(device)));
    for (const Variable &v : trainer.net->trainable_variables())
      losses.push_back(v.value());
    return losses;
  };
  std::vector<Tensor> gpu = train(kGpu), cpu = train(Device("cpu"));
  ASSERT_EQ(gpu.size(), cpu.size());
  for (size_t i = 0; i < gpu.size(); ++i) {
    EXPECT_EQ(gpu[i].device(), kGpu) << i;
    expectClose(gpu[i], cpu[i], 1e-3);
  }
}

TEST(GpuJit, PinnedCopiesAndPrefetchToDeviceKeepTheValues) {
  REQUIRE_GPU();
  // Copies queued from page-locked memory, their blocks freed and reused
  // while earlier copies may still run: every value arrives intact.
  Tensor x = random_uniform({1 << 20}, 21);
  std::vector<Tensor> copies;
  for (int i = 0; i < 8; ++i)
    copies.push_back((x + float(i)).pin_memory().to(kGpu) - float(i));
  for (const Tensor &copy : copies)
    expectClose(copy, x, 1e-6);
  Tensor images = random_uniform({96, 28, 28, 1}, 22);
  Tensor classes = arange(0, 96, 1, DType::Int64);
  int64_t row = 0;
  for (const data::Element &batch : data::Dataset::from_tensor_slices({images, classes})
                                        .batch(32)
                                        .prefetch_to_device(kGpu, 3)) {
    EXPECT_EQ(batch[0].device(), kGpu);
    expectClose(batch[0], slice(images, {row, 0, 0, 0}, {row + 32, 28, 28, 1}));
    expectClose(batch[1], slice(classes, {row}, {row + 32}));
    row += 32;
  }
  EXPECT_EQ(row, 96);
}

} // namespace
