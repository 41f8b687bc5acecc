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
# The shared runtime, as a C user links it: -lemberrt, found by its SONAME.
prefix=$work/prefix
libdir=$(dirname "$(find "$prefix" -name libemberrt.so | head -1)")
readelf -d "$libdir/libemberrt.so" | grep -q 'SONAME.*\[libemberrt.so\]' ||
  { echo "libemberrt.so has another SONAME"; readelf -d "$libdir/libemberrt.so" | grep SONAME; exit 1; }
"$prefix/bin/ember-compile" "$inputs/add.mlir" -o "$work/add.o" --header "$work/add.h"
clang-22 -I"$work" -I"$prefix/include" "$inputs/call_add.c" "$work/add.o" -L"$libdir" -lemberrt \
  -o "$work/call_shared"
echo -n "shared runtime: "
LD_LIBRARY_PATH=$libdir "$work/call_shared"
