//===- DeviceCopy.h - tensors on devices, inside the front end --*- C++ -*-===//
#ifndef EMBER_LIB_FRONTEND_DEVICECOPY_H
#define EMBER_LIB_FRONTEND_DEVICECOPY_H

#include "TensorImpl.h"

#include "ember/Frontend/Device.h"
#include "ember/Frontend/Tensor.h"

#include <optional>
#include <string>

namespace ember::detail {

/// The innermost DeviceScope's device, or null outside any scope.
const Device *explicitDevice();
/// Where a tensor's buffer lives (cpu for symbolic tensors). Inline: every
/// eager op asks it of each operand.
inline Device deviceOf(const TensorImpl &impl) {
  return impl.buffer && impl.buffer->device == EMBERRT_DEVICE_CUDA ? Device(DeviceType::CUDA, 0)
                                                                   : Device();
}
/// The error the GPU runtime recorded on this thread (a launch that failed,
/// memory exhausted), cleared; "" when there is none.
std::string takeCudaError();
/// A new tensor with uninitialized contents on `device`.
Tensor newTensorOn(const Shape &shape, DType dtype, const Device &device);
/// `x` itself when it is on `device`, else a copy there. Copies to the host
/// wait for the GPU's queued work.
Tensor copyToDevice(const Tensor &x, const Device &device);
/// A tensor created on the host by a creation function (constants, zeros,
/// from_vector), moved to the DeviceScope's device when there is one.
Tensor placeCreated(Tensor made);
/// While it lives, the tensors library code makes for itself (one_hot's
/// classes, dropout's counters, a layer's weights at its first call) are
/// made where `x` is, so that they meet a GPU operand there; for a host or
/// symbolic `x` it does nothing.
class BesideTensor {
public:
  explicit BesideTensor(const Tensor &x) {
    if (x.impl())
      if (Device device = deviceOf(*x.impl()); device.is_cuda())
        scope_.emplace(device);
  }

private:
  std::optional<DeviceScope> scope_;
};
/// Throws ember::Error "<what>: CUDA error: <the runtime's last error>".
[[noreturn]] void throwCudaError(const std::string &what);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_DEVICECOPY_H
