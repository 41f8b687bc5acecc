//===- Npy.h - tensors in numpy's .npy files --------------------*- C++ -*-===//
//
// Part of ember's IO library (beside the training and data libraries, on the
// core's public API). Data moves freely between ember and numpy:
//
//   ember::save_npy("x.npy", ember::Tensor({1.f, 2.f}));  // np.load("x.npy")
//   ember::Tensor x = ember::load_npy("x.npy");           // [1. 2.]
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_IO_NPY_H
#define EMBER_IO_NPY_H

#include "ember/Frontend/Tensor.h"

#include <string>

namespace ember {

/// numpy .npy files (f32, f64, f16, i32, i64, bool). Saving writes a temporary file
/// and renames it; loading refuses truncated or corrupt files (ember::IOError).
void save_npy(const std::string &path, const Tensor &tensor);
Tensor load_npy(const std::string &path);

} // namespace ember

#endif // EMBER_IO_NPY_H
