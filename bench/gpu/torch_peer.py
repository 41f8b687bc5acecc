"""PyTorch on the problems of ember-gpu-bench, timed the same way (host wall
time per call; a sample of N calls ends with one synchronize, "_synchronized"
rows wait after every call), in the same run on the GPU machine. Prints
"<name> <value> <unit>" lines like ember's benchmarks."""
import sys
import time

import torch


def median_seconds(fn, repeats, iterations):
    samples = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(iterations):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / iterations)
    samples.sort()
    return samples[len(samples) // 2]


def report(name, value, unit):
    print(f"{name} {value:.6g} {unit}", flush=True)


def chain(x):
    t = x
    for op in range(8):
        t = t * 1.0001 if op % 3 == 0 else (t + 0.5 if op % 3 == 1 else torch.maximum(t, x))
    return t


def main():
    device = torch.device("cuda")
    a = torch.ones(10, 10, device=device)
    b = torch.ones(10, 10, device=device)

    def add():
        torch.add(a, b)

    def add_synchronized():
        torch.add(a, b)
        torch.cuda.synchronize()

    report("torch.gpu.add10_eager", median_seconds(add, 5, 20000) * 1e6, "us/call")
    report("torch.gpu.add10_eager_synchronized", median_seconds(add_synchronized, 5, 5000) * 1e6,
           "us/call")

    x = torch.eye(10, device=device) * 0.9

    def power():
        r = torch.eye(10, device=device)
        for _ in range(100):
            r = r @ x

    report("torch.gpu.power100_eager", median_seconds(power, 5, 20) * 1e6, "us/call")

    big = torch.full((16384, 4096), 0.25, device=device)

    def chain_eager():
        chain(big)

    compiled = torch.compile(chain)
    compiled(big)

    def chain_compiled():
        compiled(big)

    report("torch.gpu.chain8_eager", median_seconds(chain_eager, 7, 20) * 1e3, "ms/call")
    seconds = median_seconds(chain_compiled, 7, 20)
    report("torch.gpu.chain8_compiled", seconds * 1e3, "ms/call")
    report("torch.gpu.chain8_compiled_bandwidth", 2 * big.numel() * 4 / seconds / 1e12, "TB/s")

    ones = torch.ones(1 << 24, device=device)
    seconds = median_seconds(lambda: torch.sum(ones), 7, 20)
    report("torch.gpu.reduce_sum_16m", seconds * 1e3, "ms/call")
    report("torch.gpu.reduce_sum_16m_bandwidth", 4 * ones.numel() / seconds / 1e12, "TB/s")
    square = torch.full((4096, 4096), 0.5, device=device)
    seconds = median_seconds(lambda: torch.amax(square, dim=1), 7, 20)
    report("torch.gpu.row_max_4096x4096", seconds * 1e3, "ms/call")
    report("torch.gpu.row_max_bandwidth", 4 * square.numel() / seconds / 1e12, "TB/s")

    # The MLP 784-256-256-10 training step, batch 64, eager (autograd + SGD).
    params = [torch.full(shape, 0.01, device=device, requires_grad=True)
              for shape in [(784, 256), (256,), (256, 256), (256,), (256, 10), (10,)]]
    xb = torch.full((64, 784), 0.5, device=device)
    yb = torch.arange(64, device=device) % 10

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h = torch.relu(xb @ w1 + b1)
        h = torch.relu(h @ w2 + b2)
        loss = torch.nn.functional.cross_entropy(h @ w3 + b3, yb)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= 0.1 * g

    report("torch.gpu.mlp_step_batch64_eager", median_seconds(step, 7, 50) * 1e6, "us/step")

    gemms(device)

    # A 64 MB batch to the GPU from pageable and from pinned memory.
    pageable = torch.rand(16 << 20)
    pinned = pageable.pin_memory()
    seconds = median_seconds(lambda: pageable.to(device), 7, 5)
    report("torch.gpu.copy_64mb_pageable", pageable.numel() * 4 / seconds / 1e9, "GB/s")
    seconds = median_seconds(lambda: pinned.to(device, non_blocking=True), 7, 10)
    report("torch.gpu.copy_64mb_pinned", pinned.numel() * 4 / seconds / 1e9, "GB/s")

    c2_steps(device)


def gemms(device):
    """cuBLAS: SGEMM 4096 without TF32 and with, and the 16-bit GEMMs 8192."""
    ga = torch.full((4096, 4096), 0.5, device=device)
    gb = torch.full((4096, 4096), 0.5, device=device)
    torch.backends.cuda.matmul.allow_tf32 = False

    def sgemm():
        ga @ gb

    seconds = median_seconds(sgemm, 5, 10)
    report("torch.gpu.sgemm4096_cublas", seconds * 1e3, "ms/call")
    report("torch.gpu.sgemm4096_cublas_rate", 2 * 4096**3 / seconds / 1e12, "TFLOP/s")
    torch.backends.cuda.matmul.allow_tf32 = True
    seconds = median_seconds(sgemm, 5, 10)
    report("torch.gpu.tf32gemm4096_cublas", seconds * 1e3, "ms/call")
    report("torch.gpu.tf32gemm4096_cublas_rate", 2 * 4096**3 / seconds / 1e12, "TFLOP/s")
    torch.backends.cuda.matmul.allow_tf32 = False

    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float16, "f16")):
        ha = torch.full((8192, 8192), 0.5, device=device, dtype=dtype)
        hb = torch.full((8192, 8192), 0.5, device=device, dtype=dtype)
        seconds = median_seconds(lambda: ha @ hb, 5, 5)
        report(f"torch.gpu.hgemm8192_{name}_cublas", seconds * 1e3, "ms/call")
        report(f"torch.gpu.hgemm8192_{name}_cublas_rate", 2 * 8192**3 / seconds / 1e12,
               "TFLOP/s")
        del ha, hb


def c2_steps(device):
    """Story C2's training step (bench/gpu/c2.h): Conv2d(16, 3x3, relu) x2,
    global average pooling, Linear(10), cross-entropy from logits, Adam;
    eager and under torch.compile, at batches of 32 and 256."""
    torch.manual_seed(1)
    for batch in (32, 256):
        for compiled in (False, True):
            model = torch.nn.Sequential(
                torch.nn.Conv2d(1, 16, 3), torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3),
                torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                torch.nn.Linear(16, 10)).to(device)
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            x = torch.rand(batch, 1, 28, 28, device=device)
            y = torch.arange(batch, device=device) % 10

            def step():
                opt.zero_grad(set_to_none=True)
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                return loss

            run = torch.compile(step) if compiled else step
            start = time.perf_counter()
            run()
            torch.cuda.synchronize()
            name = f"torch.gpu.c2_step_batch{batch}_{'compiled' if compiled else 'eager'}"
            report(name + "_first_call", (time.perf_counter() - start) * 1e3, "ms")
            report(name, median_seconds(run, 7, 50) * 1e6, "us/step")


if __name__ == "__main__":
    # "gemms": cuBLAS's GEMMs alone (a short GPU session).
    if sys.argv[1:] == ["gemms"]:
        gemms(torch.device("cuda"))
    else:
        main()
