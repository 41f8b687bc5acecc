"""PyTorch's side of bench/onnx_models.sh: the models of
scripts/export_onnx_models.py (the same seeds, so the same weights) called
on their test_data_set_1 input, eval mode, no_grad, one thread; the median
call in ms, as bench_util's report prints it.

usage: /usr/bin/python3 torch_onnx_peer.py MODELS_DIR NAME[:BATCH]...
(with a batch size, a random input of that batch instead)
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
MODELS = {**export_onnx_models.MODELS, **export_onnx_models.BENCH_MODELS}
for arg in sys.argv[2:]:
    name, _, batch = arg.partition(":")
    torch.manual_seed(0)
    model, example, _ = MODELS[name]()
    model.eval()
    if batch:
        x = example(int(batch))
    else:
        tensor = onnx.TensorProto()
        with open(os.path.join(sys.argv[1], name, "test_data_set_1", "input_0.pb"), "rb") as f:
            tensor.ParseFromString(f.read())
        x = torch.from_numpy(numpy_helper.to_array(tensor).copy())
    with torch.no_grad():
        model(x)
        once = time.perf_counter()
        model(x)
        once = time.perf_counter() - once
        repeat = max(1, min(20, int(0.2 / max(once, 1e-6))))
        samples = []
        for _ in range(7 if repeat > 1 else 5):
            start = time.perf_counter()
            for _ in range(repeat):
                model(x)
            samples.append((time.perf_counter() - start) / repeat)
    print("torch.%s_call %g ms" % (arg.replace(":", "_batch"), statistics.median(samples) * 1e3))
