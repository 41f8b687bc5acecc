//===- Device.h - where tensors live and ops run ----------------*- C++ -*-===//
//
// A tensor lives on a device: the host ("cpu") or the CUDA GPU ("cuda:0").
// An op runs where its operands are (PyTorch's rule); operands on two
// different devices are an error naming both, except 0-d tensors (scalars),
// which follow the others. A DeviceScope (TensorFlow's `with tf.device(...)`)
// runs the ops created inside it on its device, copying host operands there,
// and places the tensors created inside it (constants, zeros, from_vector)
// there too.
//
// GPU work is asynchronous: an op queues its kernel and returns; reading the
// values (to_vector, item, printing, .to("cpu")) waits for them.
//
//   ember::Tensor x = ember::Tensor({1.0f, 2.0f, 3.0f});
//   if (ember::cuda_is_available()) {
//     ember::Tensor y = x.to("cuda") * 2.0f;       // runs on the GPU
//     std::vector<float> back = y.to_vector<float>(); // {2, 4, 6}, copied back
//     ember::DeviceScope gpu("cuda:0");
//     ember::Tensor z = ember::ones({2, 2}) + 1.0f;  // created and run on the GPU
//   }
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_DEVICE_H
#define EMBER_DEVICE_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember {

enum class DeviceType : uint8_t { CPU = 0, CUDA = 1 };

class Device {
public:
  /// The host.
  Device() = default;
  Device(DeviceType type, int index = 0);
  /// "cpu", "cuda", "cuda:0", and TensorFlow's spellings "/CPU:0", "GPU:0",
  /// "/device:GPU:0" (case-insensitive). Anything else throws ember::Error.
  Device(std::string_view name);
  Device(const char *name) : Device(std::string_view(name)) {}
  Device(const std::string &name) : Device(std::string_view(name)) {}

  DeviceType type() const { return type_; }
  int index() const { return index_; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }
  bool is_cuda() const { return type_ == DeviceType::CUDA; }
  /// "cpu" or "cuda:0".
  std::string str() const;

  friend bool operator==(const Device &a, const Device &b) {
    return a.type_ == b.type_ && a.index_ == b.index_;
  }
  friend bool operator!=(const Device &a, const Device &b) { return !(a == b); }

private:
  DeviceType type_ = DeviceType::CPU;
  int index_ = 0;
};

/// True when a CUDA GPU can be used (the driver loads and sees a device).
bool cuda_is_available();
/// One line on the GPU: its name and architecture, or why there is none.
std::string cuda_status();
/// The devices this process can use: cpu, then cuda:0 when there is a GPU.
std::vector<Device> list_devices();
/// Throws ember::Error unless `device` can be used here: cpu always, cuda:0
/// when there is a GPU (the message says why not: no driver, no device).
void require_device(const Device &device);

/// TensorFlow's tf.config.experimental.enable_tensor_float_32_execution:
/// whether float32 matmuls on GPUs with tensor cores (sm_80 and later) may
/// round their operands to TF32 (10-bit mantissas, float32 sums): several
/// times faster, with relative errors near 1e-3 instead of 1e-7. On by
/// default, as in TensorFlow (PyTorch's allow_tf32 defaults to off). Ops and
/// traced functions compiled afterwards follow the setting; kernels compiled
/// under the other one stay cached for it. CPUs are not affected. Set it
/// while no other thread compiles GPU code (a compile under way when it
/// changes may take either setting).
void enable_tensor_float_32_execution(bool enabled);
/// tf.config.experimental.tensor_float_32_execution_enabled.
bool tensor_float_32_execution_enabled();

/// Runs the ops created while it lives on `device` (see the file comment).
/// Scopes nest; each thread has its own.
class DeviceScope {
public:
  explicit DeviceScope(const Device &device);
  ~DeviceScope();
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

private:
  bool hadScope_;
  Device previous_;
};

/// The innermost DeviceScope's device on this thread; cpu outside any.
Device current_device();

/// Waits until the GPU has finished the work queued so far; a kernel that
/// failed asynchronously is reported here (ember::Error). Nothing to do
/// without a GPU.
void synchronize();

} // namespace ember

#endif // EMBER_DEVICE_H
