#!/usr/bin/env bash
# The ONNX backend's node tests through ember::onnx (issue 28):
#   scripts/onnx-node-tests.sh [BUILD_DIR] [--table]
# generates the tests of Debian's python3-onnx once (offline: the generators
# ship with the package; ~900 models, 28 MB, a few seconds) into
# BUILD_DIR/onnx-node-tests, then runs every one. Fails on a wrong answer, or
# on a test that docs/ONNX_CONFORMANCE.md marks "pass" and that no longer
# passes; then the same with every input dim symbolic and each model compiled
# once for any sizes (docs/ONNX_CONFORMANCE_DYNAMIC.md). --table rewrites
# both files from this run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
data=$build/onnx-node-tests
if [[ ! -f $data/.complete ]]; then
  rm -rf "$data"
  # onnx 1.12's generators still use numpy aliases that numpy 1.24 removed.
  /usr/bin/python3 - "$data" <<'PY' > /dev/null
import sys, warnings
import numpy as np
warnings.simplefilter("ignore")
for alias, kind in [("float", float), ("int", int), ("bool", bool), ("object", object)]:
    if alias not in np.__dict__:
        setattr(np, alias, kind)
from onnx.backend.test.cmd_tools import main
sys.argv = ["onnx-cmd-tools", "generate-data", "-o", sys.argv[1]]
main()
PY
  touch "$data/.complete"
fi
# As generated, then with every input dim symbolic (one compile for any sizes).
status=0
for mode in static dynamic; do
  doc=$root/docs/ONNX_CONFORMANCE.md flags=()
  if [[ $mode == dynamic ]]; then
    doc=$root/docs/ONNX_CONFORMANCE_DYNAMIC.md flags=(--dynamic)
  fi
  [[ "${2:-}" == "--table" ]] && flags+=(--table "$doc")
  echo "== $mode inputs"
  "$build/bin/ember-onnx-node-tests" "$data/node" --expect "$doc" "${flags[@]}" || status=1
done
exit $status
