"""Writes small ONNX models for the importer's tests (onnx.helper, Debian's
python3-onnx): python3 make_onnx_model.py KIND PATH

  mlp          y = softmax(relu(x @ W1 + b1) @ W2 + b2), x: float32[batch, 3]
               ("batch" symbolic), the weights fixed initializers
  conv         a Conv of x: float32[1, 1, 3, 3] with an initializer W [2, 1, 2, 2]
               (W[o, 0, h, w] = 1 + 4 o + 2 h + w), then a Gemm with transB = 1
  unsupported  a node of an op ember does not import (Det)
  bad-attr     a MaxPool with storage_order = 1 (an attribute value ember refuses)
"""
import sys

from onnx import TensorProto, helper, save


def mlp():
    w1 = helper.make_tensor("W1", TensorProto.FLOAT, [3, 4],
                            [0.1 * (i - 5) for i in range(12)])
    b1 = helper.make_tensor("b1", TensorProto.FLOAT, [4], [0.5, -0.25, 0.0, 1.0])
    w2 = helper.make_tensor("W2", TensorProto.FLOAT, [4, 2],
                            [0.3, -0.2, 0.1, 0.4, -0.5, 0.6, 0.2, -0.1])
    b2 = helper.make_tensor("b2", TensorProto.FLOAT, [2], [0.05, -0.05])
    nodes = [
        helper.make_node("MatMul", ["x", "W1"], ["h0"], name="fc1"),
        helper.make_node("Add", ["h0", "b1"], ["h1"], name="bias1"),
        helper.make_node("Relu", ["h1"], ["h2"], name="relu"),
        helper.make_node("Gemm", ["h2", "W2", "b2"], ["logits"], name="fc2"),
        helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2])],
        [w1, b1, w2, b2])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def conv():
    w = helper.make_tensor("W", TensorProto.FLOAT, [2, 1, 2, 2], [float(1 + i) for i in range(8)])
    f = helper.make_tensor("F", TensorProto.FLOAT, [3, 8], [0.5 * i for i in range(24)])
    nodes = [
        helper.make_node("Conv", ["x", "W"], ["c"], name="conv"),
        helper.make_node("Flatten", ["c"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "F"], ["y"], name="fc", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
        [w, f])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def unsupported():
    graph = helper.make_graph(
        [helper.make_node("Det", ["x"], ["y"], name="determinant")], "det",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def bad_attr():
    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2],
                          strides=[2, 2], storage_order=1)], "pool",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 1, 1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


kind, path = sys.argv[1], sys.argv[2]
save({"mlp": mlp, "conv": conv, "unsupported": unsupported, "bad-attr": bad_attr}[kind](), path)
