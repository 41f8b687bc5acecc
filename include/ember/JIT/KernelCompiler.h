//===- KernelCompiler.h - compile one ember op into a kernel -----*- C++ -*-===//
//
// The eager front end's way into the compiler. The interface has no MLIR
// types, so front-end code (built with exceptions) never includes MLIR; the
// implementation never throws and reports failures as diagnostic text.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_JIT_KERNELCOMPILER_H
#define EMBER_JIT_KERNELCOMPILER_H

#include "ember/Trace/Types.h"
#include "emberrt/runtime.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ember::jit {

/// What compiled code runs on: the host CPU, or the CUDA GPU (device 0;
/// kernels for its architecture, launched by host code through ember's
/// runtime; memref arguments hold device pointers).
enum class Target : uint8_t { Host = 0, Cuda = 1 };

/// Whether float32 matmuls compiled for GPUs from now on may run on tensor
/// cores with operands rounded to TF32 (jitCudaTarget's `tf32`; on until
/// set, as TensorFlow's default). Kernels already compiled keep theirs.
bool tensorFloat32();
void setTensorFloat32(bool enabled);

// The trace's vocabulary, which the JIT's requests speak.
using trace::AttrKind;
using trace::AttrSchema;
using trace::kDynamic;
using trace::kMaxRank;
using trace::SourceLocation;
using trace::TensorSpec;

/// An op of a compiled function that can fault at run time: an integer
/// division (by zero, or of the most negative integer by -1), a gather (an
/// index out of range) or an argmax over a `?` axis (empty at run time).
/// Compiled code reports a fault with the op's site, its index in the
/// function's list of sites (emberrt_report_fault); the caller takes it
/// (emberrt_take_fault) and raises an error naming the op and the line that
/// made it.
struct FaultSite {
  std::string opName;   ///< "ember.div"
  std::string location; ///< "file:line:col"
  std::string detail;   ///< for a gather: "for axis 0 of size 3 (tensor<3x2xf32>)"
};

/// What went wrong in a fault of `kind` (an emberrt_fault_kind_t) at `site`
/// (null if unknown): "integer division by zero", "index out of range for
/// axis 0 of size 3 (tensor<3xi32>)".
std::string faultMessage(int32_t kind, const FaultSite *site);

/// GPU kernels report a fault some time after their launch, with the tag of
/// the compiled function whose module they are in (emberrt_cuda_set_fault_tag
/// while it loads): the tag of `sites` (one per distinct list, kept for
/// the process's life).
uint32_t tagKernelFaultSites(std::vector<FaultSite> sites);
/// The sites tagged `tag` (empty for an unknown tag, e.g. 0).
std::vector<FaultSite> kernelFaultSites(uint32_t tag);

/// One op to compile: `opName` applied to arguments of types `inputs`, with
/// attributes encoded as words per `attrSchema`, and an explicit result type
/// for ops whose result does not follow from the operands.
struct KernelRequest {
  std::string_view opName; ///< e.g. "ember.add"
  std::span<const AttrSchema> attrSchema;
  std::span<const int64_t> attrWords;
  std::span<const TensorSpec> inputs;
  const TensorSpec *resultType = nullptr; ///< null: inferred by the op
  SourceLocation loc;
  /// When set, inputs of another shape are first broadcast (numpy rules) to
  /// this shape inside the kernel: one kernel, no broadcast operand in memory.
  /// Its kDynamic dims take their sizes from an input whose aligned dim is
  /// kDynamic too.
  std::span<const int64_t> broadcastShape;
  Target target = Target::Host;
};

/// A compiled kernel: call `entry` with pointers to the memref descriptors of
/// the inputs followed by the result's.
struct CompiledKernel {
  emberrt_entry_fn entry = nullptr;
  TensorSpec result;
  double compileSeconds = 0;
  bool fromDiskCache = false; ///< loaded from the disk cache, not compiled
  std::shared_ptr<void> owner; ///< keeps the compiled code alive
  /// The ops that can fault (see FaultSite); empty: the kernel never reports.
  std::vector<FaultSite> faultSites;
};

/// What checking a request without compiling it tells (checkKernel).
struct KernelCheck {
  TensorSpec result; ///< the op's result type
  /// Whether one shape-generic kernel can serve the request's op for every
  /// shape (generalizedShape): its ops lower dynamic dims on the target.
  bool shapeGeneric = false;
  /// For a window op (a convolution, a pooling, their gradients): which
  /// inputs' dim 0 is a batch, the only dims its generic kernel generalizes
  /// (heights, widths, channels and a filter stay fixed). Empty: every dim.
  std::vector<bool> batchOperands;
};

/// Builds and verifies the one-op function for `request` without compiling
/// it: the same checks and messages as compileKernel, at a fraction of the
/// cost (a new shape for a shape-generic kernel is checked this way).
bool checkKernel(const KernelRequest &request, KernelCheck &out, std::string &error);

/// A dim of a shape-generic kernel: sizes 0 and 1 stay static (whether an
/// operand broadcasts depends on them), every other size is kDynamic. (The
/// eager cache compiles empty tensors for their own shapes.)
constexpr int64_t generalizedDim(int64_t dim) { return dim <= 1 ? dim : kDynamic; }

/// Builds the one-op function for `request`, verifies it and compiles it
/// through ember-lower-to-llvm and the JIT. On failure returns false and sets
/// `error` to the diagnostics ("file:line:col: error: 'ember.x' op ...").
bool compileKernel(const KernelRequest &request, CompiledKernel &out, std::string &error);

} // namespace ember::jit

#endif // EMBER_JIT_KERNELCOMPILER_H
