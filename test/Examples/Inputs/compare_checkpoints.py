#!/usr/bin/env python3
"""Compares the tensors of two safetensors checkpoints.

Prints how many tensors they hold and whether every value agrees within a
relative tolerance (|a - b| <= tol * (1 + max |a| of that tensor)); exits 1
if the names, shapes or dtypes differ or a value is out of tolerance.

usage: compare_checkpoints.py A.safetensors B.safetensors TOLERANCE
"""

import json
import struct
import sys

FORMATS = {"F32": "f", "F64": "d", "I32": "i", "I64": "q"}


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        code = FORMATS[entry["dtype"]]
        raw = data[8 + length + begin : 8 + length + end]
        values = struct.unpack("<%d%s" % (len(raw) // struct.calcsize(code), code), raw)
        tensors[name] = (entry["dtype"], tuple(entry["shape"]), values)
    return tensors


def main():
    a, b, tolerance = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
    if a.keys() != b.keys():
        sys.exit("different tensors: %s vs %s" % (sorted(a), sorted(b)))
    worst = 0.0
    for name in sorted(a):
        (dtype, shape, x), (dtype2, shape2, y) = a[name], b[name]
        if (dtype, shape) != (dtype2, shape2):
            sys.exit("%s: %s%s vs %s%s" % (name, dtype, shape, dtype2, shape2))
        scale = 1 + max((abs(v) for v in x), default=0)
        for u, v in zip(x, y):
            worst = max(worst, abs(u - v) / scale)
    print("%d tensors, %s" % (len(a), "the same" if worst <= tolerance else "DIFFERENT"))
    print("largest relative difference: %.3g" % worst, file=sys.stderr)
    return 0 if worst <= tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
