#!/usr/bin/env bash
# Installs ember from build directory $1 into a temporary prefix, then builds
# and runs test/install/project against it: find_package(ember), the
# installed ember-compile, ember::runtime, and ember::ember (the JIT). Prints
# the programs' output.
set -euo pipefail
build=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > /dev/null
inputs="$here/../Tools/Inputs"
cmake -S "$here/project" -B "$work/build" -G Ninja -DCMAKE_C_COMPILER=clang-22 \
  -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DMODEL_MLIR="$inputs/add.mlir" \
  -DMAIN_C="$inputs/call_add.c" > /dev/null
cmake --build "$work/build" > /dev/null
ldd "$work/build/call_model" | grep -E 'LLVM|MLIR' && { echo "links LLVM or MLIR"; exit 1; }
"$work/build/call_model"
"$work/build/jit_program"
