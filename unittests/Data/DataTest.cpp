//===- DataTest.cpp - datasets and IDX files ------------------------------===//

#include "ember/ember.h"

#include "ErrorTestUtil.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <numeric>
#include <ranges>
#include <string>
#include <thread>
#include <vector>

using namespace ember;
using namespace ember::data;
using ember::test::errorOf;
using ember::test::expectContains;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// A fresh directory for one test's files, removed afterwards.
class TempDir {
public:
  TempDir() {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("ember-data-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string &name) const { return (path_ / name).string(); }

private:
  std::filesystem::path path_;
};

std::string bigEndian32(uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

/// An IDX file's bytes: the magic, the dims, then `data` as given.
std::string idxBytes(unsigned char type, const std::vector<uint32_t> &dims,
                     const std::string &data) {
  std::string out{'\0', '\0', char(type), char(dims.size())};
  for (uint32_t d : dims)
    out += bigEndian32(d);
  return out + data;
}

void writePlain(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), bytes.size());
}

void writeGzip(const std::string &path, const std::string &bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), int(bytes.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

/// All elements of one epoch, each component as int64 values.
std::vector<std::vector<std::vector<int64_t>>> collect(const Dataset &ds) {
  std::vector<std::vector<std::vector<int64_t>>> out;
  for (const Element &e : ds) {
    std::vector<std::vector<int64_t>> components;
    for (const Tensor &t : e)
      components.push_back(t.to_vector<int64_t>());
    out.push_back(components);
  }
  return out;
}

/// The first component of each element of one epoch, as one scalar each.
std::vector<int64_t> scalars(const Dataset &ds) {
  std::vector<int64_t> out;
  for (const Element &e : ds)
    out.push_back(e.at(0).item<int64_t>());
  return out;
}

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

//===----------------------------------------------------------------------===//
// IDX files
//===----------------------------------------------------------------------===//

TEST(Idx, ReadsUnsignedBytesPlainAndGzip) {
  TempDir dir;
  std::string bytes = idxBytes(0x08, {2, 3}, std::string("\x00\x01\x7f\x80\xfe\xff", 6));
  writePlain(dir.file("u8"), bytes);
  writeGzip(dir.file("u8.gz"), bytes);
  for (const char *name : {"u8", "u8.gz"}) {
    SCOPED_TRACE(name);
    Tensor t = read_idx(dir.file(name));
    EXPECT_EQ(t.dtype(), DType::Int32);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 127, 128, 254, 255}));
  }
}

TEST(Idx, ReadsBigEndianFloatsShortsAndSignedBytes) {
  TempDir dir;
  // 1.5f = 0x3fc00000, -2.25f = 0xc0100000, big-endian.
  writeGzip(dir.file("f32.gz"), idxBytes(0x0D, {2}, bigEndian32(0x3fc00000) + bigEndian32(0xc0100000)));
  Tensor f = read_idx(dir.file("f32.gz"));
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{1.5f, -2.25f}));

  writePlain(dir.file("i16"), idxBytes(0x0B, {2}, std::string("\xff\xfe\x01\x02", 4)));
  EXPECT_EQ(read_idx(dir.file("i16")).to_vector<int32_t>(), (std::vector<int32_t>{-2, 258}));
  writePlain(dir.file("i8"), idxBytes(0x09, {2}, std::string("\xff\x05", 2)));
  EXPECT_EQ(read_idx(dir.file("i8")).to_vector<int32_t>(), (std::vector<int32_t>{-1, 5}));
  writePlain(dir.file("i32"), idxBytes(0x0C, {1}, bigEndian32(0xfffffffe)));
  EXPECT_EQ(read_idx(dir.file("i32")).to_vector<int32_t>(), (std::vector<int32_t>{-2}));
  // 1.0 = 0x3ff0000000000000.
  writePlain(dir.file("f64"), idxBytes(0x0E, {1, 1}, bigEndian32(0x3ff00000) + bigEndian32(0)));
  Tensor d = read_idx(dir.file("f64"));
  EXPECT_EQ(d.dtype(), DType::Float64);
  EXPECT_EQ(d.shape(), (Shape{1, 1}));
  EXPECT_EQ(d.item<double>(), 1.0);
}

TEST(Idx, ErrorsNameTheFileAndTheProblem) {
  TempDir dir;
  std::string missing = dir.file("missing");
  std::string msg = errorOf([&] { read_idx(missing); });
  expectContains(msg, "'" + missing + "'");
  expectContains(msg, "No such file");

  std::string bad = dir.file("bad-magic");
  writePlain(bad, "\x12\x34\x08\x01" + bigEndian32(1) + "x");
  msg = errorOf([&] { read_idx(bad); });
  expectContains(msg, "'" + bad + "'");
  expectContains(msg, "not an IDX file");
  expectContains(msg, "12 34 08 01");

  std::string type = dir.file("type.gz");
  writeGzip(type, idxBytes(0x0A, {1}, "x"));
  msg = errorOf([&] { read_idx(type); });
  expectContains(msg, "'" + type + "'");
  expectContains(msg, "unknown IDX type code 0x0a");

  std::string truncated = dir.file("truncated");
  writePlain(truncated, idxBytes(0x0D, {2, 3}, std::string(10, '\0')));
  msg = errorOf([&] { read_idx(truncated); });
  expectContains(msg, "'" + truncated + "'");
  expectContains(msg, "truncated");
  expectContains(msg, "needs 24 bytes of data, found 10");

  std::string truncatedGz = dir.file("truncated.gz");
  writeGzip(truncatedGz, idxBytes(0x08, {100}, std::string(7, '\1')));
  msg = errorOf([&] { read_idx(truncatedGz); });
  expectContains(msg, "'" + truncatedGz + "'");
  expectContains(msg, "needs 100 bytes of data, found 7");

  std::string header = dir.file("short-header");
  writePlain(header, idxBytes(0x08, {}, "").substr(0, 3) + "\x03" + bigEndian32(5));
  msg = errorOf([&] { read_idx(header); });
  expectContains(msg, "header of a rank-3 array needs 16 bytes, found 8");

  std::string trailing = dir.file("trailing");
  writePlain(trailing, idxBytes(0x08, {2}, "abcd"));
  msg = errorOf([&] { read_idx(trailing); });
  expectContains(msg, "'" + trailing + "'");
  expectContains(msg, "2 unexpected bytes after the 2 bytes of data");

  std::string empty = dir.file("empty");
  writePlain(empty, "");
  expectContains(errorOf([&] { read_idx(empty); }), "empty");

  // A gzip stream cut in half: zlib's error, not a crash or a short tensor.
  std::string cut = dir.file("cut.gz");
  writeGzip(cut, idxBytes(0x08, {4096}, std::string(4096, '\7')));
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) / 2);
  msg = errorOf([&] { read_idx(cut); });
  expectContains(msg, "'" + cut + "'");

  // Errors are IOErrors, as load_npy's.
  EXPECT_THROW(read_idx(missing), IOError);
}

TEST(Idx, LoadDataChecksTheFiles) {
  TempDir dir;
  std::string images = idxBytes(0x08, {3, 2, 2}, std::string(12, '\x33'));
  writeGzip(dir.file("train-images-idx3-ubyte.gz"), images);
  writePlain(dir.file("train-labels-idx1-ubyte"), idxBytes(0x08, {3}, std::string("\1\2\3", 3)));
  writePlain(dir.file("t10k-images-idx3-ubyte"), images);
  // Two labels for three images.
  writePlain(dir.file("t10k-labels-idx1-ubyte"), idxBytes(0x08, {2}, std::string("\1\2", 2)));
  std::string msg = errorOf([&] { mnist::load_data(dir.file("")); });
  expectContains(msg, "mnist.load_data: 3 images in");
  expectContains(msg, "but 2 labels in");

  writePlain(dir.file("t10k-labels-idx1-ubyte"), idxBytes(0x08, {3}, std::string("\1\2\0", 3)));
  auto [x_train, y_train, x_test, y_test] = mnist::load_data(dir.file(""));
  EXPECT_EQ(x_train.shape(), (Shape{3, 2, 2, 1}));
  EXPECT_EQ(x_train.dtype(), DType::Float32);
  EXPECT_FLOAT_EQ(x_train.to_vector<float>()[0], 0x33 / 255.0f);
  EXPECT_EQ(y_test.dtype(), DType::Int64);
  EXPECT_EQ(y_test.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0}));

  // Images of the wrong rank.
  writePlain(dir.file("t10k-images-idx3-ubyte"), idxBytes(0x08, {3, 4}, std::string(12, '\0')));
  expectContains(errorOf([&] { mnist::load_data(dir.file("")); }),
                 "expected unsigned bytes of shape (images, rows, cols)");

  msg = errorOf([&] { fashion_mnist::load_data(dir.file("nowhere")); });
  expectContains(msg, "fashion_mnist.load_data: neither 'train-images-idx3-ubyte.gz' nor");
}

constexpr const char *kFashionMnist = "/usr/share/datasets/fashion-mnist";

TEST(Idx, FashionMnistLoadsAsC2Wants) {
  if (!std::filesystem::exists(std::string(kFashionMnist) + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "Fashion-MNIST is not installed (Debian's dataset-fashion-mnist)";
  auto start = std::chrono::steady_clock::now();
  ImageData d = fashion_mnist::load_data();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fashion_mnist::load_data: %.3f s\n", seconds);

  EXPECT_EQ(d.x_train.shape(), (Shape{60000, 28, 28, 1}));
  EXPECT_EQ(d.y_train.shape(), (Shape{60000}));
  EXPECT_EQ(d.x_test.shape(), (Shape{10000, 28, 28, 1}));
  EXPECT_EQ(d.y_test.shape(), (Shape{10000}));
  EXPECT_EQ(d.x_train.dtype(), DType::Float32);
  EXPECT_EQ(d.y_train.dtype(), DType::Int64);

  std::vector<int64_t> labels = d.y_train.to_vector<int64_t>();
  // The first training image is an ankle boot (class 9), as in Keras's copy.
  EXPECT_EQ(labels[0], 9);
  EXPECT_EQ(*std::min_element(labels.begin(), labels.end()), 0);
  EXPECT_EQ(*std::max_element(labels.begin(), labels.end()), 9);
  // Balanced: 6000 of each class.
  EXPECT_EQ(std::count(labels.begin(), labels.end(), 3), 6000);

  const float *px = d.x_train.data_ptr<float>();
  auto [lo, hi] = std::minmax_element(px, px + d.x_train.numel());
  EXPECT_EQ(*lo, 0.0f);
  EXPECT_EQ(*hi, 1.0f);
  // The first image's pixels sum to 76247 (checked with Python's gzip).
  double sum = std::accumulate(px, px + 784, 0.0);
  EXPECT_NEAR(sum, 76247 / 255.0, 1e-3);
}

//===----------------------------------------------------------------------===//
// Datasets
//===----------------------------------------------------------------------===//

// A Dataset is a C++20 input range: range-for, and std::ranges algorithms.
static_assert(std::input_iterator<Dataset::Iterator>);
static_assert(std::ranges::input_range<Dataset>);

TEST(Dataset, FromTensorSlicesYieldsRows) {
  Tensor x = Tensor::from_vector(std::vector<float>{0, 1, 2, 3, 4, 5}, {3, 2});
  Tensor y = Tensor::from_vector(std::vector<int64_t>{7, 8, 9}, {3});
  Dataset ds = Dataset::from_tensor_slices({x, y});
  EXPECT_EQ(ds.cardinality(), 3);
  int i = 0;
  for (const Element &e : ds) {
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].shape(), (Shape{2}));
    EXPECT_EQ(e[0].dtype(), DType::Float32);
    EXPECT_EQ(e[0].to_vector<float>(), (std::vector<float>{2.f * i, 2.f * i + 1}));
    EXPECT_EQ(e[1].shape(), Shape{});
    EXPECT_EQ(e[1].item<int64_t>(), 7 + i);
    ++i;
  }
  EXPECT_EQ(i, 3);
  // Each begin() is a new epoch from the start.
  EXPECT_EQ(collect(ds).size(), 3u);

  expectContains(errorOf([&] { Dataset::from_tensor_slices({x, Tensor({1, 2})}); }),
                 "component 0 has shape (3, 2), component 1 (2,)");
  expectContains(errorOf([&] { Dataset::from_tensor_slices(Tensor(3)); }), "is a scalar");
}

TEST(Dataset, FromTensorsIsOneElement) {
  Tensor x = Tensor::from_vector(iota(6), {3, 2});
  Tensor y = Tensor::from_vector(std::vector<float>{0.5f}, {1});
  Dataset ds = Dataset::from_tensors({x, y});
  EXPECT_EQ(ds.cardinality(), 1);
  int count = 0;
  for (const Element &e : ds) {
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].shape(), (Shape{3, 2}));
    EXPECT_EQ(e[0].to_vector<int64_t>(), iota(6));
    EXPECT_EQ(e[1].to_vector<float>(), std::vector<float>{0.5f});
    ++count;
  }
  EXPECT_EQ(count, 1);
  // Repeated, it is the same element each epoch; a scalar is fine whole.
  EXPECT_EQ(scalars(Dataset::from_tensors(Tensor(int64_t{4})).repeat(3)),
            (std::vector<int64_t>{4, 4, 4}));
  expectContains(errorOf([&] { Dataset::from_tensors(std::vector<Tensor>{}); }),
                 "Dataset.from_tensors: no tensors given");
}

TEST(Dataset, UnbatchUndoesBatch) {
  Tensor x = Tensor::from_vector(iota(14), {7, 2});
  Tensor y = Tensor::from_vector(iota(7), {7}, DType::Int32);
  Dataset ds = Dataset::from_tensor_slices({x, y});
  // Batches of 3 (the last of 1) back to the 7 rows, dtypes and shapes kept.
  Dataset again = ds.batch(3).unbatch();
  EXPECT_EQ(collect(again), collect(ds));
  EXPECT_EQ(again.cardinality(), UNKNOWN_CARDINALITY);
  for (const Element &e : again) {
    EXPECT_EQ(e[0].shape(), (Shape{2}));
    EXPECT_EQ(e[1].shape(), Shape{});
    EXPECT_EQ(e[1].dtype(), DType::Int32);
  }
  // from_tensors then unbatch is from_tensor_slices; an empty batch gives
  // nothing and the next one continues.
  EXPECT_EQ(collect(Dataset::from_tensors({x, y}).unbatch()), collect(ds));
  Dataset sizes = Dataset::range(4).map(
      [](const Element &e) { return Element{zeros({e[0].item<int64_t>() % 3}, DType::Int64)}; });
  EXPECT_EQ(collect(sizes.unbatch()).size(), 0u + 1 + 2 + 0);
  EXPECT_EQ(Dataset::range(0).unbatch().cardinality(), 0);
  EXPECT_EQ(ds.repeat().unbatch().cardinality(), INFINITE_CARDINALITY);

  expectContains(errorOf([&] { collect(Dataset::range(3).unbatch()); }),
                 "Dataset.unbatch: component 0 of element 0 is a scalar");
  Dataset ragged = Dataset::from_tensors({x, Tensor::from_vector(iota(5), {5})});
  expectContains(errorOf([&] { collect(ragged.unbatch()); }),
                 "the components of element 0 differ in their first dimension: component 0 "
                 "has shape (7, 2), component 1 (5,)");
}

TEST(Dataset, RangeAndItsCardinality) {
  EXPECT_EQ(scalars(Dataset::range(5)), iota(5));
  EXPECT_EQ(scalars(Dataset::range(5, 0, -2)), (std::vector<int64_t>{5, 3, 1}));
  EXPECT_EQ(Dataset::range(5, 0, -2).cardinality(), 3);
  EXPECT_EQ(Dataset::range(3, 3).cardinality(), 0);
  EXPECT_TRUE(scalars(Dataset::range(3, 3)).empty());
}

TEST(Dataset, BatchKeepsOrDropsTheRemainder) {
  Tensor x = Tensor::from_vector(iota(14), {7, 2});
  Tensor y = Tensor::from_vector(iota(7), {7}, DType::Int32);
  Dataset ds = Dataset::from_tensor_slices({x, y});

  auto kept = collect(ds.batch(3));
  EXPECT_EQ(ds.batch(3).cardinality(), 3);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0][0], (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(kept[0][1], (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(kept[2][0], (std::vector<int64_t>{12, 13}));
  EXPECT_EQ(kept[2][1], (std::vector<int64_t>{6}));

  std::vector<Shape> shapes;
  for (const Element &b : ds.batch(3))
    shapes.push_back(b[0].shape());
  EXPECT_EQ(shapes, (std::vector<Shape>{{3, 2}, {3, 2}, {1, 2}}));

  auto dropped = collect(ds.batch(3, /*drop_remainder=*/true));
  EXPECT_EQ(ds.batch(3, true).cardinality(), 2);
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_EQ(dropped[1][1], (std::vector<int64_t>{3, 4, 5}));
  for (const Element &b : ds.batch(3, true)) {
    EXPECT_EQ(b[0].shape(), (Shape{3, 2}));
    EXPECT_EQ(b[1].dtype(), DType::Int32);
  }

  // Elements of different shapes cannot be stacked.
  Dataset ragged = Dataset::range(3).map([](const Element &e) {
    return Element{zeros({e[0].item<int64_t>() + 1})};
  });
  expectContains(errorOf([&] { collect(ragged.batch(2)); }), "cannot stack component 0");
  expectContains(errorOf([&] { ds.batch(0); }), "batch_size must be positive");
}

TEST(Dataset, ShuffleIsADeterministicPermutation) {
  Dataset base = Dataset::range(100);
  std::vector<int64_t> a = scalars(base.shuffle(10, 7));
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, iota(100));
  EXPECT_NE(a, iota(100));
  // The same seed on another dataset object: the same order.
  EXPECT_EQ(scalars(base.shuffle(10, 7)), a);
  EXPECT_NE(scalars(base.shuffle(10, 8)), a);
  // A buffer of 10 moves an element at most 9 places earlier.
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_LE(a[i], static_cast<int64_t>(i) + 9);
  EXPECT_EQ(base.shuffle(10, 7).cardinality(), 100);
}

TEST(Dataset, ShuffleReshufflesEachEpochUnlessTold) {
  Dataset ds = Dataset::range(50).shuffle(100, 3);
  std::vector<int64_t> first = scalars(ds), second = scalars(ds);
  EXPECT_NE(first, second);
  std::sort(second.begin(), second.end());
  EXPECT_EQ(second, iota(50));
  // A new dataset with the same seed replays the same epochs.
  Dataset again = Dataset::range(50).shuffle(100, 3);
  EXPECT_EQ(scalars(again), first);

  Dataset fixed = Dataset::range(50).shuffle(100, 3, /*reshuffle_each_iteration=*/false);
  std::vector<int64_t> f1 = scalars(fixed);
  EXPECT_EQ(scalars(fixed), f1);
  EXPECT_NE(f1, iota(50));

  // Each repetition is an epoch of the shuffle, reshuffled.
  std::vector<int64_t> twice = scalars(Dataset::range(50).shuffle(100, 3).repeat(2));
  ASSERT_EQ(twice.size(), 100u);
  EXPECT_NE(std::vector<int64_t>(twice.begin(), twice.begin() + 50),
            std::vector<int64_t>(twice.begin() + 50, twice.end()));
}

TEST(Dataset, ShuffleWithABufferOfOneKeepsTheOrder) {
  EXPECT_EQ(scalars(Dataset::range(20).shuffle(1, 5)), iota(20));
  expectContains(errorOf([] { Dataset::range(3).shuffle(0, 1); }), "buffer_size must be positive");
}

TEST(Dataset, TakeRepeatAndTheirCardinality) {
  Dataset ds = Dataset::range(5);
  EXPECT_EQ(scalars(ds.take(3)), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(ds.take(3).cardinality(), 3);
  EXPECT_EQ(scalars(ds.take(10)), iota(5));
  EXPECT_EQ(ds.take(10).cardinality(), 5);
  EXPECT_EQ(scalars(ds.take(-1)), iota(5));

  std::vector<int64_t> twice = scalars(ds.repeat(2));
  EXPECT_EQ(twice, (std::vector<int64_t>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4}));
  EXPECT_EQ(ds.repeat(2).cardinality(), 10);
  EXPECT_EQ(ds.repeat().cardinality(), INFINITE_CARDINALITY);
  EXPECT_EQ(scalars(ds.repeat().take(12)).size(), 12u);
  EXPECT_EQ(ds.repeat().take(12).cardinality(), 12);
  EXPECT_EQ(ds.repeat().batch(2).cardinality(), INFINITE_CARDINALITY);
  // Forever over nothing is nothing, not a hang.
  EXPECT_TRUE(scalars(Dataset::range(0).repeat()).empty());
  EXPECT_EQ(Dataset::range(0).repeat().cardinality(), 0);
}

TEST(Dataset, FilterAndSkip) {
  Dataset ds = Dataset::range(10);
  auto even = [](const Element &e) { return e[0].item<int64_t>() % 2 == 0; };
  EXPECT_EQ(scalars(ds.filter(even)), (std::vector<int64_t>{0, 2, 4, 6, 8}));
  EXPECT_EQ(ds.filter(even).cardinality(), UNKNOWN_CARDINALITY);
  EXPECT_EQ(ds.repeat().filter(even).cardinality(), INFINITE_CARDINALITY);
  EXPECT_EQ(scalars(ds.repeat().filter(even).take(7)),
            (std::vector<int64_t>{0, 2, 4, 6, 8, 0, 2}));
  EXPECT_EQ(scalars(ds.skip(7)), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(ds.skip(7).cardinality(), 3);
  EXPECT_EQ(ds.skip(20).cardinality(), 0);
  EXPECT_TRUE(scalars(ds.skip(20)).empty());
  EXPECT_TRUE(scalars(ds.skip(-1)).empty());
  EXPECT_EQ(ds.skip(-1).cardinality(), 0);
  // skip then take: a validation split off the front.
  EXPECT_EQ(scalars(ds.skip(2).take(3)), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_THROW(ds.skip(-2), Error);
  EXPECT_THROW(ds.filter(nullptr), Error);
}

TEST(Dataset, ShardsAreDisjointAndCoverTheInput) {
  Dataset ds = Dataset::range(10);
  EXPECT_EQ(scalars(ds.shard(3, 0)), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(scalars(ds.shard(3, 1)), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(scalars(ds.shard(3, 2)), (std::vector<int64_t>{2, 5, 8}));
  EXPECT_EQ(ds.shard(3, 0).cardinality(), 4);
  EXPECT_EQ(ds.shard(3, 2).cardinality(), 3);
  EXPECT_EQ(scalars(ds.shard(1, 0)), iota(10));
  EXPECT_TRUE(scalars(Dataset::range(2).shard(4, 3)).empty());
  EXPECT_EQ(Dataset::range(2).shard(4, 3).cardinality(), 0);
  EXPECT_EQ(ds.repeat().shard(2, 1).cardinality(), INFINITE_CARDINALITY);
  EXPECT_EQ(scalars(ds.repeat(2).shard(4, 1)), (std::vector<int64_t>{1, 5, 9, 3, 7}));
  // Each shard batches its own elements.
  EXPECT_EQ(ds.shard(2, 1).batch(2).cardinality(), 3);
  expectContains(errorOf([&] { ds.shard(0, 0); }), "num_shards must be positive, got 0");
  expectContains(errorOf([&] { ds.shard(2, 2); }),
                 "index must be in [0, num_shards), got 2 with num_shards 2");
}

TEST(Dataset, MapTransformsEachElement) {
  Tensor x = Tensor::from_vector(std::vector<float>{0, 51, 255}, {3});
  Tensor y = Tensor::from_vector(std::vector<int64_t>{1, 2, 3}, {3});
  Dataset ds = Dataset::from_tensor_slices({x, y}).map([](const Element &e) {
    return Element{e[0] / 255.0f, e[1] * int64_t(10)};
  });
  EXPECT_EQ(ds.cardinality(), 3);
  std::vector<float> xs;
  std::vector<int64_t> ys;
  for (const Element &e : ds) {
    xs.push_back(e[0].item<float>());
    ys.push_back(e[1].item<int64_t>());
  }
  EXPECT_EQ(xs, (std::vector<float>{0.f, 0.2f, 1.f}));
  EXPECT_EQ(ys, (std::vector<int64_t>{10, 20, 30}));
}

TEST(Dataset, PrefetchGivesTheSameSequence) {
  Tensor x = Tensor::from_vector(iota(200), {100, 2});
  Dataset ds = Dataset::from_tensor_slices({x}).shuffle(30, 11, false).batch(7);
  auto plain = collect(ds);
  EXPECT_EQ(collect(ds.prefetch(3)), plain);
  // Eager ops in map run on the prefetch thread.
  auto twice = [](const Element &e) { return Element{e[0] * int64_t(2)}; };
  EXPECT_EQ(collect(ds.map(twice).prefetch(2)), collect(ds.map(twice)));
  EXPECT_EQ(std::ranges::distance(ds.prefetch(2)), 15);
  EXPECT_EQ(collect(ds.prefetch(1)), plain);
  EXPECT_EQ(collect(ds.prefetch(AUTOTUNE).prefetch(2)), plain);
  EXPECT_EQ(ds.prefetch(3).cardinality(), 15);
}

TEST(Dataset, AnExceptionInMapReachesTheConsumerThroughPrefetch) {
  Dataset ds = Dataset::range(10)
                   .map([](const Element &e) {
                     if (e[0].item<int64_t>() == 4)
                       throw Error("bad element 4");
                     return e;
                   })
                   .prefetch(8);
  std::vector<int64_t> seen;
  std::string msg = errorOf([&] {
    for (const Element &e : ds)
      seen.push_back(e[0].item<int64_t>());
  });
  EXPECT_EQ(msg, "bad element 4");
  // The elements before the failure arrive first.
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3}));
  // The dataset is usable again: a new epoch fails the same way.
  EXPECT_EQ(errorOf([&] { collect(ds); }), "bad element 4");
}

TEST(Dataset, LeavingAPrefetchingLoopEarlyStopsItsThread) {
  std::atomic<int> made{0};
  Dataset endless = Dataset::range(1).repeat().map([&](const Element &e) {
    ++made;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    return e;
  });
  // Run on another thread so that a hang fails the test instead of stalling it.
  auto done = std::async(std::launch::async, [&] {
    for (int round = 0; round < 20; ++round) {
      int n = 0;
      for (const Element &e : endless.prefetch(4)) {
        (void)e;
        if (++n == 5)
          break; // destroys the iterator while the producer is running
      }
      Dataset::Iterator it = endless.prefetch(2).begin(); // started, never advanced
    }
  });
  if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    // ~future would wait for the hung thread: end the process, failing.
    std::fprintf(stderr, "FAILED: a prefetching iterator did not stop within 20 s\n");
    std::_Exit(1);
  }
  done.get();
  int after = made.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(made.load(), after) << "a producer still runs after its iterator is gone";
}

TEST(Dataset, IteratorsOutliveTheirDataset) {
  Dataset::Iterator it = Dataset::range(4).shuffle(2, 1).batch(2).prefetch(1).begin();
  int batches = 0;
  for (; it != std::default_sentinel; ++it)
    batches += it->at(0).size(0) == 2;
  EXPECT_EQ(batches, 2);
  EXPECT_THROW(*it, Error);
}

TEST(Dataset, FashionMnistEpochIsFast) {
  if (!std::filesystem::exists(std::string(kFashionMnist) + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "Fashion-MNIST is not installed (Debian's dataset-fashion-mnist)";
  ImageData d = fashion_mnist::load_data();
  Dataset ds = Dataset::from_tensor_slices({d.x_train, d.y_train}).shuffle(1000, 0).batch(32);
  for (bool prefetch : {false, true}) {
    Dataset pipeline = prefetch ? ds.prefetch(2) : ds;
    auto start = std::chrono::steady_clock::now();
    int64_t images = 0, batches = 0;
    double checksum = 0;
    for (const Element &batch : pipeline) {
      images += batch[0].size(0);
      ++batches;
      checksum += batch[1].data_ptr<int64_t>()[0];
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("Fashion-MNIST epoch (shuffle 1000, batch 32%s): %.3f s\n",
                prefetch ? ", prefetch 2" : "", seconds);
    EXPECT_EQ(images, 60000);
    EXPECT_EQ(batches, 1875);
    EXPECT_GT(checksum, 0);
    EXPECT_LT(seconds, 5.0); // generous: shared CI machines; expect ~0.1 s
  }
}

} // namespace
