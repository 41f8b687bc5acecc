#!/usr/bin/env bash
# Imported ONNX models (issue 28) against PyTorch on the same models, one
# thread each, recorded in bench/RESULTS.md:
#   scripts/setup.sh --bench && bench/onnx_models.sh
# The models: scripts/export_onnx_models.py (MLP, ResNet-18, a 2-layer
# TransformerEncoder; batch 3), through ember::onnx::load and the JIT.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" -DEMBER_BUILD_BENCH=ON > /dev/null
export EMBER_NUM_THREADS=1 OMP_NUM_THREADS=1
models=$build/onnx-models
if [[ ! -f $models/.complete ]]; then
  /usr/bin/python3 "$root/scripts/export_onnx_models.py" "$models" > /dev/null 2>&1
  touch "$models/.complete"
fi
echo "Machine: $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), one thread"
for round in 1 2; do
  EMBER_CACHE_DIR=$(mktemp -d) "$build/bin/onnx_bench" "$models/mlp" "$models/resnet18" \
    "$models/transformer" | sed "s/^/round$round. /"
  /usr/bin/python3 "$root/bench/torch_onnx_peer.py" "$models" mlp resnet18 transformer |
    sed "s/^/round$round. /"
done
