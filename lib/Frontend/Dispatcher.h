//===- Dispatcher.h - run an eager op through the kernel cache --*- C++ -*-===//
#ifndef EMBER_LIB_FRONTEND_DISPATCHER_H
#define EMBER_LIB_FRONTEND_DISPATCHER_H

#include "ember/Frontend/Device.h"
#include "ember/JIT/KernelCompiler.h"
#include "ember/Frontend/Ops.h"

#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

namespace ember::detail {

/// An ember op as the eager front end calls it: its MLIR name and the schema
/// of its attributes. Instances are static; their address identifies the op in
/// the kernel cache.
struct OpDef {
  std::string_view name;
  std::span<const jit::AttrSchema> attrs = {};
};

/// Runs `op` on `inputs` with attributes `attrWords` (encoded per op.attrs):
/// a cached kernel when one exists for this signature, else a kernel compiled
/// now and cached. `resultType` is required for ops whose result type does not
/// follow from the operands. Throws OpError on invalid calls.
Tensor dispatch(const OpDef &op, std::span<const int64_t> attrWords,
                std::initializer_list<const Tensor *> inputs, const jit::TensorSpec *resultType,
                const SourceLoc &loc);

/// Same, for a list of inputs (concat).
Tensor dispatch(const OpDef &op, std::span<const int64_t> attrWords,
                std::span<const Tensor *const> inputs, const jit::TensorSpec *resultType,
                const SourceLoc &loc);

/// `op` on `inputs` broadcast (numpy rules) to `shape`. Eagerly one kernel
/// broadcasts and computes, so no broadcast operand is written to memory;
/// traced or under a GradientTape the broadcasts are ops of their own.
Tensor dispatchBroadcast(const OpDef &op, std::span<const int64_t> attrWords,
                         std::initializer_list<const Tensor *> inputs, const Shape &shape,
                         const SourceLoc &loc);

/// The words a tensor type adds to a signature (the eager kernel cache's, a
/// traced function's, a tape derivative's): the dtype and the rank in one
/// word, then the dimensions. `Words` has push_back.
template <typename Words>
void appendTypeWords(Words &words, DType dtype, std::span<const int64_t> dims) {
  words.push_back((static_cast<int64_t>(dtype) << 8) | static_cast<int64_t>(dims.size()));
  for (int64_t dim : dims)
    words.push_back(dim);
}
template <typename Words> void appendTypeWords(Words &words, DType dtype, const Shape &shape) {
  appendTypeWords(words, dtype, std::span<const int64_t>(shape.data(), shape.rank()));
}

/// The static type of a tensor as the compiler sees it.
jit::TensorSpec specOf(DType dtype, const Shape &shape);

/// The shape of a compiler-side tensor type.
Shape shapeOf(const jit::TensorSpec &spec);

/// Where an op (or a compiled function, `what` naming it) on `inputs` runs:
/// the DeviceScope's device inside one, else the device of its operands
/// (0-d operands follow the others). Operands on two devices outside a scope
/// are an OpError naming both. Throws if the device cannot be used.
Device placementOf(std::string_view what, std::span<const Tensor *const> inputs,
                   const SourceLoc &loc);

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
                                std::span<const jit::TensorSpec> results,
                                std::span<const jit::FaultSite> faultSites,
                                const Device &device);

/// Takes the fault compiled code reported on this thread, if any, and throws
/// it as an OpError naming the faulting op and its source line from
/// `sites`: "file:line:col: error: 'ember.div' op integer division by zero".
void throwIfFaulted(std::span<const jit::FaultSite> sites);

/// "file:line:col: error: 'ember.add' op " + message, as an OpError.
[[noreturn]] void throwOpError(std::string_view opName, const std::string &message,
                               const SourceLoc &loc);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_DISPATCHER_H
