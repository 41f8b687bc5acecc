// save_npy / load_npy on tensors.
#include "ember/ember.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace ember;

namespace {
std::string tempPath(const std::string &name) {
  return (std::filesystem::temp_directory_path() / ("ember-tensor-npy-" + name)).string();
}
} // namespace

TEST(TensorNpy, RoundTripsEveryDType) {
  std::vector<Tensor> tensors = {Tensor({{1.5f, -2.f}, {3.f, 4.f}}),
                                 Tensor({1.0, 2.0}, DType::Float64), Tensor({{1, 2, 3}}),
                                 Tensor({int64_t(1) << 40}), Tensor({true, false, true}),
                                 Tensor(3.5)};
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string path = tempPath(std::to_string(i) + ".npy");
    save_npy(path, tensors[i]);
    Tensor loaded = load_npy(path);
    EXPECT_EQ(loaded.dtype(), tensors[i].dtype()) << i;
    EXPECT_EQ(loaded.shape(), tensors[i].shape()) << i;
    EXPECT_EQ(loaded.to_vector<double>(), tensors[i].to_vector<double>()) << i;
    std::filesystem::remove(path);
  }
}

TEST(TensorNpy, TruncatedFileIsRefusedWithItsName) {
  std::string path = tempPath("truncated.npy");
  save_npy(path, zeros({100}));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
  try {
    (void)load_npy(path);
    FAIL() << "expected an IOError";
  } catch (const IOError &e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(TensorNpy, LoadedTensorsWorkWithOps) {
  std::string path = tempPath("ops.npy");
  save_npy(path, Tensor({1, 2, 3}));
  EXPECT_EQ(reduce_sum(load_npy(path) * 2).item<int>(), 12);
  std::filesystem::remove(path);
}
