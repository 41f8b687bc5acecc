//===- Format.h - numpy-compatible text of a tensor's values -----*- C++ -*-===//
//
// Users compare ember's printed tensors with numpy's side by side, so the text
// follows print(np.array(...)) with numpy's default print options as numpy
// 1.24 (Debian 12's python3-numpy) prints them: precision 8, floatmode
// 'maxprec', threshold 1000, edgeitems 3, linewidth 75, and the same
// scientific cut-offs (1e8 and 1e-4) for every float dtype.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_FRONTEND_FORMAT_H
#define EMBER_LIB_FRONTEND_FORMAT_H

#include "ember/Support/DType.h"

#include <cstdint>
#include <string>

namespace ember::detail {

/// What print(np.array(...)) shows for `rank` dims of `shape` read from the
/// contiguous row-major buffer `data` of `dtype`. A 0-d array prints like its
/// scalar ("4.0", "3", "True"); any zero dim prints "[]". Throws ember::Error
/// for a negative rank or dim.
std::string formatValues(const void *data, DType dtype, const int64_t *shape, int rank);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_FORMAT_H
