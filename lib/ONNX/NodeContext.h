//===- NodeContext.h - one ONNX node as its operator sees it ------*- C++ -*-===//
//
// An operator (Operators.cpp) reads its node's inputs, the values of those
// it needs while compiling, and its attributes through a NodeContext, which
// names the node in every error and notices attributes nobody read (an
// attribute ember does not implement is refused, never ignored).
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_ONNX_NODECONTEXT_H
#define EMBER_LIB_ONNX_NODECONTEXT_H

#include "ember/ONNX/ONNX.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ember::onnx::detail {

/// The dtype of an ONNX TensorProto data type, or nothing for those ember
/// has not (uint8, int8, int16, strings, complex, ...).
std::optional<DType> dtypeOfElementType(int32_t elementType);
/// ONNX's name of a data type ("FLOAT", "UINT8", ...).
std::string elementTypeName(int32_t elementType);
/// `proto` as an eager CPU tensor; `what` names it in errors.
Tensor tensorOf(const ::onnx::TensorProto &proto, const std::string &what);

/// An integer value of rank 0 or 1 whose elements are partly known while
/// compiling (kNone where not): a shape of `?` dims, sizes computed from it
/// (ShapeValues.cpp).
struct PartialValue {
  std::vector<int64_t> values;
  bool scalar = false;
};

/// What `node`'s output 0 holds, element by element, given what is known of
/// its inputs (constants, partial values; nullopt: nothing) and its first
/// input's tensor (for Shape); nullopt for the ops not followed.
std::optional<PartialValue> partialValueOf(const ::onnx::NodeProto &node, int64_t opset,
                                           const std::vector<std::optional<PartialValue>> &inputs,
                                           const Tensor *first);

class NodeContext {
public:
  /// `lookup(name)`: the value of `name` (a symbolic or eager tensor), null
  /// if it has none; `isConstant(name)`: whether its value is known while
  /// compiling (an initializer, a Constant node's, one folded from them);
  /// `isGraphInput(name)`.
  NodeContext(const ::onnx::NodeProto &node, int64_t opset, std::string where,
              std::function<const Tensor *(const std::string &)> lookup,
              std::function<bool(const std::string &)> isConstant,
              std::function<bool(const std::string &)> isGraphInput,
              std::function<const PartialValue *(const std::string &)> partial = {});

  const ::onnx::NodeProto &node() const { return node_; }
  int64_t opset() const { return opset_; }

  /// Whether input `i` is given (optional inputs may be absent or "").
  bool has(int i) const;
  int inputCount() const { return node_.input_size(); }
  /// Input `i`'s value; an absent one is an error naming it.
  const Tensor &input(int i) const;
  /// Input `i`'s value, or null if it is absent or has none.
  const Tensor *lookupInput(int i) const;
  /// Input `i` reads as `value` from now on (a 1-D op's input lifted to 2-D).
  void replaceInput(int i, Tensor value) { replaced_[i] = std::move(value); }
  /// Input `i`'s value, which must be known while compiling (its integer
  /// values, or its tensor).
  std::vector<int64_t> constantInts(int i) const;
  const Tensor &constantInput(int i) const;
  /// Input i's integer values as far as they are known while compiling
  /// (kNone where they are not: sizes computed from a `?` dim).
  std::vector<int64_t> shapeInts(int i) const;

  bool hasAttribute(const std::string &name) const;
  int64_t attrInt(const std::string &name, int64_t otherwise);
  float attrFloat(const std::string &name, float otherwise);
  std::string attrString(const std::string &name, const std::string &otherwise);
  std::vector<int64_t> attrInts(const std::string &name, std::vector<int64_t> otherwise = {});
  std::vector<float> attrFloats(const std::string &name);
  std::vector<std::string> attrStrings(const std::string &name);
  Tensor attrTensor(const std::string &name);
  /// Marks `name` read without reading it (an attribute that changes nothing here).
  void ignoreAttribute(const std::string &name) { read_.insert(name); }
  /// From now on, a 1-D window's attributes read as those of a 2-D window
  /// whose first spatial dim has size 1: kernel_shape, strides, dilations
  /// and output_shape [v] as [1, v], pads [b, e] as [0, b, 0, e],
  /// output_padding [p] as [0, p].
  void liftWindowAttributesToTwoD() { liftedToTwoD_ = true; }

  /// Throws ImportError: "<where>: node '<name>' (<op type>): <message>".
  [[noreturn]] void fail(const std::string &message) const;
  /// An attribute set to a value ember does not implement.
  [[noreturn]] void unsupported(const std::string &attribute, const std::string &value) const;
  /// Refuses the first attribute no operator read.
  void checkEveryAttributeRead() const;
  /// The node's description, "node 'name' (Conv)", for messages.
  std::string describe() const;

private:
  const ::onnx::AttributeProto *attribute(const std::string &name, int type);

  const ::onnx::NodeProto &node_;
  int64_t opset_;
  std::string where_;
  std::function<const Tensor *(const std::string &)> lookup_;
  std::function<bool(const std::string &)> isConstant_;
  std::function<bool(const std::string &)> isGraphInput_;
  std::function<const PartialValue *(const std::string &)> partial_;
  std::set<std::string> read_;
  std::map<int, Tensor> replaced_;
  bool liftedToTwoD_ = false;
};

/// An operator: the node's outputs, in order (one per output the node
/// names; an output the operator cannot produce is refused by it).
using Operator = std::vector<Tensor> (*)(NodeContext &node);
/// The operator for `opType` of the default domain, or null.
Operator operatorFor(const std::string &opType);

} // namespace ember::onnx::detail

#endif // EMBER_LIB_ONNX_NODECONTEXT_H
