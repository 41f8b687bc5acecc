#!/usr/bin/env python3
"""Prints each TFRecord of an event file decoded by `protoc --decode_raw`,
one line per record: "record N: <protoc's text, lines joined>"."""
import struct
import subprocess
import sys

data = open(sys.argv[1], "rb").read()
at, n = 0, 0
while at < len(data):
    (length,) = struct.unpack_from("<Q", data, at)
    payload = data[at + 12 : at + 12 + length]
    text = subprocess.run(["protoc", "--decode_raw"], input=payload, capture_output=True,
                          check=True).stdout.decode()
    print(f"record {n}: " + " ".join(line.strip() for line in text.splitlines()))
    at += 12 + length + 4
    n += 1
