#!/usr/bin/env bash
# Builds ember and runs every test: lit (dialect, passes, pipeline, JIT,
# examples) and the GoogleTest suites, through ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j2
