#!/usr/bin/env python3
"""Prints seeded random arrays with numpy and with ember, and compares the text.

ember's printer follows numpy 1.24 (Debian 12's python3-numpy, installed by
scripts/setup.sh). The arrays mix magnitudes from 1e-8 to 1e12, integers that
float32 and float16 cannot hold exactly, zeros, nan and inf, 0-d to 3-d shapes
and arrays large enough to be summarised, in float16, float32 and float64.

usage: compare_with_numpy.py PRINT_NPY_BINARY
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    # pyenv and virtual environments may hide Debian's numpy.
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("numpy is missing: run scripts/setup.sh (python3-numpy)")


def random_values(rng, count):
    kind = rng.integers(0, 6)
    if kind == 0:  # one magnitude
        return rng.standard_normal(count) * 10.0 ** rng.integers(-8, 12)
    if kind == 1:  # integers, some beyond float16's and float32's exact range
        return np.round(rng.standard_normal(count) * 10.0 ** rng.integers(0, 10))
    if kind == 2:  # magnitudes spread over several decades
        return rng.uniform(-1, 1, count) * 10.0 ** rng.integers(-6, 9, count)
    if kind == 3:  # powers of ten near the cut-offs (1e-4, 1e8, a 1e3 ratio)
        return rng.choice([-1, 1], count) * 10.0 ** rng.integers(-5, 10, count)
    if kind == 4:  # ratios near 1e3
        return rng.choice([1.0, 999.0, 1000.0, 1000.5, 1001.0, 0.5], count)
    values = rng.standard_normal(count) * 100  # with nan, inf and zeros
    values[rng.random(count) < 0.3] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0])
    return values


def main():
    binary = sys.argv[1]
    rng = np.random.default_rng(2024)
    shapes = [(), (1,), (2,), (5,), (3, 4), (2, 2, 3), (12,), (1200,), (40, 30)]
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(900):
            shape = shapes[i % len(shapes)]
            dtype = ["float16", "float32", "float64"][(i // len(shapes)) % 3]
            values = random_values(rng, int(np.prod(shape, dtype=np.int64)))
            with np.errstate(over="ignore", invalid="ignore"):
                array = values.astype(dtype).reshape(shape)
            path = os.path.join(tmp, f"{i}.npy")
            np.save(path, array)
            cases.append((path, array))
        out = subprocess.run([binary] + [p for p, _ in cases], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"{binary} failed: {out.stderr}")
    printed = out.stdout.split("\x1e")[:-1]
    if len(printed) != len(cases):
        sys.exit(f"expected {len(cases)} records, got {len(printed)}")
    mismatches = 0
    for (path, array), got in zip(cases, printed):
        expected = str(array)
        if got != expected:
            mismatches += 1
            if mismatches <= 10:
                print(f"{array.dtype} {array.shape} {array.ravel()[:8].tolist()}\n"
                      f"  numpy: {expected!r}\n  ember: {got!r}")
    print(f"{len(cases) - mismatches} of {len(cases)} arrays print as numpy "
          f"{np.__version__} prints them")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
