//===- UserLibraryTest.cpp - a library on the core's public API ----------===//
//
// ember's training, data and IO libraries use only the core's public
// headers, so a user can write their own the same way. This test is such a
// library: a loss, a layer and a file writer written against ember/ember.h
// alone, checked for the errors, locations and devices ember's own give.
//
//===----------------------------------------------------------------------===//

#include "ember/ember.h"

#include "ErrorTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ember;
using namespace ember::test;

namespace {

/// A user's sparse hinge-like loss: the mean of (1 - score of the label).
Tensor labelMargin(const Tensor &labels, const Tensor &scores, EMBER_LOC) {
  UserCallSite site(loc);
  if (!isFloatingPoint(scores.dtype()))
    throw_op_error("labelMargin", "needs float scores, got " + describe(scores), loc);
  // The core's functions take the caller's location, as ember's own losses
  // pass theirs.
  Tensor checked = nn::checked_class_labels(
      "labelMargin", nn::squeezed_class_labels(labels, scores, loc), scores, loc);
  Tensor picked = reduce_sum(scores * nn::one_hot(checked, scores.shape()[1]), {1});
  return reduce_mean(1.0 - picked);
}

/// A user's writer that refuses symbolic tensors, as ember's own do.
std::string valuesOf(const Tensor &t) {
  if (t.is_symbolic())
    throw Error("valuesOf: " + describe(t) + " is symbolic: call it outside ember::function");
  return t.values_string();
}

TEST(UserLibrary, ErrorsNameTheCallersLineAndTheTensors) {
  Tensor scores({{0.25f, 0.75f}, {0.5f, 0.5f}});
  Tensor labels = reshape(Tensor({1, 0}, kInt64), {2, 1});
  EXPECT_FLOAT_EQ(labelMargin(labels, scores).item<float>(), 1.0f - (0.75f + 0.5f) / 2);

  int line = __LINE__ + 1;
  std::string message = errorOf([&] { labelMargin(labels, cast(scores, kInt32)); });
  expectContains(message, fileLine(__FILE__, line));
  expectContains(message, "error: 'labelMargin' op needs float scores, got int32 tensor of "
                          "shape (2, 2)");
  // The label check inside the core names the user's line too.
  line = __LINE__ + 1;
  message = errorOf([&] { labelMargin(Tensor({1, 2}, kInt64), scores); });
  expectContains(message, fileLine(__FILE__, line));
  expectContains(message, "'labelMargin' op received a label value of 2");
  EXPECT_EQ(error_at(SourceLoc::current()).find(__FILE__), 0u);
}

TEST(UserLibrary, SymbolicTensorsAreRecognised) {
  Tensor x({1.f, 2.f});
  EXPECT_FALSE(x.is_symbolic());
  EXPECT_EQ(valuesOf(x), "[1. 2.]");
  bool sawSymbolic = false;
  auto f = ember::function([&](const Tensor &t) {
    sawSymbolic = t.is_symbolic();
    EXPECT_THROW(valuesOf(t), Error);
    return t * 2;
  });
  EXPECT_EQ(f(x).values_string(), "[2. 4.]");
  EXPECT_TRUE(sawSymbolic);
}

TEST(UserLibrary, EmptyTensorsGoWhereAsked) {
  Tensor host = Tensor::empty(Shape{2, 3}, kFloat32, Device());
  EXPECT_TRUE(host.device().is_cpu());
  EXPECT_EQ(host.shape(), Shape({2, 3}));
  require_device(Device()); // the host is always there
  if (!cuda_is_available()) {
    std::string message = errorOf([] { require_device(Device(DeviceType::CUDA, 0)); });
    expectContains(message, "device cuda:0 is not available");
    EXPECT_THROW(Tensor::empty(Shape{2}, kFloat32, Device(DeviceType::CUDA, 0)), Error);
  } else {
    EXPECT_TRUE(Tensor::empty(Shape{2}, kFloat32, Device(DeviceType::CUDA, 0)).device().is_cuda());
  }
}

} // namespace
