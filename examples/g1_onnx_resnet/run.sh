#!/usr/bin/env bash
# Example G1: a model from PyTorch, compiled ahead of time by ember into a
# plain C program.
#   examples/g1_onnx_resnet/run.sh [BUILD_DIR]   (default: build)
# 1. export_resnet18.py (Debian's torch, /usr/bin/python3) exports ResNet-18
#    to ONNX, with a few test images, the class names and PyTorch's answers;
# 2. ember-compile compiles the .onnx file into an object and a C header;
# 3. clang compiles classify.c and links it with the object and ember's
#    runtime;
# 4. classify prints each image's top 5 classes, which must be PyTorch's.
# Everything it writes goes to BUILD_DIR/g1_onnx_resnet.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=$build/g1_onnx_resnet
mkdir -p "$out"

# 1. resnet18.onnx, labels.txt, *.ppm and torch_top5.txt.
/usr/bin/python3 "$here/export_resnet18.py" "$out"

# 2. resnet18.o, and resnet18.h declaring onnx_resnet18 (named after the ONNX
#    graph) and onnx_resnet18_result_sizes. The batch stays a `?` dim.
"$build/bin/ember-compile" "$out/resnet18.onnx" -o "$out/resnet18.o" --header "$out/resnet18.h"

# 3. A C99 program; ember's runtime needs the C++ library and OpenMP's.
clang-22 -std=c99 -pedantic -Wall -Werror -O2 -I"$out" -I"$root/runtime/include" \
  -c "$here/classify.c" -o "$out/classify.o"
clang-22 -fuse-ld=lld "$out/classify.o" "$out/resnet18.o" "$build/runtime/libemberrt.a" \
  -lomp -lstdc++ -lm -ldl -lpthread -o "$out/classify"

# 4. Classify, and compare with PyTorch.
cd "$out"
./classify labels.txt sunset.ppm ball.ppm checkerboard.ppm rings.ppm | tee c_top5.txt
/usr/bin/python3 "$here/export_resnet18.py" --compare torch_top5.txt c_top5.txt
