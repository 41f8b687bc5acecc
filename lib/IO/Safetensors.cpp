//===- Safetensors.cpp - safetensors files ---------------------------------===//
//
// As Npy.cpp, the reader treats every file as untrusted: lengths and offsets
// are checked against the file's size before anything is allocated or read,
// so a corrupt file ends in an ember::IOError, not a crash or a huge
// allocation.
//
//===----------------------------------------------------------------------===//

#include "ember/IO/Safetensors.h"

#include "ember/Support/AtomicFile.h"

#include "ember/Frontend/Error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include <sys/stat.h>

namespace ember::safetensors {
namespace {


/// The safetensors name of a dtype: "F32", "F64", "I32", "I64", "BOOL".
std::string_view safetensorsDType(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "BOOL";
  case DType::Int32:
    return "I32";
  case DType::Int64:
    return "I64";
  case DType::Float32:
    return "F32";
  case DType::Float64:
    return "F64";
  case DType::Float16:
    return "F16";
  case DType::BFloat16:
    return "BF16";
  }
  return "?";
}


// The data is little-endian and we copy it verbatim.
static_assert(std::endian::native == std::endian::little,
              "the safetensors reader and writer assume a little-endian host");

// The reference implementation's limit: a larger header is corrupt.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

std::string inQuotes(const std::string &text) { return "'" + text + "'"; }

[[noreturn]] void failRead(const std::string &path, const std::string &what) {
  throw IOError("cannot read safetensors file " + inQuotes(path) + ": " + what);
}

[[noreturn]] void failWrite(const std::string &path, const std::string &what) {
  throw IOError("cannot write safetensors file " + inQuotes(path) + ": " + what);
}

std::string typeText(DType dtype, const Shape &shape) {
  return std::string(dtypeName(dtype)) + " of shape " + shape.str();
}

/// Closes the FILE on every path out of the reader.
struct FileCloser {
  std::FILE *file;
  ~FileCloser() {
    if (file)
      std::fclose(file);
  }
};

/// A non-negative JSON integer, or an IOError naming `what`.
uint64_t unsignedOf(const std::string &path, const nlohmann::json &value, const std::string &what) {
  if (!value.is_number_unsigned())
    failRead(path, what + " is not a non-negative integer: " + value.dump());
  return value.get<uint64_t>();
}

/// Parses the header, refusing a repeated tensor name (which JSON libraries
/// silently collapse to one).
nlohmann::json parseHeader(const std::string &path, const std::string &text) {
  std::set<std::string> names;
  auto noRepeats = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json &parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1 &&
        !names.insert(parsed.get<std::string>()).second)
      failRead(path, "the header names " + inQuotes(parsed.get<std::string>()) + " twice");
    return true;
  };
  try {
    return nlohmann::json::parse(text, noRepeats);
  } catch (const nlohmann::json::parse_error &e) {
    failRead(path, "malformed JSON header at byte " + std::to_string(e.byte) + " of " +
                       std::to_string(text.size()) + ": " + e.what());
  } catch (const nlohmann::json::exception &e) { // a number out of range (24E323), ...
    failRead(path, std::string("malformed JSON header: ") + e.what());
  }
}

DType dtypeOfName(const std::string &path, const std::string &tensor, const std::string &name) {
  for (DType dtype : {DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64,
                      DType::Float16, DType::BFloat16})
    if (name == safetensorsDType(dtype))
      return dtype;
  failRead(path, "tensor " + inQuotes(tensor) + " has dtype " + inQuotes(name) +
                     ", which ember does not support (F32, F64, F16, BF16, I32, I64, BOOL)");
}

} // namespace


void save_file(const std::string &path, const std::vector<std::pair<std::string, Tensor>> &tensors,
               const std::map<std::string, std::string> &metadata) {
  // ordered_json keeps the tensors in the order their bytes follow.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty())
    header["__metadata__"] = metadata;
  std::vector<Tensor> hosts;
  size_t offset = 0;
  for (const auto &[name, tensor] : tensors) {
    if (name == "__metadata__" || header.contains(name))
      failWrite(path, "the name " + inQuotes(name) + " is reserved or given twice");
    if (tensor.is_symbolic())
      failWrite(path, "tensor " + inQuotes(name) +
                          " is symbolic (inside an ember::function): save outside the function");
    hosts.push_back(tensor.cpu());
    header[name] = {{"dtype", safetensorsDType(tensor.dtype())},
                    {"shape", tensor.shape().vec()},
                    {"data_offsets", {offset, offset + tensor.nbytes()}}};
    offset += tensor.nbytes();
  }
  std::string text = header.dump();
  // Spaces up to a multiple of 8, as the reference writer: aligned data.
  text.append((8 - (8 + text.size()) % 8) % 8, ' ');
  uint64_t length = text.size();
  char lengthBytes[8];
  for (int i = 0; i < 8; ++i)
    lengthBytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);

  std::vector<std::string_view> pieces = {std::string_view(lengthBytes, 8), text};
  for (const Tensor &host : hosts)
    if (host.nbytes() > 0)
      pieces.emplace_back(static_cast<const char *>(host.data()), host.nbytes());
  if (std::string why = support::writeFileWhole(path, pieces); !why.empty())
    failWrite(path, why);
}

File::File(const std::string &path) : path_(path) {
  FileCloser file{std::fopen(path.c_str(), "rb")};
  if (!file.file)
    failRead(path, std::strerror(errno));
  struct stat info;
  if (::fstat(::fileno(file.file), &info) != 0)
    failRead(path, std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    failRead(path, "not a regular file");
  uint64_t fileSize = static_cast<uint64_t>(info.st_size);
  auto readExactly = [&](void *out, size_t size, const char *what) {
    if (std::fread(out, 1, size, file.file) != size)
      failRead(path,
               std::string("cannot read the ") + what + ": " +
                   (std::ferror(file.file) ? std::strerror(errno) : "unexpected end of file"));
  };

  if (fileSize < 8)
    failRead(path, "the file is too short (" + std::to_string(fileSize) +
                       " bytes) to hold the 8-byte header length");
  unsigned char lengthBytes[8];
  readExactly(lengthBytes, 8, "header length");
  uint64_t headerLength = 0;
  for (int i = 0; i < 8; ++i)
    headerLength |= static_cast<uint64_t>(lengthBytes[i]) << (8 * i);
  if (headerLength > fileSize - 8)
    failRead(path, "the header length " + std::to_string(headerLength) +
                       " is beyond the end of the file (" + std::to_string(fileSize - 8) +
                       " bytes follow it): truncated or not a safetensors file");
  if (headerLength > kMaxHeaderBytes)
    failRead(path, "the header length " + std::to_string(headerLength) + " is above the limit of " +
                       std::to_string(kMaxHeaderBytes) + " bytes");
  std::string text(static_cast<size_t>(headerLength), '\0');
  readExactly(text.data(), text.size(), "header");

  nlohmann::json header = parseHeader(path, text);
  if (!header.is_object())
    failRead(path, "the header is not a JSON object");
  uint64_t dataSize = fileSize - 8 - headerLength;
  // Each tensor's byte range, sorted below to check that they tile the data.
  std::vector<std::pair<const std::string *, const Entry *>> ranges;
  for (const auto &[name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object())
        failRead(path, "__metadata__ is not a JSON object");
      for (const auto &[key, text] : value.items()) {
        if (!text.is_string())
          failRead(path, "__metadata__ value " + inQuotes(key) + " is not a string");
        metadata_[key] = text.get<std::string>();
      }
      continue;
    }
    std::string tensor = "tensor " + inQuotes(name);
    if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
        !value.contains("data_offsets"))
      failRead(path, tensor + " is not an object with dtype, shape and data_offsets");
    if (!value["dtype"].is_string())
      failRead(path, tensor + ": dtype is not a string");
    Entry entry{dtypeOfName(path, name, value["dtype"].get<std::string>()), Shape(), 0, 0};
    const nlohmann::json &shape = value["shape"];
    if (!shape.is_array() || shape.size() > static_cast<size_t>(kMaxRank))
      failRead(path, tensor + ": shape is not a list of at most " + std::to_string(kMaxRank) +
                         " dimensions: " + shape.dump());
    // The element count times the item size, guarded against overflow.
    uint64_t bytes = dtypeSize(entry.dtype);
    bool tooLarge = false, empty = false;
    for (const nlohmann::json &dim : shape) {
      uint64_t d = unsignedOf(path, dim, tensor + ": a dimension");
      if (d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        failRead(path, tensor + ": dimension " + std::to_string(d) + " is too large");
      try { // more elements than an ember Shape holds
        entry.shape.push_back(static_cast<int64_t>(d));
      } catch (const Error &e) {
        failRead(path, tensor + ": " + e.what());
      }
      empty = empty || d == 0;
      if (d != 0 && bytes > std::numeric_limits<uint64_t>::max() / d)
        tooLarge = true;
      else
        bytes *= d;
    }
    if (empty) {
      bytes = 0;
      tooLarge = false;
    }
    const nlohmann::json &offsets = value["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2)
      failRead(path, tensor + ": data_offsets is not a list [begin, end]: " + offsets.dump());
    uint64_t begin = unsignedOf(path, offsets[0], tensor + ": data_offsets' begin");
    uint64_t end = unsignedOf(path, offsets[1], tensor + ": data_offsets' end");
    std::string range = "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
    if (end < begin)
      failRead(path, tensor + ": " + range + " end before they begin");
    if (end > dataSize)
      failRead(path, tensor + ": " + range + " are beyond the " + std::to_string(dataSize) +
                         " bytes of data (the file is truncated?)");
    if (tooLarge || end - begin != bytes)
      failRead(path, tensor + ": " + range + " hold " + std::to_string(end - begin) +
                         " bytes, but " + typeText(entry.dtype, entry.shape) + " needs " +
                         (tooLarge ? std::string("more than 2^64") : std::to_string(bytes)));
    entry.begin = static_cast<size_t>(begin);
    entry.end = static_cast<size_t>(end);
    auto inserted = entries_.emplace(name, entry).first;
    ranges.emplace_back(&inserted->first, &inserted->second);
  }

  std::sort(ranges.begin(), ranges.end(), [](const auto &a, const auto &b) {
    return std::pair(a.second->begin, a.second->end) < std::pair(b.second->begin, b.second->end);
  });
  size_t covered = 0;
  const std::string *previous = nullptr;
  for (const auto &[name, entry] : ranges) {
    if (entry->begin < covered)
      failRead(path, "the data of tensors " + inQuotes(*previous) + " and " + inQuotes(*name) +
                         " overlap");
    if (entry->begin > covered)
      failRead(path, "bytes " + std::to_string(covered) + " to " + std::to_string(entry->begin) +
                         " of the data belong to no tensor");
    covered = entry->end;
    previous = name;
  }
  if (covered != dataSize)
    failRead(path, "the file has " + std::to_string(dataSize - covered) +
                       " bytes after the last tensor's data");

  data_.resize(static_cast<size_t>(dataSize));
  if (dataSize > 0)
    readExactly(data_.data(), data_.size(), "tensor data");
}

const File::Entry *File::find(const std::string &name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

Tensor File::tensor(const Entry &entry) const {
  Tensor out = Tensor::empty(entry.shape, entry.dtype, Device());
  size_t size = entry.end - entry.begin;
  if (size == 0)
    return out;
  auto *bytes = static_cast<unsigned char *>(out.data());
  std::memcpy(bytes, data_.data() + entry.begin, size);
  if (entry.dtype == DType::Bool)
    for (size_t i = 0; i < size; ++i)
      bytes[i] = bytes[i] != 0; // any other byte would be an invalid C++ bool
  return out;
}

} // namespace ember::safetensors
