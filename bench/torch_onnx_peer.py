"""PyTorch's side of bench/onnx_models.sh: the models of
scripts/export_onnx_models.py (the same seeds, so the same weights) called
on their test_data_set_1 input, eval mode, no_grad, one thread; the median
call in ms, as bench_util's report prints it.

usage: /usr/bin/python3 torch_onnx_peer.py MODELS_DIR NAME...
"""
import os
import statistics
import sys
import time

import torch
from onnx import numpy_helper
import onnx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "scripts"))
import export_onnx_models  # noqa: E402

torch.set_num_threads(int(os.environ.get("EMBER_NUM_THREADS", "1")))
for name in sys.argv[2:]:
    torch.manual_seed(0)
    model, _, _ = export_onnx_models.MODELS[name]()
    model.eval()
    tensor = onnx.TensorProto()
    with open(os.path.join(sys.argv[1], name, "test_data_set_1", "input_0.pb"), "rb") as f:
        tensor.ParseFromString(f.read())
    x = torch.from_numpy(numpy_helper.to_array(tensor).copy())
    with torch.no_grad():
        model(x)
        samples = []
        for _ in range(7):
            start = time.perf_counter()
            for _ in range(20):
                model(x)
            samples.append((time.perf_counter() - start) / 20)
    print("torch.%s_call %g ms" % (name, statistics.median(samples) * 1e3))
