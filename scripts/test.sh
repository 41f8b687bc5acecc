#!/usr/bin/env bash
# Builds ember and runs every test: lit (dialect, passes, pipeline, JIT,
# examples) and the GoogleTest suites, through ctest (on an AVX-512 host a
# second time, compiling for AVX2 as other machines do); then the same suite
# built with ASan + UBSan (scripts/test-sanitizers.sh, about 4 more minutes
# from clean on 2 cores; EMBER_SKIP_SANITIZERS=1 skips it while iterating).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j2
# On an AVX-512 host, the suite again with the JIT compiling for a CPU
# without AVX-512 (EMBER_CPU=x86-64-v3: AVX2, 256-bit blocks), as machines
# without it run ember; its own disk cache, removed afterwards.
if grep -q avx512f /proc/cpuinfo; then
  avx2_cache=$(mktemp -d)
  EMBER_CPU=x86-64-v3 EMBER_CACHE_DIR="$avx2_cache" \
    ctest --test-dir "$build" --output-on-failure -j2
  rm -rf "$avx2_cache"
fi
if [[ "${EMBER_SKIP_SANITIZERS:-0}" != 1 ]]; then
  "$root/scripts/test-sanitizers.sh"
fi
