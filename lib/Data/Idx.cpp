//===- Idx.cpp - IDX files (MNIST's format) ---------------------------------===//
//
// An IDX file is a 4-byte magic number (0, 0, type code, rank), the dims as
// big-endian uint32, then the values, big-endian, row-major. Files are read
// through zlib, which inflates gzip data and passes plain data through, and
// checked as untrusted: the data is read until the end of the file before
// its size is compared with the header's, so a corrupt header can neither
// make us allocate for data that is not there nor hide trailing bytes.
//
//===----------------------------------------------------------------------===//

#include "ember/Data/Data.h"


#include "ember/Frontend/Error.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

using namespace ember;

namespace {

std::string quoted(const std::string &path) { return "'" + path + "'"; }

[[noreturn]] void failRead(const std::string &path, const std::string &what) {
  throw IOError("cannot read IDX file " + quoted(path) + ": " + what);
}

std::string hexBytes(const unsigned char *p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof(buf), "%s%02x", i ? " " : "", p[i]);
    out += buf;
  }
  return out;
}

struct IdxType {
  unsigned char code;
  const char *name;
  size_t size;
  DType dtype;
};

constexpr IdxType kTypes[] = {{0x08, "unsigned byte", 1, DType::Int32},
                              {0x09, "signed byte", 1, DType::Int32},
                              {0x0B, "short", 2, DType::Int32},
                              {0x0C, "int", 4, DType::Int32},
                              {0x0D, "float", 4, DType::Float32},
                              {0x0E, "double", 8, DType::Float64}};

/// The contents of an IDX file, its values still as the file has them.
struct RawIdx {
  const IdxType *type = nullptr;
  std::vector<int64_t> dims;
  std::vector<unsigned char> data;
};

/// Closes the gzFile on every path out of readRaw.
struct GzCloser {
  gzFile file;
  ~GzCloser() { gzclose(file); }
};

RawIdx readRaw(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    failRead(path, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int saved = errno;
    ::close(fd);
    failRead(path, std::strerror(saved));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    failRead(path, "not a regular file");
  }
  // gzip's magic bytes tell the formats apart; only the messages need to know.
  unsigned char gzMagic[2] = {0, 0};
  bool gzip = ::pread(fd, gzMagic, 2, 0) == 2 && gzMagic[0] == 0x1f && gzMagic[1] == 0x8b;
  gzFile file = gzdopen(fd, "rb"); // owns fd from here on
  if (!file) {
    ::close(fd);
    failRead(path, "out of memory opening it");
  }
  GzCloser closer{file};
  gzbuffer(file, 1 << 20);
  const std::string data = gzip ? "decompressed data" : "file";

  // Reads up to n bytes; fewer only at the end of the data.
  auto readSome = [&](unsigned char *dst, size_t n) -> size_t {
    size_t got = 0;
    while (got < n) {
      unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - got, 1u << 30));
      int r = gzread(file, dst + got, chunk);
      if (r < 0) {
        int code;
        const char *message = gzerror(file, &code);
        failRead(path, std::string(gzip ? "corrupt gzip data: " : "read error: ") + message);
      }
      if (r == 0)
        break;
      got += static_cast<size_t>(r);
    }
    // A gzip stream cut short reads as an end of data plus this error.
    int code;
    const char *message = gzerror(file, &code);
    if (code != Z_OK)
      failRead(path, std::string("corrupt or truncated gzip data: ") + message);
    return got;
  };

  if (st.st_size == 0)
    failRead(path, "file is empty (not an IDX file)");
  unsigned char magic[4];
  size_t got = readSome(magic, 4);
  if (got < 4)
    failRead(path, "the " + data + " has " + std::to_string(got) +
                       " bytes, too few for an IDX header (4 or more)");
  if (magic[0] != 0 || magic[1] != 0)
    failRead(path, "not an IDX file (the " + data + " starts with " + hexBytes(magic, got) +
                       "; an IDX file starts with 00 00, a type code and the rank)");
  RawIdx raw;
  for (const IdxType &t : kTypes)
    if (t.code == magic[2])
      raw.type = &t;
  if (!raw.type)
    failRead(path, "unknown IDX type code 0x" + hexBytes(magic + 2, 1) +
                       " (known: 08 unsigned byte, 09 signed byte, 0b short, 0c int, 0d float, "
                       "0e double)");
  int rank = magic[3];
  if (rank > kMaxRank)
    failRead(path, "rank " + std::to_string(rank) + " is above ember's limit of " +
                       std::to_string(kMaxRank));

  std::vector<unsigned char> dimBytes(4 * rank);
  got = readSome(dimBytes.data(), dimBytes.size());
  if (got < dimBytes.size())
    failRead(path, "file is truncated: the header of a rank-" + std::to_string(rank) +
                       " array needs " + std::to_string(4 + dimBytes.size()) + " bytes, found " +
                       std::to_string(4 + got));
  // Saturating at 1 TiB, beyond anything loadable, keeps the product exact
  // in 128 bits whatever the eight uint32 dims are.
  // Empty dims count as 1 there, as ember's shapes count them.
  constexpr uint64_t kLimit = uint64_t(1) << 40;
  unsigned __int128 bytes = raw.type->size;
  bool empty = false;
  for (int d = 0; d < rank; ++d) {
    const unsigned char *p = &dimBytes[4 * d];
    uint64_t dim = (uint64_t(p[0]) << 24) | (uint64_t(p[1]) << 16) | (uint64_t(p[2]) << 8) | p[3];
    raw.dims.push_back(static_cast<int64_t>(dim));
    bytes = std::min<unsigned __int128>(bytes * std::max<uint64_t>(dim, 1), kLimit + 1);
    empty = empty || dim == 0;
  }
  if (bytes > kLimit)
    failRead(path, "shape " + Shape::str(raw.dims) + " is too large to load");
  uint64_t expected = empty ? 0 : static_cast<uint64_t>(bytes);

  // The data is read to the end before its size is trusted. For a plain file
  // the size on disk bounds it; gzip data grows the buffer as it inflates.
  size_t headerBytes = 4 + dimBytes.size();
  // One byte more than needed, so that a file of the right size reads to its
  // end without growing the buffer.
  uint64_t onDisk = uint64_t(st.st_size) - std::min<uint64_t>(headerBytes, st.st_size);
  raw.data.resize(std::min<uint64_t>(expected, gzip ? onDisk * 64 : onDisk) + 1);
  size_t have = 0;
  while (true) {
    have += readSome(raw.data.data() + have, raw.data.size() - have);
    if (have < raw.data.size())
      break;
    raw.data.resize(raw.data.size() * 2);
  }
  raw.data.resize(have);
  if (have < expected)
    failRead(path, "file is truncated: a " + std::string(raw.type->name) + " array of shape " +
                       Shape::str(raw.dims) + " needs " +
                       std::to_string(expected) + " bytes of data, found " + std::to_string(have));
  if (have > expected)
    failRead(path, std::to_string(have - expected) + " unexpected bytes after the " +
                       std::to_string(expected) + " bytes of data of shape " +
                       Shape::str(raw.dims));
  return raw;
}

/// Big-endian value i of `p` as T.
template <typename T, typename Bits>
T loadBE(const unsigned char *p) {
  Bits bits = 0;
  for (size_t i = 0; i < sizeof(Bits); ++i)
    bits = static_cast<Bits>((bits << 8) | p[i]);
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

Tensor toTensor(const RawIdx &raw) {
  Tensor out = Tensor::empty(Shape(std::span<const int64_t>(raw.dims)), raw.type->dtype, Device());
  size_t n = static_cast<size_t>(out.numel());
  const unsigned char *in = raw.data.data();
  switch (raw.type->code) {
  case 0x08: {
    auto *o = static_cast<int32_t *>(out.data());
    for (size_t i = 0; i < n; ++i)
      o[i] = in[i];
    break;
  }
  case 0x09: {
    auto *o = static_cast<int32_t *>(out.data());
    for (size_t i = 0; i < n; ++i)
      o[i] = static_cast<int8_t>(in[i]);
    break;
  }
  case 0x0B: {
    auto *o = static_cast<int32_t *>(out.data());
    for (size_t i = 0; i < n; ++i)
      o[i] = loadBE<int16_t, uint16_t>(in + 2 * i);
    break;
  }
  case 0x0C: {
    auto *o = static_cast<int32_t *>(out.data());
    for (size_t i = 0; i < n; ++i)
      o[i] = loadBE<int32_t, uint32_t>(in + 4 * i);
    break;
  }
  case 0x0D: {
    auto *o = static_cast<float *>(out.data());
    for (size_t i = 0; i < n; ++i)
      o[i] = loadBE<float, uint32_t>(in + 4 * i);
    break;
  }
  case 0x0E: {
    auto *o = static_cast<double *>(out.data());
    for (size_t i = 0; i < n; ++i)
      o[i] = loadBE<double, uint64_t>(in + 8 * i);
    break;
  }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// MNIST-format datasets
//===----------------------------------------------------------------------===//

/// `dir/name.gz`, else `dir/name`: Debian ships the files compressed, the
/// MNIST site's downloads are often unpacked.
std::string findFile(const std::string &dataset, const std::string &dir, const std::string &name) {
  std::string base = dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
  struct stat st;
  for (const std::string &candidate : {base + ".gz", base})
    if (::stat(candidate.c_str(), &st) == 0)
      return candidate;
  throw IOError(dataset + ".load_data: neither " + quoted(name + ".gz") + " nor " + quoted(name) +
                " is in " + quoted(dir) +
                (dataset == "fashion_mnist" ? " (Debian's dataset-fashion-mnist package installs "
                                              "them in /usr/share/datasets/fashion-mnist)"
                                            : ""));
}

/// Images as float32 [N, rows, cols, 1] in [0, 1] and labels as int64 [N].
std::pair<Tensor, Tensor> loadSplit(const std::string &dataset, const std::string &dir,
                                    const std::string &prefix) {
  std::string imagesPath = findFile(dataset, dir, prefix + "-images-idx3-ubyte");
  std::string labelsPath = findFile(dataset, dir, prefix + "-labels-idx1-ubyte");
  RawIdx images = readRaw(imagesPath);
  RawIdx labels = readRaw(labelsPath);
  if (images.type->code != 0x08 || images.dims.size() != 3)
    failRead(imagesPath, "expected unsigned bytes of shape (images, rows, cols), found " +
                             std::string(images.type->name) + "s of shape " +
                             Shape::str(images.dims));
  if (labels.type->code != 0x08 || labels.dims.size() != 1)
    failRead(labelsPath, "expected unsigned bytes of shape (labels,), found " +
                             std::string(labels.type->name) + "s of shape " +
                             Shape::str(labels.dims));
  if (images.dims[0] != labels.dims[0])
    throw IOError(dataset + ".load_data: " + std::to_string(images.dims[0]) + " images in " +
                  quoted(imagesPath) + " but " + std::to_string(labels.dims[0]) + " labels in " +
                  quoted(labelsPath));

  Tensor x = Tensor::empty(Shape{images.dims[0], images.dims[1], images.dims[2], 1}, DType::Float32, Device());
  // A table keeps pixel / 255 exact (as Keras users' x / 255.0) and the loop
  // a plain gather the compiler vectorizes.
  float scale[256];
  for (int v = 0; v < 256; ++v)
    scale[v] = static_cast<float>(v) / 255.0f;
  auto *px = static_cast<float *>(x.data());
  const unsigned char *in = images.data.data();
  for (size_t i = 0, n = images.data.size(); i < n; ++i)
    px[i] = scale[in[i]];

  Tensor y = Tensor::empty(Shape{labels.dims[0]}, DType::Int64, Device());
  auto *py = static_cast<int64_t *>(y.data());
  for (size_t i = 0; i < labels.data.size(); ++i)
    py[i] = labels.data[i];
  return {x, y};
}

data::ImageData loadDataset(const std::string &dataset, const std::string &dir) {
  auto [xTrain, yTrain] = loadSplit(dataset, dir, "train");
  auto [xTest, yTest] = loadSplit(dataset, dir, "t10k");
  return {xTrain, yTrain, xTest, yTest};
}

} // namespace

Tensor data::read_idx(const std::string &path) { return toTensor(readRaw(path)); }

data::ImageData data::fashion_mnist::load_data(const std::string &dir) {
  return loadDataset("fashion_mnist", dir);
}

data::ImageData data::mnist::load_data(const std::string &dir) {
  return loadDataset("mnist", dir);
}
