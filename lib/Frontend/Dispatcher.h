//===- Dispatcher.h - run an eager op through the kernel cache --*- C++ -*-===//
//
// The router: an op called by the front end goes to the tracer (inside a
// traced function), onto the tapes that watch it, and to a cached or newly
// compiled kernel. The vocabulary it routes (OpDef, signatures, errors) is
// the leaf header OpDef.h, which the tracer and the tape include instead.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_FRONTEND_DISPATCHER_H
#define EMBER_LIB_FRONTEND_DISPATCHER_H

#include "OpDef.h"

#include "ember/Frontend/Device.h"

#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

namespace ember::jit {
struct CompiledFunction;
} // namespace ember::jit

namespace ember::detail {

/// Runs `op` on `inputs` with attributes `attrWords` (encoded per op.attrs):
/// a cached kernel when one exists for this signature, else a kernel compiled
/// now and cached. `resultType` is required for ops whose result type does not
/// follow from the operands. Throws OpError on invalid calls.
Tensor dispatch(const OpDef &op, std::span<const int64_t> attrWords,
                std::initializer_list<const Tensor *> inputs, const trace::TensorSpec *resultType,
                const SourceLoc &loc);

/// Same, for a list of inputs (concat).
Tensor dispatch(const OpDef &op, std::span<const int64_t> attrWords,
                std::span<const Tensor *const> inputs, const trace::TensorSpec *resultType,
                const SourceLoc &loc);

/// `op` on `inputs` broadcast (numpy rules) to `shape`. Eagerly one kernel
/// broadcasts and computes, so no broadcast operand is written to memory;
/// traced or under a GradientTape the broadcasts are ops of their own.
Tensor dispatchBroadcast(const OpDef &op, std::span<const int64_t> attrWords,
                         std::initializer_list<const Tensor *> inputs, const Shape &shape,
                         const SourceLoc &loc);

/// Where an op (or a compiled function, `what` naming it) on `inputs` runs:
/// the DeviceScope's device inside one, else the device of its operands
/// (0-d operands follow the others). Operands on two devices outside a scope
/// are an OpError naming both. Throws if the device cannot be used.
Device placementOf(std::string_view what, std::span<const Tensor *const> inputs,
                   const SourceLoc &loc);

/// The device as a kernel signature's word: its type and, for GPUs, whether
/// float32 matmuls may use TF32 (kernels compiled under one setting are not
/// served under the other).
inline int64_t signatureWordOf(const Device &device) {
  return static_cast<int64_t>(device.type()) |
         (device.is_cuda() && jit::tensorFloat32() ? int64_t(1) << 8 : 0);
}

/// The compiler target for code that runs on `device`.
inline jit::Target targetOf(const Device &device) {
  return device.is_cuda() ? jit::Target::Cuda : jit::Target::Host;
}

/// Calls a compiled function `entry`, compiled for `device`, on `inputs`
/// (copied there first when elsewhere) and returns fresh tensors on `device`
/// for its `results` (the calling convention: one memref descriptor per
/// input, then one per result). Throws OpError if the code reported a fault
/// (see throwIfFaulted) or the GPU failed.
std::vector<Tensor> runCompiled(emberrt_entry_fn entry, std::span<const Tensor *const> inputs,
                                std::span<const trace::TensorSpec> results,
                                std::span<const jit::FaultSite> faultSites, const Device &device);

/// The result types of a call of `compiled` (traced with None dims) on
/// `inputs`, sized by its DimPlan; throws OpError, naming the op and `what`
/// ("ember::function 'f'"), when sizes that must agree do not.
std::vector<trace::TensorSpec> sizeResults(std::string_view what,
                                           const jit::CompiledFunction &compiled,
                                           std::span<const Tensor *const> inputs);

/// Whether eager ops and tapes share shape-generic code across sizes
/// (unless EMBER_SHAPE_GENERIC=0).
bool shapeGenericKernels();

/// Whether the main thread's exit will stop the background compiler (its
/// thread_local guard was made at start-up).
bool backgroundCompilesStopAtMainThreadExit();

/// Takes the fault compiled code reported on this thread, if any, and throws
/// it as an OpError naming the faulting op and its source line from
/// `sites`: "file:line:col: error: 'ember.div' op integer division by zero".
void throwIfFaulted(std::span<const jit::FaultSite> sites);
/// The same for a fault that a GPU kernel reported since the last check
/// (waits for the GPU's stream): called where the host waits for it anyway.
void throwIfKernelFaulted();

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_DISPATCHER_H
