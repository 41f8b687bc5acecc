#!/usr/bin/env bash
# Builds ember and runs the eager examples (stories A1-A4, A6).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
for example in a1_eager_matmul a2_print_tensor a3_broadcasting a4_operator_overloading a6_fizzbuzz; do
  echo "== $example"
  "$build/bin/$example"
done
