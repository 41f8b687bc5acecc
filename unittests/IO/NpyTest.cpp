//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "NpyFormat.h"

#include "ember/Frontend/Error.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

using namespace ember;
using namespace ember::detail;
namespace fs = std::filesystem;

namespace {

/// A fresh directory per test, removed afterwards.
class NpyTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("ember-npy-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string &name) const { return (dir_ / name).string(); }

  static std::string slurp(const std::string &p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void spit(const std::string &p, const std::string &bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  /// A valid float64 (2, 3) file, returned as bytes.
  std::string validFile(const std::string &name) {
    std::vector<double> values = {1, 2, 3, 4, 5, 6};
    int64_t shape[] = {2, 3};
    writeNpy(path(name), DType::Float64, shape, 2, values.data());
    return slurp(path(name));
  }

  /// Rewrites a valid file's header with `from` replaced by `to` and returns
  /// readNpy's error message. The header's padding absorbs the change in
  /// length, so the header length field stays right.
  std::string errorAfterEdit(const std::string &from, const std::string &to) {
    std::string bytes = validFile("edit.npy");
    size_t at = bytes.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at == std::string::npos || at >= 128)
      return "";
    bytes.replace(at, from.size(), to);
    size_t newline = 127 + to.size() - from.size();
    if (to.size() > from.size())
      bytes.erase(newline - (to.size() - from.size()), to.size() - from.size());
    else
      bytes.insert(newline, from.size() - to.size(), ' ');
    EXPECT_EQ(bytes[127], '\n');
    spit(path("edit.npy"), bytes);
    return readError(path("edit.npy"));
  }

  static std::string readError(const std::string &p) {
    try {
      readNpy(p);
    } catch (const IOError &e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(p), std::string::npos) << "message does not name the file: " << msg;
      return msg;
    }
    ADD_FAILURE() << "readNpy(" << p << ") did not throw";
    return "";
  }

  fs::path dir_;
};

template <typename T>
void expectRoundTrip(const std::string &p, DType dtype, std::vector<int64_t> shape,
                     const std::vector<T> &values) {
  writeNpy(p, dtype, shape.data(), static_cast<int>(shape.size()), values.data());
  NpyArray a = readNpy(p);
  EXPECT_EQ(a.dtype, dtype);
  EXPECT_EQ(a.shape, shape);
  ASSERT_EQ(a.data.size(), values.size() * sizeof(T));
  if (!values.empty()) {
    EXPECT_EQ(std::memcmp(a.data.data(), values.data(), a.data.size()), 0);
  }
}

TEST_F(NpyTest, RoundTripEachDType) {
  expectRoundTrip<float>(path("f4.npy"), DType::Float32, {2, 3}, {1.5f, -2, 3, 0.1f, 5, 6});
  expectRoundTrip<double>(path("f8.npy"), DType::Float64, {3}, {1e-300, -0.0, 1e300});
  expectRoundTrip<int32_t>(path("i4.npy"), DType::Int32, {2, 2}, {1, -2, 2147483647, -2147483647});
  expectRoundTrip<int64_t>(path("i8.npy"), DType::Int64, {1, 2, 1},
                           {INT64_MIN, INT64_MAX});
  expectRoundTrip<unsigned char>(path("b1.npy"), DType::Bool, {4}, {1, 0, 0, 1});
}

TEST_F(NpyTest, RoundTripZeroDimensional) {
  expectRoundTrip<double>(path("s.npy"), DType::Float64, {}, {4.0});
  expectRoundTrip<int32_t>(path("si.npy"), DType::Int32, {}, {-7});
  expectRoundTrip<unsigned char>(path("sb.npy"), DType::Bool, {}, {1});
  EXPECT_NE(slurp(path("s.npy")).find("'shape': (), }"), std::string::npos);
}

TEST_F(NpyTest, RoundTripEmptyShapes) {
  expectRoundTrip<float>(path("e1.npy"), DType::Float32, {0}, {});
  expectRoundTrip<int64_t>(path("e2.npy"), DType::Int64, {2, 0, 3}, {});
  expectRoundTrip<unsigned char>(path("e3.npy"), DType::Bool, {0, 5}, {});
}

TEST_F(NpyTest, WritesNumpysExactHeader) {
  std::string bytes = validFile("h.npy");
  // What np.save(np.arange(1., 7.).reshape(2, 3)) writes.
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  std::string expected = std::string("\x93NUMPY\x01\x00", 8) + std::string("\x76\x00", 2) + dict +
                         std::string(20 + 38, ' ') + "\n";
  ASSERT_EQ(bytes.size(), 128u + 48u);
  EXPECT_EQ(bytes.substr(0, 128), expected);
  double first;
  std::memcpy(&first, bytes.data() + 128, sizeof(first));
  EXPECT_EQ(first, 1.0);
}

TEST_F(NpyTest, DataIsAlignedTo64Bytes) {
  for (int rank = 0; rank <= 12; ++rank) {
    // A zero first dim keeps the file tiny; the others lengthen the header.
    std::vector<int64_t> shape(static_cast<size_t>(rank), 123456789);
    if (rank)
      shape[0] = 0;
    std::string p = path("a" + std::to_string(rank) + ".npy");
    int32_t dummy = 0;
    writeNpy(p, DType::Int32, shape.data(), rank, &dummy);
    std::string bytes = slurp(p);
    size_t headerLen = static_cast<unsigned char>(bytes[8]) |
                       static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    EXPECT_EQ((10 + headerLen) % 64, 0u) << rank;
    EXPECT_EQ(bytes[10 + headerLen - 1], '\n');
    EXPECT_EQ(readNpy(p).shape, shape);
  }
}

TEST_F(NpyTest, ReadsVersions2And3) {
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  for (char major : {'\x02', '\x03'}) {
    std::string header = dict + std::string(64 - (12 + dict.size() + 1) % 64, ' ') + "\n";
    uint32_t len = static_cast<uint32_t>(header.size());
    std::string bytes = std::string("\x93NUMPY", 6) + major + '\0';
    for (int i = 0; i < 4; ++i)
      bytes += static_cast<char>((len >> (8 * i)) & 0xff);
    int32_t values[2] = {5, -6};
    bytes += header + std::string(reinterpret_cast<const char *>(values), sizeof(values));
    spit(path("v.npy"), bytes);
    NpyArray a = readNpy(path("v.npy"));
    EXPECT_EQ(a.dtype, DType::Int32);
    EXPECT_EQ(a.shape, std::vector<int64_t>{2});
    EXPECT_EQ(std::memcmp(a.data.data(), values, sizeof(values)), 0);
  }
}

TEST_F(NpyTest, ReadsLooserHeaders) {
  // Key order, quotes, spacing and Python 2's "3L" all vary between writers.
  std::string dict = "{\"shape\":(3L,),\"fortran_order\":False,\"descr\":\"<f4\"}";
  std::string header = dict + std::string(64 - (10 + dict.size() + 1) % 64, ' ') + "\n";
  float values[3] = {1, 2, 3};
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) +
                      static_cast<char>(header.size() & 0xff) +
                      static_cast<char>(header.size() >> 8) + header +
                      std::string(reinterpret_cast<const char *>(values), sizeof(values));
  spit(path("loose.npy"), bytes);
  NpyArray a = readNpy(path("loose.npy"));
  EXPECT_EQ(a.dtype, DType::Float32);
  EXPECT_EQ(a.shape, std::vector<int64_t>{3});
}

TEST_F(NpyTest, BoolBytesAreNormalised) {
  unsigned char values[3] = {0, 1, 1};
  int64_t shape[] = {3};
  writeNpy(path("b.npy"), DType::Bool, shape, 1, values);
  std::string bytes = slurp(path("b.npy"));
  bytes[bytes.size() - 1] = '\x07';
  spit(path("b.npy"), bytes);
  NpyArray a = readNpy(path("b.npy"));
  EXPECT_EQ(a.data, (std::vector<unsigned char>{0, 1, 1}));
}

TEST_F(NpyTest, OverwritesAtomicallyAndLeavesNoTemporaries) {
  validFile("x.npy");
  std::vector<int32_t> values = {9};
  int64_t shape[] = {1};
  writeNpy(path("x.npy"), DType::Int32, shape, 1, values.data());
  EXPECT_EQ(readNpy(path("x.npy")).dtype, DType::Int32);
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(dir_))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"x.npy"});
}

TEST_F(NpyTest, WriteFailuresNameThePath) {
  std::vector<float> values = {1};
  int64_t shape[] = {1};
  std::string missingDir = path("no/such/dir/a.npy");
  try {
    writeNpy(missingDir, DType::Float32, shape, 1, values.data());
    ADD_FAILURE() << "no error";
  } catch (const IOError &e) {
    EXPECT_NE(std::string(e.what()).find(missingDir), std::string::npos) << e.what();
  }
  // The target is a directory: the rename fails, the temporary is removed.
  fs::create_directory(path("isdir"));
  fs::create_directory(path("isdir/sub"));
  try {
    writeNpy(path("isdir"), DType::Float32, shape, 1, values.data());
    ADD_FAILURE() << "no error";
  } catch (const IOError &e) {
    EXPECT_NE(std::string(e.what()).find(path("isdir")), std::string::npos) << e.what();
  }
  size_t entries = 0;
  for ([[maybe_unused]] const auto &entry : fs::directory_iterator(dir_))
    ++entries;
  EXPECT_EQ(entries, 1u);
  int64_t negative[] = {-1};
  EXPECT_THROW(writeNpy(path("neg.npy"), DType::Float32, negative, 1, values.data()), IOError);
  EXPECT_FALSE(fs::exists(path("neg.npy")));
}

TEST_F(NpyTest, MissingFile) {
  std::string msg = readError(path("absent.npy"));
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
  msg = readError(dir_.string());
  EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
}

TEST_F(NpyTest, BadMagic) {
  std::string bytes = validFile("m.npy");
  bytes[0] = 'X';
  spit(path("m.npy"), bytes);
  EXPECT_NE(readError(path("m.npy")).find("bad magic"), std::string::npos);
  spit(path("m.npy"), "PK\x03\x04");
  EXPECT_NE(readError(path("m.npy")).find("bad magic"), std::string::npos);
  spit(path("m.npy"), "");
  EXPECT_NE(readError(path("m.npy")).find("empty"), std::string::npos);
}

TEST_F(NpyTest, UnsupportedVersion) {
  std::string bytes = validFile("v.npy");
  bytes[6] = '\x04';
  spit(path("v.npy"), bytes);
  std::string msg = readError(path("v.npy"));
  EXPECT_NE(msg.find("unsupported .npy format version 4.0"), std::string::npos) << msg;
  bytes[6] = '\x01';
  bytes[7] = '\x01';
  spit(path("v.npy"), bytes);
  msg = readError(path("v.npy"));
  EXPECT_NE(msg.find("version 1.1"), std::string::npos) << msg;
}

TEST_F(NpyTest, MalformedHeader) {
  EXPECT_NE(errorAfterEdit("{'descr'", "['descr'").find("malformed header"), std::string::npos);
  EXPECT_NE(errorAfterEdit("(2, 3)", "(2, 3]").find("malformed header"), std::string::npos);
  EXPECT_NE(errorAfterEdit("'shape'", "'shapf'").find("unexpected key 'shapf'"),
            std::string::npos);
  EXPECT_NE(errorAfterEdit("False", "Fals ").find("malformed header"), std::string::npos);
  EXPECT_NE(errorAfterEdit("False", "None ").find("fortran_order is not True or False"),
            std::string::npos);
  EXPECT_NE(errorAfterEdit("(2, 3)", "'2, 3'").find("shape is not a tuple"), std::string::npos);
  EXPECT_NE(errorAfterEdit("'<f8'", "'<f8 ").find("expected ',' or '}'"), std::string::npos);
  EXPECT_NE(errorAfterEdit("(2, 3), }", "(2, 3), '").find("unterminated string"),
            std::string::npos);
  EXPECT_NE(errorAfterEdit("}", "} x").find("unexpected text after the dictionary"),
            std::string::npos);
  EXPECT_NE(errorAfterEdit("(2, 3)", std::string(40, '(')).find("nesting too deep"),
            std::string::npos);
  EXPECT_NE(errorAfterEdit("(2, 3)", "(2.,3)").find("malformed header"), std::string::npos);
  // Truncated inside the header itself.
  std::string bytes = validFile("t.npy");
  spit(path("t.npy"), bytes.substr(0, 50));
  std::string msg = readError(path("t.npy"));
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

TEST_F(NpyTest, UnsupportedDType) {
  std::string msg = errorAfterEdit("'<f8'", "'<u2'");
  EXPECT_NE(msg.find("unsupported dtype '<u2'"), std::string::npos) << msg;
  msg = errorAfterEdit("'<f8'", "'|u1'");
  EXPECT_NE(msg.find("unsupported dtype '|u1'"), std::string::npos) << msg;
  msg = errorAfterEdit("'<f8'", "[('a'");
  EXPECT_NE(msg.find("malformed header"), std::string::npos) << msg;
}

TEST_F(NpyTest, StructuredDType) {
  std::string dict = "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }";
  std::string header = dict + std::string(64 - (10 + dict.size() + 1) % 64, ' ') + "\n";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) +
                      static_cast<char>(header.size() & 0xff) +
                      static_cast<char>(header.size() >> 8) + header + std::string(4, '\0');
  spit(path("s.npy"), bytes);
  std::string msg = readError(path("s.npy"));
  EXPECT_NE(msg.find("structured"), std::string::npos) << msg;
}

TEST_F(NpyTest, FortranOrderIsRefused) {
  std::string msg = errorAfterEdit("False,", "True, ");
  EXPECT_NE(msg.find("fortran_order: True"), std::string::npos) << msg;
}

TEST_F(NpyTest, BigEndianIsRefused) {
  std::string msg = errorAfterEdit("'<f8'", "'>f8'");
  EXPECT_NE(msg.find("big-endian dtype '>f8'"), std::string::npos) << msg;
}

TEST_F(NpyTest, NegativeDimension) {
  std::string msg = errorAfterEdit("(2, 3)", "(2,-3)");
  EXPECT_NE(msg.find("invalid shape (2, -3): negative dimension"), std::string::npos) << msg;
}

TEST_F(NpyTest, HugeShapeDoesNotAllocate) {
  std::string msg = errorAfterEdit("(2, 3)", "(99999999999999,)");
  EXPECT_NE(msg.find("expected 799999999999992 bytes of data, found 48"), std::string::npos)
      << msg;
  msg = errorAfterEdit("(2, 3)", "(4294967296, 4294967296)");
  EXPECT_NE(msg.find("shape (4294967296, 4294967296) is too large"), std::string::npos) << msg;
  msg = errorAfterEdit("(2, 3)", "(99999999999999999999,)");
  EXPECT_NE(msg.find("too large for int64"), std::string::npos) << msg;
}

TEST_F(NpyTest, TruncatedData) {
  std::string bytes = validFile("d.npy");
  spit(path("d.npy"), bytes.substr(0, bytes.size() - 8));
  std::string msg = readError(path("d.npy"));
  EXPECT_NE(msg.find("expected 48 bytes of data, found 40"), std::string::npos) << msg;
  spit(path("d.npy"), bytes.substr(0, 128));
  msg = readError(path("d.npy"));
  EXPECT_NE(msg.find("expected 48 bytes of data, found 0"), std::string::npos) << msg;
}

TEST_F(NpyTest, EveryTruncationAndByteFlipFailsCleanly) {
  // Any prefix or single-byte corruption must load or throw IOError, never
  // crash or read past the end (run under ASan/UBSan to see the latter).
  std::string bytes = validFile("f.npy");
  for (size_t len = 0; len < bytes.size(); ++len) {
    spit(path("f.npy"), bytes.substr(0, len));
    EXPECT_THROW(readNpy(path("f.npy")), IOError) << len;
  }
  for (size_t at = 0; at < 128; ++at) {
    for (int value : {0x00, 0x20, 0x27, 0x28, 0x29, 0x2c, 0x2d, 0x39, 0x5b, 0x7b, 0x7d, 0xff}) {
      std::string mutated = bytes;
      mutated[at] = static_cast<char>(value);
      spit(path("f.npy"), mutated);
      try {
        NpyArray a = readNpy(path("f.npy"));
        EXPECT_LE(a.data.size(), bytes.size());
      } catch (const IOError &) {
      }
    }
  }
}

} // namespace
