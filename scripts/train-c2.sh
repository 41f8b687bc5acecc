#!/usr/bin/env bash
# Story C2's full run: 3 epochs on all of Fashion-MNIST (60000 training
# images), the test accuracy on the 10000 test images, the loss plot, the
# checkpoint and the TensorBoard logs in ${1:-c2_output}; further arguments go
# to the example (e.g. --policy mixed_bfloat16). Builds what it needs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
EMBER_BUILD_TARGETS=c2_image_classifier "$root/scripts/build.sh" >/dev/null
build=${EMBER_BUILD_DIR:-$root/build}
out=${1:-c2_output}
shift $(($# > 0 ? 1 : 0))
/usr/bin/time -f "wall time %e s, peak RSS %M KiB" \
  "$build/bin/c2_image_classifier" --epochs 3 --out "$out" "$@"
