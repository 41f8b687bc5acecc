//===- Safetensors.h - safetensors files ---------------------------*- C++ -*-===//
//
// Part of ember's IO library. The safetensors format (Hugging Face), the
// files of ember's checkpoints: an 8-byte little-endian header length, a JSON
// header ({"__metadata__": {"format": "ember"}, "w": {"dtype": "F32",
// "shape": [2, 3], "data_offsets": [0, 24]}, ...}), then the tensors'
// little-endian bytes, each at its offsets from the end of the header,
// together covering the data without gaps or overlaps. As Python's
// safetensors.torch.save_file and safe_open:
//
//   ember::safetensors::save_file("w.safetensors", {{"w", ember::ones({2, 3})}});
//   ember::safetensors::File file("w.safetensors");
//   ember::Tensor w = file.tensor(*file.find("w"));  // [[1. 1. 1.] [1. 1. 1.]]
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_IO_SAFETENSORS_H
#define EMBER_IO_SAFETENSORS_H

#include "ember/Frontend/Tensor.h"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ember::safetensors {

/// Writes `tensors` (in this order, names unique) and `metadata` to `path`
/// whole or not at all (support::writeFileWhole). Throws ember::IOError
/// naming `path` on failure, and for a symbolic tensor (inside an
/// ember::function).
void save_file(const std::string &path, const std::vector<std::pair<std::string, Tensor>> &tensors,
               const std::map<std::string, std::string> &metadata = {});

/// A safetensors file read whole and checked: the header is valid JSON of
/// the format's shape, every dtype is one of ember's, every tensor's byte
/// size matches its shape and dtype, and the tensors tile the data exactly.
/// Otherwise the constructor throws ember::IOError naming the file and what
/// is wrong (with the tensor's name, or the JSON error's position).
class File {
public:
  struct Entry {
    DType dtype;
    Shape shape;
    size_t begin, end; ///< data_offsets: bytes from the end of the header
  };

  explicit File(const std::string &path);

  const std::string &path() const { return path_; }
  const std::map<std::string, std::string> &metadata() const { return metadata_; }
  const std::map<std::string, Entry> &entries() const { return entries_; }
  /// The entry named `name`, or null.
  const Entry *find(const std::string &name) const;
  /// A new host tensor holding `entry`'s values (bools as 0 and 1).
  Tensor tensor(const Entry &entry) const;

private:
  std::string path_;
  std::map<std::string, std::string> metadata_;
  std::map<std::string, Entry> entries_;
  std::vector<unsigned char> data_;
};

} // namespace ember::safetensors

#endif // EMBER_IO_SAFETENSORS_H
