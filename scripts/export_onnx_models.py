"""Exports the real models of the ONNX importer's tests with Debian's torch
1.13 (offline: random weights, seeded) into the node tests' layout:

  OUT/<name>/model.onnx
  OUT/<name>/test_data_set_<k>/input_0.pb, output_0.pb    (PyTorch's outputs)
  OUT/<name>/test_data_set_<k>/input_0.bin, output_0.bin  (raw little-endian float32,
                                                           for the C programs)

one data set per batch size, the batch a symbolic dim ("batch") of the model.

  mlp          784-256-128-10, ReLU
  resnet18     torchvision's ResNet-18 (weights=None), 3x64x64 images, eval mode
  transformer  nn.TransformerEncoder, 2 layers, d_model 128, 4 heads,
               batch_first=False (sequence 12, batch dim 1)
  lstm         nn.LSTM 16 -> 32, 2 layers, bidirectional (sequence 7, batch dim 1)
  gru          nn.GRU 16 -> 32, bidirectional, batch_first (sequence 7);
               torch exports it with linear_before_reset

  (named only: resnet18_224, ResNet-18 on 3x224x224; transformer_seq128, the
  transformer on sequence 128)

usage: /usr/bin/python3 export_onnx_models.py OUT [NAME...]
"""
import os
import sys

import numpy as np
import torch
from onnx import numpy_helper


def mlp():
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    return model, lambda batch: torch.randn(batch, 784), {0: "batch"}


def resnet18():
    import torchvision
    model = torchvision.models.resnet18(weights=None)
    return model, lambda batch: torch.randn(batch, 3, 64, 64), {0: "batch"}


def transformer():
    layer = torch.nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256,
                                             dropout=0.0, batch_first=False)
    model = torch.nn.TransformerEncoder(layer, num_layers=2)
    return model, lambda batch: torch.randn(12, batch, 128), {1: "batch"}


class SequenceOutput(torch.nn.Module):
    """A recurrent layer's output sequence alone (not its final states)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)[0]


def lstm():
    model = SequenceOutput(torch.nn.LSTM(16, 32, num_layers=2, bidirectional=True))
    return model, lambda batch: torch.randn(7, batch, 16), {1: "batch"}


def gru():
    model = SequenceOutput(torch.nn.GRU(16, 32, bidirectional=True, batch_first=True))
    return model, lambda batch: torch.randn(batch, 7, 16), {0: "batch"}


def resnet18_224():
    import torchvision
    model = torchvision.models.resnet18(weights=None)
    return model, lambda batch: torch.randn(batch, 3, 224, 224), {0: "batch"}


def transformer_seq128():
    model, _, axes = transformer()
    return model, lambda batch: torch.randn(128, batch, 128), axes


MODELS = {"mlp": mlp, "resnet18": resnet18, "transformer": transformer, "lstm": lstm, "gru": gru}
# Exported when named (bench/onnx_models.sh): the sizes the figures take.
BENCH_MODELS = {"resnet18_224": resnet18_224, "transformer_seq128": transformer_seq128}
BATCHES = [1, 3]


def write(path, array, name):
    with open(path + ".pb", "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())
    array.astype("<f4").tofile(path + ".bin")


def export(out, name):
    torch.manual_seed(0)
    model, example, batch_axes = {**MODELS, **BENCH_MODELS}[name]()
    model.eval()
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(model, example(2), os.path.join(folder, "model.onnx"),
                          input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": batch_axes, "output": batch_axes},
                          opset_version=17)
        for k, batch in enumerate(BATCHES):
            data = os.path.join(folder, "test_data_set_%d" % k)
            os.makedirs(data, exist_ok=True)
            x = example(batch)
            write(os.path.join(data, "input_0"), x.numpy(), "input")
            write(os.path.join(data, "output_0"), model(x).numpy(), "output")


if __name__ == "__main__":
    for name in sys.argv[2:] or MODELS:
        export(sys.argv[1], name)
