//===- Model.cpp - an ONNX model as a traced function ---------------------===//
//
// The ONNX library parses the file, checks it and infers its shapes; ember
// then folds every node whose inputs are all known (initializers, Constant
// nodes, shapes of statically shaped values) eagerly, once, and traces the
// rest into one ember function per signature, compiled by the JIT like any
// ember::function.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "ember/Frontend/Function.h"
#include "ember/Frontend/Ops.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

using namespace ember;
using namespace ember::onnx;
using namespace ember::onnx::detail;

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

std::optional<DType> ember::onnx::detail::dtypeOfElementType(int32_t elementType) {
  switch (elementType) {
  case ::onnx::TensorProto::FLOAT:
    return DType::Float32;
  case ::onnx::TensorProto::DOUBLE:
    return DType::Float64;
  case ::onnx::TensorProto::INT32:
    return DType::Int32;
  case ::onnx::TensorProto::INT64:
    return DType::Int64;
  case ::onnx::TensorProto::BOOL:
    return DType::Bool;
  case ::onnx::TensorProto::FLOAT16:
    return DType::Float16;
  case ::onnx::TensorProto::BFLOAT16:
    return DType::BFloat16;
  default:
    return std::nullopt;
  }
}

std::string ember::onnx::detail::elementTypeName(int32_t elementType) {
  if (::onnx::TensorProto::DataType_IsValid(elementType))
    return ::onnx::TensorProto::DataType_Name(
        static_cast<::onnx::TensorProto::DataType>(elementType));
  return "data type " + std::to_string(elementType);
}

Tensor ember::onnx::detail::tensorOf(const ::onnx::TensorProto &proto, const std::string &what) {
  std::optional<DType> dtype = dtypeOfElementType(proto.data_type());
  if (!dtype)
    throw ImportError(what + ": its elements are " + elementTypeName(proto.data_type()) +
                      ", which ember has no dtype for (it has FLOAT, DOUBLE, INT32, INT64, BOOL, "
                      "FLOAT16 and BFLOAT16)");
  if (proto.data_location() == ::onnx::TensorProto::EXTERNAL)
    throw ImportError(what + ": its data is stored outside the model (external data), which the "
                             "importer does not read yet");
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  // The data checked against the dims before anything is allocated: a
  // malformed file (or another kind of proto) may claim any dims.
  size_t count = 1, size = dtypeSize(*dtype);
  for (int64_t d : dims) {
    if (d < 0)
      throw ImportError(what + ": a negative dim (" + std::to_string(d) + ")");
    if (d && count > std::numeric_limits<size_t>::max() / size / static_cast<size_t>(d))
      throw ImportError(what + ": its dims hold more elements than memory can");
    count *= static_cast<size_t>(d);
  }
  size_t have = proto.has_raw_data() ? proto.raw_data().size() / size
                : proto.data_type() == ::onnx::TensorProto::FLOAT  ? proto.float_data_size()
                : proto.data_type() == ::onnx::TensorProto::DOUBLE ? proto.double_data_size()
                : proto.data_type() == ::onnx::TensorProto::INT64  ? proto.int64_data_size()
                                                                   : proto.int32_data_size();
  if (have != count || (proto.has_raw_data() && proto.raw_data().size() != count * size))
    throw ImportError(what + ": " +
                      (proto.has_raw_data() ? std::to_string(proto.raw_data().size()) + " bytes"
                                            : std::to_string(have) + " values") +
                      " of data for a shape of " + std::to_string(count) + " elements");
  Tensor tensor = Tensor::empty(Shape(std::span<const int64_t>(dims)), *dtype);
  size_t bytes = tensor.nbytes();
  char *out = static_cast<char *>(tensor.data());
  if (proto.has_raw_data()) {
    std::memcpy(out, proto.raw_data().data(), bytes); // little-endian, as this host
    return tensor;
  }
  switch (proto.data_type()) {
  case ::onnx::TensorProto::FLOAT:
    std::memcpy(out, proto.float_data().data(), bytes);
    break;
  case ::onnx::TensorProto::DOUBLE:
    std::memcpy(out, proto.double_data().data(), bytes);
    break;
  case ::onnx::TensorProto::INT64:
    std::memcpy(out, proto.int64_data().data(), bytes);
    break;
  default: // INT32, BOOL, FLOAT16, BFLOAT16: one int32 per element
    for (size_t i = 0; i < count; ++i) {
      int32_t value = proto.int32_data(static_cast<int>(i));
      std::memcpy(out + i * size, &value, size); // the low bytes (little-endian)
    }
  }
  return tensor;
}

Tensor ember::onnx::load_tensor(const std::string &path, std::string *name) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw ImportError(path + ": cannot be opened");
  ::onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&file))
    throw ImportError(path + ": not an ONNX TensorProto (the protobuf does not parse)");
  if (name)
    *name = proto.name();
  return tensorOf(proto, path);
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(const ::onnx::NodeProto &node, int64_t opset, std::string where,
                         std::function<const Tensor *(const std::string &)> lookup,
                         std::function<bool(const std::string &)> isConstant,
                         std::function<bool(const std::string &)> isGraphInput,
                         std::function<const PartialValue *(const std::string &)> partial)
    : node_(node), opset_(opset), where_(std::move(where)), lookup_(std::move(lookup)),
      isConstant_(std::move(isConstant)), isGraphInput_(std::move(isGraphInput)),
      partial_(std::move(partial)) {}

std::string NodeContext::describe() const {
  return "node '" + node_.name() + "' (" + node_.op_type() + ")";
}

void NodeContext::fail(const std::string &message) const {
  throw ImportError(where_ + ": " + describe() + ": " + message);
}

void NodeContext::unsupported(const std::string &attribute, const std::string &value) const {
  fail("attribute " + attribute + " = " + value + " is not supported");
}

bool NodeContext::has(int i) const {
  return i < node_.input_size() && !node_.input(i).empty();
}

const Tensor *NodeContext::lookupInput(int i) const {
  if (auto found = replaced_.find(i); found != replaced_.end())
    return &found->second;
  return has(i) ? lookup_(node_.input(i)) : nullptr;
}

const Tensor &NodeContext::input(int i) const {
  if (!has(i))
    fail("input " + std::to_string(i) + " is missing");
  const Tensor *value = lookupInput(i);
  if (!value)
    fail("input " + std::to_string(i) + " ('" + node_.input(i) + "') has no value");
  return *value;
}

const Tensor &NodeContext::constantInput(int i) const {
  const Tensor &value = input(i);
  const std::string &name = node_.input(i);
  if (isConstant_(name))
    return value;
  std::string message = where_ + ": " + describe() + ": input " + std::to_string(i) + " ('" +
                        name + "') must be known while compiling: an initializer or a Constant "
                               "node";
  if (isGraphInput_(name))
    throw NeedsConstantError(message + " (give the graph input's value in "
                                       "ember::onnx::LoadOptions::constants)",
                             name);
  throw ImportError(message + ", not a value computed from the graph's inputs");
}

std::vector<int64_t> NodeContext::shapeInts(int i) const {
  if (has(i) && partial_)
    if (const PartialValue *value = partial_(node_.input(i)))
      return value->values;
  return constantInts(i);
}

std::vector<int64_t> NodeContext::constantInts(int i) const {
  if (has(i) && partial_)
    if (const PartialValue *value = partial_(node_.input(i));
        value && std::find(value->values.begin(), value->values.end(), kNone) == value->values.end())
      return value->values; // computed from sizes, all of them known
  const Tensor &value = constantInput(i);
  if (value.dtype() != DType::Int64 && value.dtype() != DType::Int32)
    fail("input " + std::to_string(i) + " must hold integers, not " +
         std::string(dtypeName(value.dtype())));
  return value.to_vector<int64_t>();
}

const ::onnx::AttributeProto *NodeContext::attribute(const std::string &name, int type) {
  for (const ::onnx::AttributeProto &attribute : node_.attribute())
    if (attribute.name() == name) {
      read_.insert(name);
      if (attribute.type() != type)
        fail("attribute " + name + " has type " +
             ::onnx::AttributeProto::AttributeType_Name(attribute.type()) + ", not " +
             ::onnx::AttributeProto::AttributeType_Name(
                 static_cast<::onnx::AttributeProto::AttributeType>(type)));
      return &attribute;
    }
  return nullptr;
}

bool NodeContext::hasAttribute(const std::string &name) const {
  for (const ::onnx::AttributeProto &attribute : node_.attribute())
    if (attribute.name() == name)
      return true;
  return false;
}

int64_t NodeContext::attrInt(const std::string &name, int64_t otherwise) {
  const auto *a = attribute(name, ::onnx::AttributeProto::INT);
  return a ? a->i() : otherwise;
}

float NodeContext::attrFloat(const std::string &name, float otherwise) {
  const auto *a = attribute(name, ::onnx::AttributeProto::FLOAT);
  return a ? a->f() : otherwise;
}

std::string NodeContext::attrString(const std::string &name, const std::string &otherwise) {
  const auto *a = attribute(name, ::onnx::AttributeProto::STRING);
  return a ? a->s() : otherwise;
}

std::vector<std::string> NodeContext::attrStrings(const std::string &name) {
  const auto *a = attribute(name, ::onnx::AttributeProto::STRINGS);
  return a ? std::vector<std::string>(a->strings().begin(), a->strings().end())
           : std::vector<std::string>{};
}

std::vector<int64_t> NodeContext::attrInts(const std::string &name,
                                           std::vector<int64_t> otherwise) {
  const auto *a = attribute(name, ::onnx::AttributeProto::INTS);
  if (!a)
    return otherwise;
  std::vector<int64_t> values(a->ints().begin(), a->ints().end());
  if (liftedToTwoD_) {
    if (values.size() == 1 && (name == "kernel_shape" || name == "strides" || name == "dilations" ||
                               name == "output_shape"))
      values.insert(values.begin(), 1);
    else if (values.size() == 1 && name == "output_padding")
      values.insert(values.begin(), 0);
    else if (values.size() == 2 && name == "pads")
      values = {0, values[0], 0, values[1]};
  }
  return values;
}

std::vector<float> NodeContext::attrFloats(const std::string &name) {
  const auto *a = attribute(name, ::onnx::AttributeProto::FLOATS);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : std::vector<float>{};
}

Tensor NodeContext::attrTensor(const std::string &name) {
  const auto *a = attribute(name, ::onnx::AttributeProto::TENSOR);
  if (!a)
    fail("attribute " + name + " is missing");
  try {
    return tensorOf(a->t(), "attribute " + name);
  } catch (const ImportError &error) {
    fail(error.what());
  }
}

void NodeContext::checkEveryAttributeRead() const {
  for (const ::onnx::AttributeProto &attribute : node_.attribute())
    if (!read_.count(attribute.name()))
      fail("attribute " + attribute.name() + " is not supported");
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

struct Model::Impl {
  std::string path;
  int64_t opset = 0;
  ::onnx::ModelProto proto;
  std::vector<ValueInfo> inputs, outputs;
  /// Values known while compiling: initializers, Constant nodes, given
  /// inputs, and what was folded from them (while tracing, every value
  /// that is not symbolic is known too: the shape of a static input).
  std::map<std::string, Tensor> constants;
  std::set<std::string> graphInputs;
  /// The nodes left to trace, in the graph's (topological) order.
  std::vector<const ::onnx::NodeProto *> nodes;
  std::shared_ptr<ember::detail::FunctionCore> core;
  /// Traced for the inputs' types, symbolic dims as None (for export, and
  /// calls with LoadOptions::shape_generic).
  std::shared_ptr<ember::detail::FunctionCore> genericCore;
  bool shapeGeneric = false;

  /// Runs `node` on the values `values` gives, adding its outputs (and to
  /// `partial`, when given, what is known of an integer output that is not).
  void run(const ::onnx::NodeProto &node, std::map<std::string, Tensor> &values,
           std::map<std::string, PartialValue> *partial = nullptr) const;
  /// The graph's outputs for the (symbolic) `arguments`.
  std::vector<Tensor> trace(const std::vector<Tensor> &arguments) const;
  ember::detail::CallKey keyOf(const std::vector<Tensor> &inputs) const;
};

namespace {

ValueInfo valueInfoOf(const ::onnx::ValueInfoProto &proto, const std::string &path,
                      bool isInput) {
  ValueInfo info;
  info.name = proto.name();
  std::string what = path + ": graph input/output '" + proto.name() + "'";
  if (!proto.type().has_tensor_type())
    throw ImportError(what + " is not a tensor (sequences, maps and optionals are not "
                             "supported)");
  const auto &type = proto.type().tensor_type();
  std::optional<DType> dtype = dtypeOfElementType(type.elem_type());
  if (!dtype)
    throw ImportError(what + " has elements of " + elementTypeName(type.elem_type()) +
                      ", which ember has no dtype for");
  info.dtype = *dtype;
  if (!type.has_shape()) {
    if (isInput)
      throw ImportError(what + " has no shape (ember needs each input's rank)");
    info.rank_known = false;
    return info;
  }
  for (const auto &dim : type.shape().dim())
    info.shape.push_back(dim.has_dim_value() ? dim.dim_value() : kNone);
  return info;
}

/// Whether `name`'s value is known while compiling: a value that is not
/// symbolic (a constant, or while tracing, what follows from static shapes).
bool knownIn(const std::map<std::string, Tensor> &values, const std::string &name) {
  auto found = values.find(name);
  return found != values.end() && !found->second.is_symbolic();
}

/// Whether each of `node`'s inputs is absent or known.
bool inputsKnown(const ::onnx::NodeProto &node, const std::map<std::string, Tensor> &values) {
  return std::all_of(node.input().begin(), node.input().end(),
                     [&](const std::string &n) { return n.empty() || knownIn(values, n); });
}

/// "[?, 3]" for {kNone, 3}.
std::string dimsText(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t d = 0; d < dims.size(); ++d)
    text += (d ? ", " : "") + (dims[d] == kNone ? std::string("?") : std::to_string(dims[d]));
  return text + "]";
}

/// Whether `value` has the type `info` declares (a `?` on either side
/// fits any size).
bool fitsType(const Tensor &value, const ValueInfo &info) {
  if (!value.defined() || value.dtype() != info.dtype)
    return false;
  if (!info.rank_known)
    return true;
  if (value.rank() != static_cast<int>(info.shape.size()))
    return false;
  for (size_t d = 0; d < info.shape.size(); ++d) {
    int64_t have = value.shape()[static_cast<int>(d)];
    if (info.shape[d] != kNone && have != kNone && have != info.shape[d])
      return false;
  }
  return true;
}

/// "float32[?, 3]", or "float32 (any shape)".
std::string typeText(const ValueInfo &info) {
  return std::string(dtypeName(info.dtype)) +
         (info.rank_known ? dimsText(info.shape) : std::string(" (any shape)"));
}

std::string functionNameOf(const std::string &graphName) {
  std::string name = "onnx_";
  for (char c : graphName)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

} // namespace

void Model::Impl::run(const ::onnx::NodeProto &node, std::map<std::string, Tensor> &values,
                      std::map<std::string, PartialValue> *partial) const {
  NodeContext context(
      node, opset, path,
      [&](const std::string &name) -> const Tensor * {
        auto found = values.find(name);
        return found == values.end() ? nullptr : &found->second;
      },
      [&](const std::string &name) { return knownIn(values, name); },
      [&](const std::string &name) { return graphInputs.count(name) != 0; },
      [&](const std::string &name) -> const PartialValue * {
        if (!partial)
          return nullptr;
        auto found = partial->find(name);
        return found == partial->end() ? nullptr : &found->second;
      });
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    context.fail("the domain '" + node.domain() + "' is not supported (only ONNX's own ops)");
  Operator op = operatorFor(node.op_type());
  if (!op)
    context.fail("the op type " + node.op_type() + " is not supported");
  std::vector<Tensor> results;
  try {
    results = op(context);
  } catch (const ImportError &) {
    throw;
  } catch (const Error &error) { // ember refused the ops the node became
    context.fail(error.what());
  }
  context.checkEveryAttributeRead();
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty())
      continue;
    if (i >= static_cast<int>(results.size()))
      context.fail("output " + std::to_string(i) + " is not supported");
    values[node.output(i)] = results[static_cast<size_t>(i)];
  }
  // Sizes computed from `?` dims: what is known of them, element by element.
  if (partial && !results.empty() && results[0].is_symbolic() && results[0].rank() <= 1 &&
      !isFloatingPoint(results[0].dtype())) {
    std::vector<std::optional<PartialValue>> known;
    for (const std::string &name : node.input()) {
      std::optional<PartialValue> value;
      if (auto p = partial->find(name); p != partial->end()) {
        value = p->second;
      } else if (auto v = values.find(name); v != values.end() && !v->second.is_symbolic() &&
                                             v->second.rank() <= 1 &&
                                             !isFloatingPoint(v->second.dtype())) {
        value = PartialValue{v->second.to_vector<int64_t>(), v->second.rank() == 0};
      }
      known.push_back(std::move(value));
    }
    const Tensor *first = node.input_size() ? context.lookupInput(0) : nullptr;
    if (std::optional<PartialValue> value = partialValueOf(node, opset, known, first))
      (*partial)[node.output(0)] = std::move(*value);
  }
}

std::vector<Tensor> Model::Impl::trace(const std::vector<Tensor> &arguments) const {
  std::map<std::string, Tensor> values = constants;
  std::map<std::string, PartialValue> partial;
  for (size_t i = 0; i < inputs.size(); ++i)
    values[inputs[i].name] = arguments[i];
  for (const ::onnx::NodeProto *node : nodes) {
    // A node of values known while tracing (the shape of a static input,
    // what follows from it) runs at once: its results stay known, for the
    // Reshapes and Slices that need them.
    if (inputsKnown(*node, values)) {
      InitScope eagerly;
      run(*node, values);
    } else {
      run(*node, values, &partial);
    }
  }
  std::vector<Tensor> results;
  for (const ValueInfo &output : outputs) {
    auto found = values.find(output.name);
    if (found == values.end())
      throw ImportError(path + ": the graph output '" + output.name + "' has no value");
    // What the model declares, checked: an op imported wrongly is an error
    // here rather than a result of another type or shape.
    const Tensor &value = found->second;
    if (!fitsType(value, output))
      throw ImportError(path + ": the graph output '" + output.name + "' came out as " +
                        describe(value) + ", but the model declares " + typeText(output) +
                        " (an importer error: please report it)");
    results.push_back(value);
  }
  return results;
}

ember::detail::CallKey Model::Impl::keyOf(const std::vector<Tensor> &arguments) const {
  if (arguments.size() != inputs.size())
    throw ImportError(path + ": the model takes " + std::to_string(inputs.size()) +
                      " inputs, not " + std::to_string(arguments.size()));
  ember::detail::CallKey key;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Tensor &argument = arguments[i];
    const ValueInfo &input = inputs[i];
    if (!fitsType(argument, input)) // (a call's tensors have no `?` dims)
      throw ImportError(path + ": input " + std::to_string(i) + " ('" + input.name + "') must be " +
                        typeText(input) + ", not " +
                        (argument.defined() ? describe(argument) : "undefined"));
    ember::detail::collectArg(key, argument);
  }
  return key;
}

Model ember::onnx::load(const std::string &path, const LoadOptions &options) {
  auto impl = std::make_shared<Model::Impl>();
  impl->path = path;
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw ImportError(path + ": cannot be opened");
  if (!impl->proto.ParseFromIstream(&file))
    throw ImportError(path + ": not an ONNX model (the protobuf does not parse)");
  for (const auto &[name, size] : options.dims) {
    bool found = false;
    for (::onnx::ValueInfoProto &input : *impl->proto.mutable_graph()->mutable_input())
      for (auto &dim : *input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
        if (dim.has_dim_param() && dim.dim_param() == name) {
          dim.set_dim_value(size);
          found = true;
        }
    if (!found || size < 0)
      throw ImportError(path + ": LoadOptions::dims gives " + name + " = " + std::to_string(size) +
                        (found ? ", not a size" : ", but no input has a dim of that name"));
  }
  try {
    ::onnx::checker::check_model(impl->proto);
    ::onnx::shape_inference::InferShapes(impl->proto);
  } catch (const std::exception &error) {
    throw ImportError(path + ": the ONNX checker refused the model: " + error.what());
  }
  // A model of other domains' ops alone imports no opset of ONNX's own (the
  // checker refuses a node of a domain not imported): its nodes are refused
  // by their domain.
  impl->opset = 17;
  for (const auto &opset : impl->proto.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      impl->opset = opset.version();
  if (impl->opset < 1 || impl->opset > 17)
    throw ImportError(path + ": opset " + std::to_string(impl->opset) +
                      " is not supported (ember imports opsets 7 to 17, and older ones where "
                      "their ops are those of opset 7)");
  const ::onnx::GraphProto &graph = impl->proto.graph();
  if (impl->opset < 7) {
    // An older model is an opset-7 model if each of its ops is the version
    // opset 7 has (Elu 6, Not 1, ...): ONNX's registry says which is in effect.
    for (const ::onnx::NodeProto &node : graph.node()) {
      if (!node.domain().empty() && node.domain() != "ai.onnx")
        continue; // refused by name when the node is imported
      const ::onnx::OpSchema *then =
          ::onnx::OpSchemaRegistry::Schema(node.op_type(), int(impl->opset), "");
      const ::onnx::OpSchema *at7 = ::onnx::OpSchemaRegistry::Schema(node.op_type(), 7, "");
      if (!then || !at7 || then->since_version() != at7->since_version())
        throw ImportError(
            path + ": node '" + node.name() + "' (" + node.op_type() + "): opset " +
            std::to_string(impl->opset) + "'s " + node.op_type() +
            (then ? " (version " + std::to_string(then->since_version()) + ")" : std::string()) +
            " is not opset 7's, and ember imports opsets 7 to 17");
    }
    impl->opset = 7;
  }
  for (const ::onnx::TensorProto &initializer : graph.initializer())
    impl->constants[initializer.name()] =
        tensorOf(initializer, path + ": initializer '" + initializer.name() + "'");
  for (const ::onnx::ValueInfoProto &input : graph.input()) {
    if (impl->constants.count(input.name()))
      continue; // an initializer listed as an input (IR version < 4) is a weight
    if (auto given = options.constants.find(input.name()); given != options.constants.end()) {
      impl->constants[input.name()] = given->second;
      continue;
    }
    impl->inputs.push_back(valueInfoOf(input, path, true));
    impl->graphInputs.insert(input.name());
  }
  for (const auto &given : options.constants)
    if (!impl->constants.count(given.first))
      throw ImportError(path + ": LoadOptions::constants names '" + given.first +
                        "', which is not an input of the graph");
  for (const ::onnx::ValueInfoProto &output : graph.output())
    impl->outputs.push_back(valueInfoOf(output, path, false));

  // Nodes whose inputs are all known run now, once (eagerly); the others
  // are traced for every signature.
  for (const ::onnx::NodeProto &node : graph.node()) {
    if (inputsKnown(node, impl->constants))
      impl->run(node, impl->constants);
    else
      impl->nodes.push_back(&node);
  }
  std::string name = functionNameOf(graph.name());
  impl->core = std::make_shared<ember::detail::FunctionCore>(name);
  FunctionOptions generic;
  for (const ValueInfo &input : impl->inputs)
    generic.input_signature.push_back({input.shape, input.dtype});
  impl->genericCore =
      std::make_shared<ember::detail::FunctionCore>(name, false, std::nullopt, std::move(generic));
  impl->shapeGeneric = options.shape_generic;
  Model model;
  model.impl_ = std::move(impl);
  return model;
}

const std::vector<ValueInfo> &Model::inputs() const { return impl_->inputs; }
const std::vector<ValueInfo> &Model::outputs() const { return impl_->outputs; }

std::vector<Tensor> Model::operator()(const std::vector<Tensor> &inputs) const {
  std::shared_ptr<const Impl> impl = impl_;
  auto trace = [impl](const std::vector<Tensor> &symbolic) { return impl->trace(symbolic); };
  // An eager GradientTape records the call as one op (the trace keeps the
  // model alive, not the arguments: they are its symbolic inputs).
  auto keepTrace = [trace]() -> ember::detail::FunctionCore::Trace { return trace; };
  auto &core = impl->shapeGeneric ? impl->genericCore : impl->core;
  return core->call(impl->keyOf(inputs), trace, keepTrace);
}

std::string Model::traced_ir(const std::vector<Tensor> &inputs) const {
  std::shared_ptr<const Impl> impl = impl_;
  return impl->core->tracedIR(impl->keyOf(inputs), [impl](const std::vector<Tensor> &symbolic) {
    return impl->trace(symbolic);
  });
}

void Model::export_mlir(const std::string &path, const std::vector<Tensor> &inputs) const {
  std::shared_ptr<const Impl> impl = impl_;
  impl->genericCore->exportMLIR(path, impl->keyOf(inputs),
                                [impl](const std::vector<Tensor> &symbolic) {
                                  return impl->trace(symbolic);
                                });
}

std::map<std::string, int64_t> ember::onnx::parse_dims(const std::string &text) {
  std::map<std::string, int64_t> dims;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    size_t equals = item.find('=');
    char *end = nullptr;
    long long size = equals == std::string::npos ? -1 : std::strtoll(item.c_str() + equals + 1, &end, 10);
    if (equals == std::string::npos || equals == 0 || !end || *end != '\0' || size < 0)
      throw ImportError("'" + item + "' is not NAME=SIZE (a symbolic dim's name and its size)");
    dims[item.substr(0, equals)] = size;
  }
  return dims;
}

std::string ember::onnx::import_mlir(const std::string &path, const LoadOptions &options) {
  Model model = load(path, options);
  std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("ember-onnx-" + std::to_string(::getpid()) + "-" +
       std::to_string(reinterpret_cast<uintptr_t>(&model)) + ".mlir");
  model.export_mlir(file.string(), model.example_inputs());
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  in.close();
  std::filesystem::remove(file);
  return text.str();
}

std::vector<Tensor> Model::example_inputs(int64_t noneSize) const {
  std::vector<Tensor> examples;
  for (const ValueInfo &input : impl_->inputs) {
    std::vector<int64_t> dims = input.shape;
    for (int64_t &d : dims)
      if (d == kNone)
        d = noneSize;
    examples.push_back(zeros(Shape(std::span<const int64_t>(dims)), input.dtype));
  }
  return examples;
}
