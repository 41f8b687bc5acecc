//===- SummaryTest.cpp - TensorBoard event files --------------------------===//
//
// The files are read back with a TFRecord reader and a protobuf walker of
// this file's own (a bit-at-a-time CRC32C, not the library's tables), and,
// where protoc is installed, decoded by `protoc --decode_raw` as a second,
// independent opinion on the wire format.
//
//===----------------------------------------------------------------------===//

#include "TFRecord.h"

#include "ember/IO/Summary.h"

#include "ErrorTestUtil.h"

#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <csignal>

#include <sys/resource.h>
#include <unistd.h>

using namespace ember;
using namespace ember::detail;
using ember::test::errorOf;
using ember::test::expectContains;
namespace fs = std::filesystem;

namespace {

//===----------------------------------------------------------------------===//
// An independent reader
//===----------------------------------------------------------------------===//

uint32_t bitwiseCrc32c(std::string_view data) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char byte : data) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
  }
  return ~crc;
}

uint64_t loadLE(std::string_view bytes, size_t at, int size) {
  uint64_t value = 0;
  for (int i = 0; i < size; ++i)
    value |= uint64_t(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return value;
}

uint32_t masked(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

/// The records of a TFRecord file, each length and CRC checked.
std::vector<std::string> readRecords(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> records;
  for (size_t at = 0; at < file.size();) {
    if (file.size() - at < 12)
      throw std::runtime_error("truncated record header at " + std::to_string(at));
    uint64_t length = loadLE(file, at, 8);
    if (loadLE(file, at + 8, 4) != masked(bitwiseCrc32c(std::string_view(file).substr(at, 8))))
      throw std::runtime_error("bad length CRC at " + std::to_string(at));
    if (file.size() - at - 12 < length + 4)
      throw std::runtime_error("truncated record at " + std::to_string(at));
    std::string data = file.substr(at + 12, length);
    if (loadLE(file, at + 12 + length, 4) != masked(bitwiseCrc32c(data)))
      throw std::runtime_error("bad data CRC at " + std::to_string(at));
    records.push_back(std::move(data));
    at += 12 + length + 4;
  }
  return records;
}

/// One field of a protobuf message: a varint or fixed value in `bits`, or
/// the bytes of a length-delimited one.
struct Field {
  int number = 0;
  int wireType = 0;
  uint64_t bits = 0;
  std::string bytes;

  double asDouble() const { return std::bit_cast<double>(bits); }
  float asFloat() const { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }
};

std::vector<Field> parseMessage(std::string_view data) {
  size_t at = 0;
  auto varint = [&] {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= data.size())
        throw std::runtime_error("truncated varint");
      unsigned char byte = static_cast<unsigned char>(data[at++]);
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return value;
    }
    throw std::runtime_error("varint too long");
  };
  auto need = [&](uint64_t n) {
    if (data.size() - at < n)
      throw std::runtime_error("truncated field");
  };
  std::vector<Field> fields;
  while (at < data.size()) {
    uint64_t key = varint();
    Field field;
    field.number = static_cast<int>(key >> 3);
    field.wireType = static_cast<int>(key & 7);
    switch (field.wireType) {
    case 0:
      field.bits = varint();
      break;
    case 1:
      need(8);
      field.bits = loadLE(data, at, 8);
      at += 8;
      break;
    case 2: {
      uint64_t length = varint();
      need(length);
      field.bytes = data.substr(at, length);
      at += length;
      break;
    }
    case 5:
      need(4);
      field.bits = loadLE(data, at, 4);
      at += 4;
      break;
    default:
      throw std::runtime_error("unexpected wire type " + std::to_string(field.wireType));
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

/// The one field `number` of `fields`, checked to have `wireType`.
const Field &only(const std::vector<Field> &fields, int number, int wireType) {
  const Field *found = nullptr;
  for (const Field &field : fields) {
    if (field.number != number)
      continue;
    if (found)
      throw std::runtime_error("field " + std::to_string(number) + " repeated");
    found = &field;
  }
  if (!found)
    throw std::runtime_error("field " + std::to_string(number) + " missing");
  if (found->wireType != wireType)
    throw std::runtime_error("field " + std::to_string(number) + " has wire type " +
                             std::to_string(found->wireType));
  return *found;
}

bool has(const std::vector<Field> &fields, int number) {
  for (const Field &field : fields)
    if (field.number == number)
      return true;
  return false;
}

std::vector<double> packedDoubles(const Field &field) {
  if (field.bytes.size() % 8)
    throw std::runtime_error("packed doubles of " + std::to_string(field.bytes.size()) + " bytes");
  std::vector<double> values;
  for (size_t at = 0; at < field.bytes.size(); at += 8)
    values.push_back(std::bit_cast<double>(loadLE(field.bytes, at, 8)));
  return values;
}

/// A decoded summary event: its step and its one Summary.Value's fields.
struct SummaryEvent {
  double wallTime;
  int64_t step;
  std::string tag;
  std::vector<Field> value;
};

SummaryEvent decodeSummaryEvent(const std::string &record) {
  std::vector<Field> event = parseMessage(record);
  SummaryEvent out;
  out.wallTime = only(event, 1, 1).asDouble();
  // proto3 leaves a step of 0 out.
  out.step = has(event, 2) ? static_cast<int64_t>(only(event, 2, 0).bits) : 0;
  std::vector<Field> summary = parseMessage(only(event, 5, 2).bytes);
  out.value = parseMessage(only(summary, 1, 2).bytes);
  out.tag = only(out.value, 1, 2).bytes;
  return out;
}

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

//===----------------------------------------------------------------------===//
// Fixture
//===----------------------------------------------------------------------===//

/// A fresh directory per test, removed afterwards.
class SummaryTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("ember-summary-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// The event files in `logdir`.
  static std::vector<fs::path> eventFiles(const fs::path &logdir) {
    std::vector<fs::path> files;
    for (const auto &entry : fs::directory_iterator(logdir))
      files.push_back(entry.path());
    return files;
  }

  fs::path dir_;
};

//===----------------------------------------------------------------------===//
// CRC32C and framing
//===----------------------------------------------------------------------===//

TEST(Crc32cTest, KnownVectors) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu); // RFC 3720 B.4
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i)
    ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(""), 0u);
}

TEST(Crc32cTest, TablesAgreeWithBitwiseAtEveryLengthAndSplit) {
  std::string data;
  for (int i = 0; i < 100; ++i)
    data.push_back(static_cast<char>(i * 37 + 11));
  for (size_t n = 0; n <= data.size(); ++n) {
    std::string_view prefix = std::string_view(data).substr(0, n);
    ASSERT_EQ(crc32c(prefix), bitwiseCrc32c(prefix)) << "length " << n;
    // Extending a CRC equals the CRC of the whole.
    size_t half = n / 3;
    EXPECT_EQ(crc32c(prefix.substr(half), crc32c(prefix.substr(0, half))), crc32c(prefix));
  }
}

TEST(Crc32cTest, Mask) {
  EXPECT_EQ(maskCrc(0), 0xa282ead8u);
  EXPECT_EQ(maskCrc(0xE3069283u), 0xc78ab0e5u); // computed independently
  uint32_t crc = crc32c("foo");
  EXPECT_NE(maskCrc(crc), crc);
  EXPECT_NE(maskCrc(maskCrc(crc)), crc);
  EXPECT_EQ(unmaskCrc(maskCrc(crc)), crc);
  EXPECT_EQ(unmaskCrc(unmaskCrc(maskCrc(maskCrc(crc)))), crc);
}

TEST(TFRecordTest, Framing) {
  std::string out;
  appendTFRecord(out, "abc");
  appendTFRecord(out, "");
  ASSERT_EQ(out.size(), 8 + 4 + 3 + 4 + 8 + 4 + 0 + 4u);
  EXPECT_EQ(loadLE(out, 0, 8), 3u);
  EXPECT_EQ(loadLE(out, 8, 4), masked(bitwiseCrc32c(std::string_view(out).substr(0, 8))));
  EXPECT_EQ(out.substr(12, 3), "abc");
  EXPECT_EQ(loadLE(out, 15, 4), masked(bitwiseCrc32c("abc")));
  EXPECT_EQ(loadLE(out, 19, 8), 0u);
}

//===----------------------------------------------------------------------===//
// Event files
//===----------------------------------------------------------------------===//

TEST_F(SummaryTest, FileNameAndVersionRecord) {
  double before = std::floor(nowSeconds());
  summary::SummaryWriter writer = summary::create_file_writer((dir_ / "a" / "b").string());
  double after = nowSeconds();
  // The logdir is made with its parents; the version record is there at once.
  std::vector<fs::path> files = eventFiles(dir_ / "a" / "b");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].string(), writer.path());
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof(host) - 1), 0);
  std::smatch match;
  std::string name = files[0].filename().string();
  std::regex pattern(R"(events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+))");
  ASSERT_TRUE(std::regex_match(name, match, pattern)) << name;
  EXPECT_GE(std::stod(match[1]), before);
  EXPECT_LE(std::stod(match[1]), after);
  EXPECT_EQ(match[2], std::string(host));
  EXPECT_EQ(match[3], std::to_string(::getpid()));

  std::vector<std::string> records = readRecords(files[0]);
  ASSERT_EQ(records.size(), 1u);
  std::vector<Field> event = parseMessage(records[0]);
  EXPECT_EQ(only(event, 3, 2).bytes, "brain.Event:2");
  EXPECT_GE(only(event, 1, 1).asDouble(), before);
  EXPECT_LE(only(event, 1, 1).asDouble(), after);
  EXPECT_FALSE(has(event, 2)); // step 0
}

TEST_F(SummaryTest, WritersInOneSecondGetTheirOwnFiles) {
  auto a = summary::create_file_writer(dir_.string(), 10, 120000, ".v2");
  auto b = summary::create_file_writer(dir_.string(), 10, 120000, ".v2");
  EXPECT_NE(a.path(), b.path());
  EXPECT_EQ(eventFiles(dir_).size(), 2u);
  EXPECT_TRUE(a.path().ends_with(".v2")) << a.path();
}

TEST_F(SummaryTest, ScalarsAndHistogramRoundTrip) {
  auto writer = summary::create_file_writer(dir_.string());
  const int kSteps = 5;
  std::vector<float> values;
  for (int step = 0; step < kSteps; ++step) {
    values.push_back(1.0f / (step + 3)); // not exact in binary: bits must survive
    writer.scalar("loss", values.back(), step);
  }
  writer.scalar("big_step", Tensor(2.5), int64_t(1) << 40);
  writer.scalar("negative_step", 0.0, -7);
  writer.histogram("weights", Tensor({{0.f, 1.f, 2.f, 3.f}, {4.f, 5.f, 6.f, 7.f}}), 9,
                   /*buckets=*/4);
  writer.flush();

  std::vector<std::string> records = readRecords(writer.path());
  ASSERT_EQ(records.size(), 1u + kSteps + 3);
  for (int step = 0; step < kSteps; ++step) {
    SummaryEvent event = decodeSummaryEvent(records[1 + step]);
    EXPECT_EQ(event.step, step);
    EXPECT_EQ(event.tag, "loss");
    EXPECT_EQ(std::bit_cast<uint32_t>(only(event.value, 2, 5).asFloat()),
              std::bit_cast<uint32_t>(values[step]));
    EXPECT_NEAR(event.wallTime, nowSeconds(), 600);
  }
  SummaryEvent big = decodeSummaryEvent(records[1 + kSteps]);
  EXPECT_EQ(big.step, int64_t(1) << 40);
  EXPECT_EQ(only(big.value, 2, 5).asFloat(), 2.5f);
  // A oneof member is written even when zero; a negative step takes 10 bytes.
  SummaryEvent negative = decodeSummaryEvent(records[2 + kSteps]);
  EXPECT_EQ(negative.step, -7);
  EXPECT_EQ(std::bit_cast<uint32_t>(only(negative.value, 2, 5).asFloat()), 0u);

  SummaryEvent histogram = decodeSummaryEvent(records[3 + kSteps]);
  EXPECT_EQ(histogram.step, 9);
  EXPECT_EQ(histogram.tag, "weights");
  EXPECT_FALSE(has(histogram.value, 2));
  std::vector<Field> histo = parseMessage(only(histogram.value, 5, 2).bytes);
  EXPECT_FALSE(has(histo, 1)); // min 0 is left out, as proto3 does
  EXPECT_EQ(only(histo, 2, 1).asDouble(), 7.0);
  EXPECT_EQ(only(histo, 3, 1).asDouble(), 8.0);
  EXPECT_EQ(only(histo, 4, 1).asDouble(), 28.0);
  EXPECT_EQ(only(histo, 5, 1).asDouble(), 140.0);
  EXPECT_EQ(packedDoubles(only(histo, 6, 2)), (std::vector<double>{1.75, 3.5, 5.25, 7.0}));
  EXPECT_EQ(packedDoubles(only(histo, 7, 2)), (std::vector<double>{2, 2, 2, 2}));
}

TEST_F(SummaryTest, HistogramDefaultsAndEdgeCases) {
  auto writer = summary::create_file_writer(dir_.string());
  std::vector<float> ramp;
  for (int i = 0; i < 300; ++i)
    ramp.push_back(-1.f + i * 0.01f);
  writer.histogram("ramp", Tensor::from_vector(ramp, {300}), 0);
  writer.histogram("same", Tensor({3, 3, 3}), 1);
  writer.histogram("empty", Tensor::from_vector(std::vector<float>{}, {0}), 2);
  writer.histogram("extremes", Tensor({-1.7e308, 1.7e308}, kFloat64), 3, 2);
  writer.close();

  std::vector<std::string> records = readRecords(writer.path());
  ASSERT_EQ(records.size(), 5u);
  std::vector<Field> ramp30 = parseMessage(only(decodeSummaryEvent(records[1]).value, 5, 2).bytes);
  std::vector<double> limits = packedDoubles(only(ramp30, 6, 2));
  std::vector<double> counts = packedDoubles(only(ramp30, 7, 2));
  ASSERT_EQ(limits.size(), 30u); // tf.summary.histogram's default
  ASSERT_EQ(counts.size(), 30u);
  EXPECT_EQ(limits.back(), only(ramp30, 2, 1).asDouble());
  EXPECT_EQ(only(ramp30, 1, 1).asDouble(), -1.0);
  double total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    total += counts[i];
    EXPECT_NEAR(counts[i], 10, 1) << "bucket " << i;
    if (i)
      EXPECT_GT(limits[i], limits[i - 1]);
  }
  EXPECT_EQ(total, 300);

  std::vector<Field> same = parseMessage(only(decodeSummaryEvent(records[2]).value, 5, 2).bytes);
  EXPECT_EQ(packedDoubles(only(same, 6, 2)), std::vector<double>{3.0});
  EXPECT_EQ(packedDoubles(only(same, 7, 2)), std::vector<double>{3.0});

  std::vector<Field> empty = parseMessage(only(decodeSummaryEvent(records[3]).value, 5, 2).bytes);
  EXPECT_TRUE(empty.empty()); // every field at its default

  // max - min overflows a double; the buckets must still be finite and full.
  std::vector<Field> wide = parseMessage(only(decodeSummaryEvent(records[4]).value, 5, 2).bytes);
  EXPECT_EQ(packedDoubles(only(wide, 6, 2)), (std::vector<double>{0.0, 1.7e308}));
  EXPECT_EQ(packedDoubles(only(wide, 7, 2)), (std::vector<double>{1, 1}));
}

TEST_F(SummaryTest, ProtocDecodesTheEvents) {
  if (std::system("command -v protoc >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "protoc is not installed (scripts/setup.sh installs protobuf-compiler)";
  auto writer = summary::create_file_writer(dir_.string());
  writer.scalar("loss", 0.1f, 3);
  writer.histogram("weights", Tensor({1.f, 2.f}), 4, 2);
  writer.close();
  std::vector<std::string> records = readRecords(writer.path());
  ASSERT_EQ(records.size(), 3u);

  auto decodeRaw = [&](const std::string &record) {
    fs::path input = dir_ / "record.bin";
    std::ofstream(input, std::ios::binary) << record;
    std::string command = "protoc --decode_raw < '" + input.string() + "' 2>&1";
    FILE *pipe = ::popen(command.c_str(), "r");
    if (!pipe)
      throw std::runtime_error("popen failed");
    std::string text;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;)
      text.append(buffer, n);
    EXPECT_EQ(::pclose(pipe), 0) << text;
    return text;
  };
  std::string version = decodeRaw(records[0]);
  expectContains(version, "3: \"brain.Event:2\"");
  EXPECT_TRUE(std::regex_search(version, std::regex(R"(^1: 0x[0-9a-f]{16}\n)"))) << version;

  // decode_raw prints a fixed32 as its bits in hex.
  char bits[16];
  std::snprintf(bits, sizeof(bits), "0x%08x", std::bit_cast<uint32_t>(0.1f));
  std::string scalar = decodeRaw(records[1]);
  expectContains(scalar, "2: 3\n");
  expectContains(scalar, "5 {\n  1 {\n    1: \"loss\"\n    2: " + std::string(bits) + "\n");

  std::string histogram = decodeRaw(records[2]);
  expectContains(histogram, "2: 4\n");
  expectContains(histogram, "1: \"weights\"");
  expectContains(histogram, "    5 {\n      1: 0x3ff0000000000000\n      2: 0x4000000000000000\n");
}

//===----------------------------------------------------------------------===//
// Queueing
//===----------------------------------------------------------------------===//

TEST_F(SummaryTest, QueueFlushesAtMaxQueue) {
  auto writer = summary::create_file_writer(dir_.string(), /*max_queue=*/3);
  writer.scalar("x", 1, 0);
  writer.scalar("x", 2, 1);
  EXPECT_EQ(readRecords(writer.path()).size(), 1u); // still queued
  writer.scalar("x", 3, 2);
  EXPECT_EQ(readRecords(writer.path()).size(), 4u);
  writer.scalar("x", 4, 3);
  EXPECT_EQ(readRecords(writer.path()).size(), 4u);
  writer.flush();
  EXPECT_EQ(readRecords(writer.path()).size(), 5u);
}

TEST_F(SummaryTest, QueueFlushesAfterFlushMillis) {
  auto writer = summary::create_file_writer(dir_.string(), 100, /*flush_millis=*/500);
  writer.scalar("x", 1, 0);
  EXPECT_EQ(readRecords(writer.path()).size(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(550));
  writer.scalar("x", 2, 1); // checked at the write, as TensorFlow does
  EXPECT_EQ(readRecords(writer.path()).size(), 3u);
}

TEST_F(SummaryTest, LastHandleClosesAndFlushes) {
  std::string path;
  {
    auto writer = summary::create_file_writer(dir_.string());
    path = writer.path();
    auto copy = writer;
    copy.scalar("x", 1, 0);
    EXPECT_EQ(readRecords(path).size(), 1u);
  }
  EXPECT_EQ(readRecords(path).size(), 2u);
}

TEST_F(SummaryTest, ThreadsWriteWholeRecords) {
  auto writer = summary::create_file_writer(dir_.string(), /*max_queue=*/7);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([writer, t]() mutable {
      for (int step = 0; step < 100; ++step)
        writer.scalar("thread" + std::to_string(t), step, step);
    });
  for (std::thread &thread : threads)
    thread.join();
  writer.close();
  std::vector<std::string> records = readRecords(writer.path());
  ASSERT_EQ(records.size(), 401u);
  std::map<std::string, int> perTag;
  for (size_t i = 1; i < records.size(); ++i)
    ++perTag[decodeSummaryEvent(records[i]).tag];
  EXPECT_EQ(perTag, (std::map<std::string, int>{
                        {"thread0", 100}, {"thread1", 100}, {"thread2", 100}, {"thread3", 100}}));
}

//===----------------------------------------------------------------------===//
// The default writer
//===----------------------------------------------------------------------===//

TEST_F(SummaryTest, DefaultWriterScopes) {
  EXPECT_FALSE(summary::scalar("x", 1, 0)); // none: a no-op, as TensorFlow
  EXPECT_FALSE(summary::histogram("h", Tensor({1.f}), 0));
  EXPECT_FALSE(summary::flush());
  auto a = summary::create_file_writer((dir_ / "a").string());
  auto b = summary::create_file_writer((dir_ / "b").string());
  {
    auto outer = a.as_default();
    EXPECT_TRUE(summary::scalar("x", 1, 0));
    {
      auto inner = b.as_default();
      EXPECT_TRUE(summary::scalar("y", Tensor(2.f), 1));
      EXPECT_TRUE(summary::histogram("h", Tensor({1.f, 2.f}), 1));
    }
    EXPECT_TRUE(summary::scalar("x", 3, 2));
    // Another thread has a default writer of its own: none.
    bool wroteElsewhere = true;
    std::thread([&] { wroteElsewhere = summary::scalar("x", 4, 3); }).join();
    EXPECT_FALSE(wroteElsewhere);
    EXPECT_TRUE(summary::flush());
  }
  EXPECT_FALSE(summary::scalar("x", 5, 4));
  b.flush();

  std::vector<std::string> inA = readRecords(a.path()), inB = readRecords(b.path());
  ASSERT_EQ(inA.size(), 3u);
  ASSERT_EQ(inB.size(), 3u);
  EXPECT_EQ(decodeSummaryEvent(inA[1]).tag, "x");
  EXPECT_EQ(decodeSummaryEvent(inA[2]).step, 2);
  EXPECT_EQ(decodeSummaryEvent(inB[1]).tag, "y");
  EXPECT_EQ(decodeSummaryEvent(inB[2]).tag, "h");

  a.set_as_default();
  EXPECT_TRUE(summary::scalar("x", 6, 5));
  summary::SummaryWriter().set_as_default();
  EXPECT_FALSE(summary::scalar("x", 7, 6));
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(SummaryTest, UnwritableLogdirNamesThePath) {
  // A logdir under a regular file: refused even to root, unlike permissions.
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  std::string logdir = (dir_ / "file" / "logs").string();
  std::string message = errorOf([&] { summary::create_file_writer(logdir); });
  expectContains(message, "cannot create summary directory '" + logdir + "'");
  expectContains(message, "Not a directory");
  EXPECT_THROW(summary::create_file_writer(logdir), IOError);
}

TEST_F(SummaryTest, FailedAppendLeavesWholeRecords) {
  auto writer = summary::create_file_writer(dir_.string(), /*max_queue=*/1000);
  writer.scalar("x", 1, 0);
  writer.flush();
  uintmax_t size = fs::file_size(writer.path());
  // A file size limit a little past the end: the next append is cut short
  // part way (EFBIG, with SIGXFSZ ignored), as a full disk would cut it.
  rlimit old;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = size + 100;
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  if (::setrlimit(RLIMIT_FSIZE, &small) != 0) {
    std::signal(SIGXFSZ, oldHandler);
    GTEST_SKIP() << "cannot lower RLIMIT_FSIZE";
  }
  for (int step = 1; step <= 20; ++step)
    writer.scalar("x", step, step);
  std::string message = errorOf([&] { writer.flush(); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, oldHandler);
  expectContains(message, "cannot write event file '" + writer.path() + "': ");
  expectContains(message, std::strerror(EFBIG));
  EXPECT_EQ(fs::file_size(writer.path()), size);
  EXPECT_EQ(readRecords(writer.path()).size(), 2u);
  // The writer goes on after the failure.
  writer.scalar("x", 21, 21);
  writer.flush();
  EXPECT_EQ(readRecords(writer.path()).size(), 3u);
}

TEST_F(SummaryTest, MisuseIsAnError) {
  auto writer = summary::create_file_writer(dir_.string());
  expectContains(errorOf([&] { writer.scalar("loss", Tensor({1.f, 2.f}), 0); }),
                 "summary.scalar 'loss': expects a 0-d tensor, got shape (2,)");
  expectContains(errorOf([&] { writer.histogram("w", Tensor({1.f, NAN}), 0); }),
                 "summary.histogram 'w': the values hold NaN or infinity");
  expectContains(errorOf([&] { writer.histogram("w", Tensor({1.f}), 0, 0); }),
                 "buckets must be at least 1, got 0");
  expectContains(errorOf([&] { summary::create_file_writer(dir_.string(), -1); }),
                 "max_queue and flush_millis must be >= 0");
  writer.close();
  writer.close(); // twice: nothing
  expectContains(errorOf([&] { writer.scalar("loss", 1, 0); }),
                 "the writer of '" + writer.path() + "' is closed");
  expectContains(errorOf([] { summary::SummaryWriter().flush(); }), "undefined");
  EXPECT_EQ(readRecords(writer.path()).size(), 1u); // the failed writes left nothing
}

} // namespace
