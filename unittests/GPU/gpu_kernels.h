//===- gpu_kernels.h - calling the AOT-compiled GPU functions ---*- C++ -*-===//
//
// kernels.mlir is compiled by `ember-opt --ember-lower-to-nvvm` into an
// object with the kernels embedded; its functions are called through their
// `ember_entry_<f>` entry points with descriptors of device buffers. Shared
// by the GPU tests and the GPU benchmark.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_UNITTESTS_GPU_KERNELS_H
#define EMBER_UNITTESTS_GPU_KERNELS_H

#include "emberrt/cuda.h"
#include "emberrt/runtime.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
#define EMBER_GPU_FUNCTIONS(X)                                                                     \
  X(chain8_small)                                                                                  \
  X(chain8_big) X(add10) X(softmax) X(mixed) X(matmul) X(sgemm4096) X(power100) X(halve_while)     \
      X(cond_loop) X(sum16m) X(row_max) X(mlp_step) X(matmul_large_edges) X(matmul_bf16_edges)     \
          X(matmul_f16_transposed) X(matmul_bf16_large_edges) X(hgemm8192_bf16) X(hgemm8192_f16)
#define EMBER_DECLARE_ENTRY(name) void ember_entry_##name(void **args);
EMBER_GPU_FUNCTIONS(EMBER_DECLARE_ENTRY)
#undef EMBER_DECLARE_ENTRY
}

namespace ember::gpu_test {

/// A device buffer with its shape; freed (to the caching allocator) on
/// destruction.
class DeviceArray {
public:
  DeviceArray(std::vector<int64_t> shape, size_t elementSize)
      : shape_(std::move(shape)), bytes_(elementSize) {
    for (int64_t d : shape_)
      bytes_ *= static_cast<size_t>(d);
    if (emberrt_cuda_malloc(bytes_, &data_) != EMBERRT_OK)
      throw std::runtime_error(std::string("emberrt_cuda_malloc: ") + emberrt_cuda_last_error());
    emberrt_memref_init(&descriptor_, data_, static_cast<int>(shape_.size()), shape_.data());
  }
  template <typename T>
  static DeviceArray from(const std::vector<T> &host, std::vector<int64_t> shape) {
    DeviceArray array(std::move(shape), sizeof(T));
    if (array.bytes_ != host.size() * sizeof(T))
      throw std::runtime_error("host data does not match the shape");
    if (emberrt_cuda_memcpy_htod(array.data_, host.data(), array.bytes_) != EMBERRT_OK)
      throw std::runtime_error(std::string("copy to the device: ") + emberrt_cuda_last_error());
    return array;
  }
  DeviceArray(DeviceArray &&other) noexcept
      : shape_(std::move(other.shape_)), bytes_(other.bytes_), data_(other.data_),
        descriptor_(other.descriptor_) {
    other.data_ = nullptr;
  }
  DeviceArray(const DeviceArray &) = delete;
  ~DeviceArray() { emberrt_cuda_free(data_); }

  template <typename T> std::vector<T> toHost() const {
    std::vector<T> host(bytes_ / sizeof(T));
    if (emberrt_cuda_memcpy_dtoh(host.data(), data_, bytes_) != EMBERRT_OK)
      throw std::runtime_error(std::string("copy to the host: ") + emberrt_cuda_last_error());
    return host;
  }
  emberrt_memref_t *descriptor() { return &descriptor_; }

private:
  std::vector<int64_t> shape_;
  size_t bytes_;
  void *data_ = nullptr;
  emberrt_memref_t descriptor_{};
};

/// Calls `entry` on `arrays` (inputs, then outputs); an error the compiled
/// code recorded in the runtime is thrown.
/// (No UBSan function check: compiled code has no type signature before its
/// entry for it to read; see callEntry in lib/Frontend/Dispatcher.cpp.)
[[gnu::no_sanitize("function")]] inline void call(emberrt_entry_fn entry, std::vector<DeviceArray *> arrays) {
  std::vector<void *> args;
  for (DeviceArray *array : arrays)
    args.push_back(array->descriptor());
  emberrt_cuda_clear_error();
  entry(args.data());
  if (const char *error = emberrt_cuda_last_error(); error && *error)
    throw std::runtime_error(std::string("compiled GPU code: ") + error);
}

} // namespace ember::gpu_test

#endif // EMBER_UNITTESTS_GPU_KERNELS_H
