"""PyTorch's side of story C2's full run on the GPU (ember's is
`ember-gpu-jit --c2 --device cuda ...`, examples/c2_image_classifier.cpp): the
same model (channels first, Keras's initialization: Glorot-uniform kernels,
zero biases), Adam 1e-3, batches of 32 (the remainder dropped) in a shuffled
order each epoch, each batch copied from the host, 3 epochs on Fashion-MNIST,
then the test accuracy. bench/torch_c2_train.cpp is the CPU's (LibTorch).

    python3 torch_c2_train.py [DIR] [EPOCHS] [SEED] [float32|mixed_bfloat16]

mixed_bfloat16 runs the forward pass and the loss under
`torch.autocast("cuda", torch.bfloat16)` (float32 weights, bfloat16
convolutions and matmuls): PyTorch's peer of Keras's policy, which
`--policy mixed_bfloat16` gives ember's example.
"""
import gzip
import sys
import time

import numpy as np
import torch


def idx(path, header):
    """An IDX file's values: `path`.gz, else `path` as it is (as ember reads them)."""
    try:
        with gzip.open(path + ".gz", "rb") as f:
            data = f.read()
    except FileNotFoundError:
        with open(path, "rb") as f:
            data = f.read()
    return np.frombuffer(data, dtype=np.uint8, offset=header)


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/datasets/fashion-mnist"
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    torch.manual_seed(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    policy = sys.argv[4] if len(sys.argv) > 4 else "float32"
    if policy not in ("float32", "mixed_bfloat16"):
        sys.exit(f"policy {policy}: expected float32 or mixed_bfloat16")
    autocast = lambda: torch.autocast("cuda", torch.bfloat16, enabled=policy == "mixed_bfloat16")
    device = torch.device("cuda")
    start = time.perf_counter()
    x_train = torch.from_numpy(idx(f"{data}/train-images-idx3-ubyte", 16).copy())
    x_train = x_train.reshape(-1, 1, 28, 28).float() / 255
    y_train = torch.from_numpy(idx(f"{data}/train-labels-idx1-ubyte", 8).astype(np.int64))
    x_test = torch.from_numpy(idx(f"{data}/t10k-images-idx3-ubyte", 16).copy())
    x_test = x_test.reshape(-1, 1, 28, 28).float() / 255
    y_test = torch.from_numpy(idx(f"{data}/t10k-labels-idx1-ubyte", 8).astype(np.int64))

    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3), torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10))
    for name, p in model.named_parameters():
        torch.nn.init.zeros_(p) if "bias" in name else torch.nn.init.xavier_uniform_(p)
    model.to(device)
    adam = torch.optim.Adam(model.parameters(), lr=1e-3)
    batch = 32
    steps = x_train.shape[0] // batch
    for epoch in range(1, epochs + 1):
        order = torch.randperm(x_train.shape[0])
        loss_sum = 0.0
        for s in range(steps):
            rows = order[s * batch:(s + 1) * batch]
            xb, yb = x_train[rows].to(device), y_train[rows].to(device)
            adam.zero_grad(set_to_none=True)
            with autocast():
                loss = torch.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            adam.step()
            loss_sum += loss.item()  # as ember's loop reads each step's loss
        print(f"torch epoch {epoch}: mean loss {loss_sum / steps:.4f}", flush=True)
    right = 0
    with torch.no_grad():
        for s in range(0, x_test.shape[0], 500):
            with autocast():
                logits = model(x_test[s:s + 500].to(device))
            right += (logits.argmax(1).cpu() == y_test[s:s + 500]).sum().item()
    name = "torch.gpu.c2" + ("" if policy == "float32" else "_" + policy)
    print(f"{name}_test_accuracy {right / x_test.shape[0]:.4f}")
    print(f"{name}_train_seconds {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
