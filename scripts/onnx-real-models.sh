#!/usr/bin/env bash
# Real models through the ONNX importer (issue 28), exported offline by
# Debian's torch 1.13 (scripts/export_onnx_models.py: an MLP, ResNet-18, a
# TransformerEncoder, and through the JIT only a bidirectional LSTM and GRU;
# random weights, batch sizes 1 and 3):
#   scripts/onnx-real-models.sh [BUILD_DIR]
# 1. JIT: ember::onnx::load, each batch size against PyTorch's outputs
#    (rtol 1e-4; an absolute tolerance of 1e-4 times the output's largest
#    magnitude);
# 2. ahead of time: ember-compile model.onnx into a C program, the same data;
#    the symbolic batch stays `?`, one object serves both sizes (the
#    transformer's attention reshapes by sizes computed from the batch).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
models=$build/onnx-models
if [[ ! -f $models/.complete ]]; then
  rm -rf "$models"
  /usr/bin/python3 "$root/scripts/export_onnx_models.py" "$models" > /dev/null 2>&1
  touch "$models/.complete"
fi
"$build/bin/ember-onnx-node-tests" "$models" --rtol 1e-4 --scaled-atol 1e-4 --must-pass

cc() { # DIR RESULT_RANK
  clang-22 -std=c99 -O1 -Wall -Werror -I"$1" -I"$root/runtime/include" -DONNX_RESULT_RANK="$2" \
    -c "$root/test/ONNX/call_onnx_model.c" -o "$1/main.o"
  clang-22 -fuse-ld=lld "$1/main.o" "$1/model.o" -L"$build/lib" -lemberrt -Wl,-rpath,"$build/lib" \
    -lomp -lstdc++ -lm -ldl -lpthread -o "$1/main"; }
check() { # DIR DATASET DIM...
  local dir=$1 data=$1/$2; shift 2
  printf '%s %s: ' "$(basename "$dir")" "$(basename "$data")"
  "$dir/aot/main" "$data/input_0.bin" "$data/output_0.bin" "$@"
}
# One object each, for every batch size (the symbolic dim stays `?`).
for model in mlp:2 resnet18:2 transformer:3; do
  name=${model%:*} dir=$models/${model%:*}; mkdir -p "$dir/aot"
  "$build/bin/ember-compile" "$dir/model.onnx" -o "$dir/aot/model.o" --header "$dir/aot/model.h"
  cc "$dir/aot" "${model#*:}"
done
check "$models/mlp" test_data_set_0 1 784
check "$models/mlp" test_data_set_1 3 784
check "$models/resnet18" test_data_set_0 1 3 64 64
check "$models/resnet18" test_data_set_1 3 3 64 64
check "$models/transformer" test_data_set_0 12 1 128
check "$models/transformer" test_data_set_1 12 3 128
