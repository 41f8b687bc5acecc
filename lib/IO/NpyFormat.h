//===- NpyFormat.h - numpy .npy files, read and written -------*- C++ -*-===//
//
// ember saves and loads tensors in numpy's .npy format so data moves freely
// between ember and numpy (np.save / np.load).
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_IO_NPYFORMAT_H
#define EMBER_LIB_IO_NPYFORMAT_H

#include "ember/Support/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ember::detail {

/// A C-ordered array read from a .npy file; bools are normalised to 0/1.
struct NpyArray {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<unsigned char> data;
};

/// Writes a version 1.0 .npy file ('<f4', '<f8', '<i4', '<i8' or '|b1', C
/// order) from the contiguous row-major buffer `data`. The file appears
/// atomically: it is written to a temporary file in the same directory and
/// renamed into place. Throws ember::IOError naming `path` on failure.
void writeNpy(const std::string &path, DType dtype, const int64_t *shape, int rank,
              const void *data);

/// Reads a version 1.0, 2.0 or 3.0 .npy file of a supported dtype in C order.
/// Throws ember::IOError naming `path` and what is wrong for a missing or
/// unreadable file, a corrupt or truncated one, or an unsupported layout.
NpyArray readNpy(const std::string &path);

} // namespace ember::detail

#endif // EMBER_LIB_IO_NPYFORMAT_H
