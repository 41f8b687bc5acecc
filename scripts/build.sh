#!/usr/bin/env bash
# Configures and builds ember in ./build (or $EMBER_BUILD_DIR) with clang-22,
# lld and ccache. Extra arguments go to cmake (e.g. -DEMBER_BUILD_BENCH=ON);
# $EMBER_BUILD_TARGETS, when set, names the targets to build (default: all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
# Paths relative to the checkout, so that clones (CI) share ccache entries.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DLLVM_USE_LINKER=lld \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  "$@"
cmake --build "$build" ${EMBER_BUILD_TARGETS:+--target $EMBER_BUILD_TARGETS}
