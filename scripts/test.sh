#!/usr/bin/env bash
# Builds ember and runs every test: lit (dialect, passes, pipeline, JIT,
# examples) and the GoogleTest suites, through ctest; then the same suite
# built with ASan + UBSan (scripts/test-sanitizers.sh, about 4 more minutes
# from clean on 2 cores; EMBER_SKIP_SANITIZERS=1 skips it while iterating).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j2
if [[ "${EMBER_SKIP_SANITIZERS:-0}" != 1 ]]; then
  "$root/scripts/test-sanitizers.sh"
fi
