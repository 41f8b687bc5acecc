//===- ShapeValues.cpp - shapes as values, partly known -------------------===//
//
// Exported models compute sizes from shapes: Shape(x), a Gather of one
// dim, a Mul by the number of heads, a Concat into the shape a Reshape
// takes. With a symbolic dim (a batch of any size) those values are known
// only when the model runs, but most of their elements are known while
// compiling. This follows them element by element (kNone where unknown), so
// that a Reshape can take the known sizes and infer the one unknown (-1),
// and a Slice its known bounds.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

using namespace ember;
using namespace ember::onnx::detail;

namespace {

/// The integer attribute list `name`, or `otherwise`.
std::vector<int64_t> intsOf(const ::onnx::NodeProto &node, const std::string &name,
                            std::vector<int64_t> otherwise = {}) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return {a.ints().begin(), a.ints().end()};
  return otherwise;
}

std::optional<int64_t> intOf(const ::onnx::NodeProto &node, const std::string &name) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return a.i();
  return std::nullopt;
}

/// Input i's values if it is known entirely (a constant).
const PartialValue *known(const std::vector<std::optional<PartialValue>> &inputs, size_t i) {
  if (i >= inputs.size() || !inputs[i])
    return nullptr;
  for (int64_t v : inputs[i]->values)
    if (v == kNone)
      return nullptr;
  return &*inputs[i];
}

std::optional<PartialValue> arithmetic(const std::string &type, const PartialValue &a,
                                       const PartialValue &b) {
  size_t n = std::max(a.values.size(), b.values.size());
  if ((a.values.size() != n && a.values.size() != 1) || (b.values.size() != n && b.values.size() != 1))
    return std::nullopt;
  PartialValue out{{}, a.scalar && b.scalar};
  for (size_t i = 0; i < n; ++i) {
    int64_t x = a.values[a.values.size() == 1 ? 0 : i], y = b.values[b.values.size() == 1 ? 0 : i];
    if (x == kNone || y == kNone) {
      out.values.push_back(kNone);
      continue;
    }
    if (type == "Add")
      out.values.push_back(x + y);
    else if (type == "Sub")
      out.values.push_back(x - y);
    else if (type == "Mul")
      out.values.push_back(x * y);
    else if (y == 0) // Div
      return std::nullopt;
    else
      out.values.push_back(x / y); // integers truncate, as ONNX's Div
  }
  return out;
}

} // namespace

std::optional<PartialValue>
ember::onnx::detail::partialValueOf(const ::onnx::NodeProto &node, int64_t opset,
                                    const std::vector<std::optional<PartialValue>> &inputs,
                                    const Tensor *first) {
  const std::string &type = node.op_type();
  if (type == "Shape") {
    if (!first)
      return std::nullopt;
    int64_t rank = first->rank();
    int64_t start = intOf(node, "start").value_or(0), end = intOf(node, "end").value_or(rank);
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
    PartialValue out;
    for (int64_t d = start; d < end; ++d)
      out.values.push_back(first->shape()[static_cast<int>(d)]);
    return out;
  }
  if (inputs.empty() || !inputs[0])
    return std::nullopt;
  const PartialValue &data = *inputs[0];
  if (type == "Identity")
    return data;
  if (type == "Cast") {
    std::optional<int64_t> to = intOf(node, "to");
    if (to != ::onnx::TensorProto::INT64 && to != ::onnx::TensorProto::INT32)
      return std::nullopt;
    return data;
  }
  if (type == "Add" || type == "Sub" || type == "Mul" || type == "Div")
    return inputs.size() == 2 && inputs[1] ? arithmetic(type, data, *inputs[1]) : std::nullopt;
  if (type == "Gather") {
    const PartialValue *indices = known(inputs, 1);
    if (data.scalar || !indices || intOf(node, "axis").value_or(0) != 0)
      return std::nullopt;
    PartialValue out{{}, indices->scalar};
    int64_t size = static_cast<int64_t>(data.values.size());
    for (int64_t i : indices->values) {
      if (i < -size || i >= size)
        return std::nullopt;
      out.values.push_back(data.values[static_cast<size_t>(i < 0 ? i + size : i)]);
    }
    return out;
  }
  if (type == "Unsqueeze") { // a scalar into a 1-D value
    std::vector<int64_t> axes = opset >= 13 ? (known(inputs, 1) ? known(inputs, 1)->values
                                                                : std::vector<int64_t>{})
                                            : intsOf(node, "axes");
    if (!data.scalar || axes.size() != 1 || (axes[0] != 0 && axes[0] != -1))
      return std::nullopt;
    return PartialValue{data.values, false};
  }
  if (type == "Squeeze") { // a 1-D value of one element into a scalar
    if (data.scalar || data.values.size() != 1)
      return std::nullopt;
    return PartialValue{data.values, true};
  }
  if (type == "Concat") {
    PartialValue out;
    for (const auto &input : inputs) {
      if (!input || input->scalar)
        return std::nullopt;
      out.values.insert(out.values.end(), input->values.begin(), input->values.end());
    }
    return out;
  }
  if (type == "Slice") { // along the one axis, with known bounds
    std::vector<int64_t> starts, ends, steps = {1};
    if (opset < 10) {
      starts = intsOf(node, "starts");
      ends = intsOf(node, "ends");
    } else {
      const PartialValue *s = known(inputs, 1), *e = known(inputs, 2);
      if (!s || !e || (inputs.size() > 4 && inputs[4] && !known(inputs, 4)))
        return std::nullopt;
      starts = s->values;
      ends = e->values;
      if (inputs.size() > 4 && inputs[4])
        steps = inputs[4]->values;
    }
    if (data.scalar || starts.size() != 1 || ends.size() != 1 || steps.size() != 1 ||
        steps[0] != 1)
      return std::nullopt;
    int64_t size = static_cast<int64_t>(data.values.size());
    int64_t s = starts[0] < 0 ? std::max<int64_t>(starts[0] + size, 0) : std::min(starts[0], size);
    int64_t e = ends[0] < 0 ? std::max<int64_t>(ends[0] + size, 0) : std::min(ends[0], size);
    PartialValue out;
    for (int64_t i = s; i < e; ++i)
      out.values.push_back(data.values[static_cast<size_t>(i)]);
    return out;
  }
  return std::nullopt;
}
