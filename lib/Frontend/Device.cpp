//===- Device.cpp - devices, device scopes, copies between them -----------===//

#include "ember/Frontend/Device.h"

#include "DeviceCopy.h"
#include "Dispatcher.h"
#include "TensorImpl.h"

#include "ember/Frontend/Error.h"
#include "ember/JIT/KernelCompiler.h"
#include "emberrt/cuda.h"

#include <algorithm>
#include <cstring>
#include <cctype>
#include <optional>

using namespace ember;
using namespace ember::detail;

Device::Device(DeviceType type, int index) : type_(type), index_(index) {
  if (index < 0 || (type == DeviceType::CPU && index != 0))
    throw Error("invalid device " + std::string(type == DeviceType::CPU ? "cpu" : "cuda") + ":" +
                std::to_string(index));
}

Device::Device(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view rest = lower;
  // TensorFlow's full names: /job:localhost/replica:0/task:0/device:GPU:0.
  // The job, replica and task of this process are the only ones there are.
  for (std::string_view part : {"/job:localhost", "/replica:0", "/task:0"})
    if (rest.starts_with(part) && (rest.size() == part.size() || rest[part.size()] == '/'))
      rest.remove_prefix(part.size());
  if (rest.starts_with("/device:"))
    rest.remove_prefix(8);
  else if (rest.starts_with("/"))
    rest.remove_prefix(1);
  auto refuse = [&] {
    throw Error("unknown device '" + std::string(name) +
                "': expected cpu, cuda or cuda:<n> (TensorFlow's CPU:0, GPU:<n> and "
                "/job:localhost/replica:0/task:0/device:GPU:<n> also work)");
  };
  std::string_view kind = rest.substr(0, rest.find(':'));
  if (kind == "cpu")
    type_ = DeviceType::CPU;
  else if (kind == "cuda" || kind == "gpu")
    type_ = DeviceType::CUDA;
  else
    refuse();
  if (size_t colon = rest.find(':'); colon != std::string_view::npos) {
    std::string_view digits = rest.substr(colon + 1);
    if (digits.empty() || digits.size() > 4 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      refuse();
    index_ = std::stoi(std::string(digits));
    if (type_ == DeviceType::CPU && index_ != 0)
      refuse();
  }
}

std::string Device::str() const {
  return is_cpu() ? "cpu" : "cuda:" + std::to_string(index_);
}

bool ember::cuda_is_available() { return emberrt_cuda_available() != 0; }

void ember::enable_tensor_float_32_execution(bool enabled) { jit::setTensorFloat32(enabled); }

bool ember::tensor_float_32_execution_enabled() { return jit::tensorFloat32(); }
std::string ember::cuda_status() { return emberrt_cuda_status(); }

std::vector<Device> ember::list_devices() {
  std::vector<Device> devices{Device()};
  if (cuda_is_available())
    devices.emplace_back(DeviceType::CUDA, 0);
  return devices;
}

static thread_local std::optional<Device> scopeDevice;

const Device *ember::detail::explicitDevice() { return scopeDevice ? &*scopeDevice : nullptr; }

DeviceScope::DeviceScope(const Device &device)
    : hadScope_(scopeDevice.has_value()), previous_(scopeDevice.value_or(Device())) {
  scopeDevice = device;
}

DeviceScope::~DeviceScope() {
  if (hadScope_)
    scopeDevice = previous_;
  else
    scopeDevice.reset();
}

Device ember::current_device() { return scopeDevice.value_or(Device()); }

void ember::synchronize() {
  if (!cuda_is_available())
    return;
  if (emberrt_cuda_synchronize() != EMBERRT_OK)
    throwCudaError("synchronize");
  throwIfKernelFaulted();
}

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

std::string ember::detail::takeCudaError() {
  const char *recorded = emberrt_cuda_last_error();
  if (!*recorded) // the common case: no string built
    return {};
  std::string message = recorded;
  emberrt_cuda_clear_error();
  return message;
}

void ember::detail::throwCudaError(const std::string &what) {
  std::string message = takeCudaError();
  throw Error(what + ": CUDA error: " + (message.empty() ? "unknown" : message));
}

void ember::require_device(const Device &device) {
  if (device.is_cpu())
    return;
  if (!cuda_is_available())
    throw Error("device " + device.str() + " is not available: " + cuda_status());
  if (device.index() != 0)
    throw Error("device " + device.str() +
                " is not available: ember uses one GPU per process, cuda:0");
}

Tensor ember::detail::newTensorOn(const Shape &shape, DType dtype, const Device &device) {
  if (device.is_cpu())
    return newTensor(shape, dtype);
  require_device(device);
  return newTensorWith(shape, dtype, emberrt_cuda_buffer_allocate, [&] {
    throwCudaError("allocating a tensor of shape " + shape.str() + " and dtype " +
                   std::string(dtypeName(dtype)) + " on cuda:0");
  });
}

Tensor ember::detail::copyToDevice(const Tensor &x, const Device &device) {
  Device from = x.device();
  if (from == device)
    return x;
  Tensor out = newTensorOn(x.shape(), x.dtype(), device);
  size_t bytes = x.nbytes();
  if (bytes == 0)
    return out;
  // From page-locked memory the copy is queued: that buffer is not reused
  // before the stream has done it (emberrt_cuda_pinned_malloc), and tensors'
  // values do not change.
  emberrt_status_t status =
      from.is_cpu() ? (x.is_pinned() ? emberrt_cuda_memcpy_htod_async(out.data(), x.data(), bytes)
                                     : emberrt_cuda_memcpy_htod(out.data(), x.data(), bytes))
      : device.is_cpu() ? emberrt_cuda_memcpy_dtoh(out.data(), x.data(), bytes)
                        : emberrt_cuda_memcpy_dtod(out.data(), x.data(), bytes);
  if (status != EMBERRT_OK)
    throwCudaError("copying a tensor of shape " + x.shape().str() + " from " + from.str() +
                   " to " + device.str());
  if (device.is_cpu()) // the host has waited for the kernels that made `x`
    throwIfKernelFaulted();
  return out;
}

Tensor Tensor::pin_memory() const {
  if (is_pinned())
    return *this;
  if (isSymbolic(*this))
    throw Error("pin_memory: the tensor of shape " + shape().str() +
                " is symbolic (inside an ember::function); pin host data before the call");
  if (!device().is_cpu())
    throw Error("pin_memory: the tensor of shape " + shape().str() + " is on " + device().str() +
                "; only host tensors can be pinned");
  if (!cuda_is_available())
    throw Error("pin_memory: page-locked memory needs a GPU: " + cuda_status());
  Tensor out = newTensorWith(shape(), dtype(), emberrt_cuda_pinned_buffer_allocate, [&] {
    throwCudaError("allocating page-locked memory for a tensor of shape " + shape().str());
  });
  if (size_t bytes = nbytes())
    std::memcpy(out.data(), data(), bytes);
  return out;
}

bool Tensor::is_pinned() const {
  const TensorImpl &impl = implOf(*this);
  return impl.buffer && impl.buffer->device == EMBERRT_DEVICE_CUDA_PINNED;
}

Tensor ember::detail::placeCreated(Tensor made) {
  if (const Device *device = explicitDevice(); device && !device->is_cpu())
    return copyToDevice(made, *device);
  return made;
}
