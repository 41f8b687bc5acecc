//===- ONNX.h - models from elsewhere: the ONNX importer ----------*- C++ -*-===//
//
// Loads an ONNX model (opsets 7-17; parsed, checked and shape-inferred by
// the ONNX library itself) as a callable that runs through the JIT like a
// traced function: each node becomes ember ops, initializers become
// constants, and the whole graph is one compiled function per signature.
//
//   ember::onnx::Model model = ember::onnx::load("mlp.onnx"); // from torch.onnx.export, say
//   std::vector<ember::Tensor> outputs = model({ember::ones({2, 3})}); // compiled for [2, 3]
//   ember::Tensor probabilities = outputs[0];                  // float32[2, 2]
//
// What ember cannot run is refused when the model loads or first runs, with
// an ImportError naming the node, its op type and the attribute or input
// (never a wrong answer). Inputs that an op needs as values while compiling
// (a Reshape's shape, a Slice's starts) must be initializers or Constant
// nodes, or be given in LoadOptions::constants; sizes a model computes from
// its shapes (Shape, Gather, Mul, Concat into a Reshape) are followed, so
// a symbolic dim ("batch") stays `?` when exported or compiled ahead of
// time (ember-import-onnx, ember-compile model.onnx). A program that also
// includes ONNX's own protobuf headers (namespace ::onnx) writes
// ember::onnx in full.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_ONNX_ONNX_H
#define EMBER_ONNX_ONNX_H

#include "ember/Frontend/Error.h"
#include "ember/Frontend/Tensor.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ember::onnx {

/// A model that cannot be loaded or run: a file that is not an ONNX model,
/// one the ONNX checker refuses, an op, attribute or dtype ember does not
/// support. The message names the file, and the node where there is one.
class ImportError : public Error {
public:
  using Error::Error;
};

/// An ImportError for a graph input whose value an op needs while the model
/// compiles: give it in LoadOptions::constants.
class NeedsConstantError : public ImportError {
public:
  NeedsConstantError(const std::string &message, std::string input)
      : ImportError(message), input(std::move(input)) {}
  std::string input; ///< the graph input's name
};

/// A graph input or output: its name, dtype and dims (kNone for a symbolic
/// dim such as "batch").
struct ValueInfo {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  /// false for an output whose rank the model does not give (shape empty).
  bool rank_known = true;
};

struct LoadOptions {
  /// Values of graph inputs, which then become constants of the model (and
  /// leave its inputs): for inputs that ops need while compiling.
  std::map<std::string, Tensor> constants;
  /// Sizes for the model's symbolic dims, by name ({"batch", 8}): the
  /// inputs' dims so named become static (for a model whose ops cannot take
  /// a dim of any size yet: ahead of time, one object per size then).
  std::map<std::string, int64_t> dims;
  /// Whether calls compile the graph once for the model's symbolic dims (as
  /// `?`: one compile serves every batch size, as ember-compile's object
  /// does), rather than once per shape called with (the default, as
  /// ember::function traces). A model whose ops cannot take a dim of any
  /// size yet is then refused when first called.
  bool shape_generic = false;
};

class Model {
public:
  /// The graph's inputs (initializers excluded) and outputs, in order.
  const std::vector<ValueInfo> &inputs() const;
  const std::vector<ValueInfo> &outputs() const;
  /// The outputs for `inputs` (one tensor per input, in order), computed by
  /// the graph compiled for their dtypes and shapes (once per signature).
  std::vector<Tensor> operator()(const std::vector<Tensor> &inputs) const;
  /// The ember IR that `(*this)(inputs)` runs, as traced.
  std::string traced_ir(const std::vector<Tensor> &inputs) const;
  /// Writes that IR as a module for ember-opt and ember-compile (one public
  /// function, `onnx_<graph name>`; the model's symbolic dims as `?`, any
  /// size then fits them).
  void export_mlir(const std::string &path, const std::vector<Tensor> &inputs) const;
  /// Zeros of every input's type (symbolic dims of size `noneSize`).
  std::vector<Tensor> example_inputs(int64_t noneSize = 1) const;

  struct Impl;

private:
  friend Model load(const std::string &path, const LoadOptions &options);
  std::shared_ptr<const Impl> impl_;
};

/// Reads, checks and imports the ONNX model at `path`; throws ImportError.
Model load(const std::string &path, const LoadOptions &options = {});

/// The model at `path` as ember MLIR text (Model::export_mlir of
/// example_inputs()): what ember-import-onnx writes and ember-compile
/// compiles.
std::string import_mlir(const std::string &path, const LoadOptions &options = {});

/// "batch=8,seq=128" as LoadOptions::dims (the tools' --dim); throws
/// ImportError.
std::map<std::string, int64_t> parse_dims(const std::string &text);

/// A tensor stored as an ONNX TensorProto file (the node tests'
/// input_N.pb and output_N.pb), and its name if `name`; throws ImportError.
Tensor load_tensor(const std::string &path, std::string *name = nullptr);

} // namespace ember::onnx

#endif // EMBER_ONNX_ONNX_H
