#!/usr/bin/env bash
# Builds what the GPU machine runs (it has CUDA and the driver but no
# LLVM/MLIR): the GPU tests and the GPU benchmark, compiled ahead of time
# here and linked with ember's runtime alone, into gpu-bundle/ (ignored by
# git; carry it with the device tool's `carry: ["gpu-bundle"]`). The front
# end's GPU tests and benchmark (ember-gpu-jit) need the JIT: they are built
# in build-static with MLIR and LLVM linked in (EMBER_STATIC_LLVM), stripped
# and compressed with zstd (about 35 MB). There:
#   gpu-bundle/run.sh            the tests, the benchmarks, the PyTorch peer
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" >/dev/null
cmake --build "$build" --target emberrt-tests ember-gpu-tests ember-gpu-bench ember-compile emberrt
bundle="$root/gpu-bundle"
rm -rf "$bundle.tmp" && mkdir -p "$bundle.tmp"
cp "$build/bin/emberrt-tests" "$build/bin/ember-gpu-tests" "$build/bin/ember-gpu-bench" "$root/bench/gpu/torch_peer.py" "$bundle.tmp/"
strip "$bundle.tmp/emberrt-tests" "$bundle.tmp/ember-gpu-tests" "$bundle.tmp/ember-gpu-bench"
# ember-compile's GPU objects called from C (test/Tools/ember-compile-gpu.test).
aot=$(mktemp -d)
"$build/bin/ember-compile" "$root/test/Tools/Inputs/add.mlir" --target=cuda:sm_90 \
  -o "$aot/add.o" --header "$aot/add.h"
clang-22 -std=c99 -O2 -I"$aot" -I"$root/runtime/include" -c "$root/test/Tools/Inputs/call_add_gpu.c" \
  -o "$aot/main.o"
clang-22 -fuse-ld=lld "$aot/main.o" "$aot/add.o" "$build/runtime/libemberrt.a" -lstdc++ -lm -ldl \
  -lpthread -o "$bundle.tmp/ember-compile-gpu-example"
rm -rf "$aot"
EMBER_BUILD_DIR="$root/build-static" EMBER_BUILD_TARGETS=ember-gpu-jit \
  "$root/scripts/build.sh" -DEMBER_STATIC_LLVM=ON >/dev/null
strip -o "$bundle.tmp/ember-gpu-jit" "$root/build-static/bin/ember-gpu-jit"
zstd -q -19 --long -T0 --rm "$bundle.tmp/ember-gpu-jit"
# zstd itself, in case the GPU machine has none (it has libzstd).
cp "$(command -v zstd)" "$bundle.tmp/zstd"
cat > "$bundle.tmp/run.sh" <<'RUN'
#!/usr/bin/env bash
# On the GPU machine: tests, then ember's figures and PyTorch's in one run.
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$here/emberrt-tests" 2>&1 | tee "$out/runtime-tests.log" | tail -3
echo "ember-compile --target=cuda:sm_90, called from C: $("$here/ember-compile-gpu-example")"
"$here/ember-gpu-tests" 2>&1 | tee "$out/gpu-tests.log" | tail -3
# The kernels under CUDA's checkers: out-of-bounds and misaligned accesses
# (memcheck; the 256 MiB chain is left out for time) and shared-memory races
# between a block's threads (racecheck, on the kernels that use it).
sanitizer=/usr/local/cuda/bin/compute-sanitizer
if [[ -x $sanitizer ]]; then
  "$sanitizer" --tool memcheck "$here/ember-gpu-tests" --gtest_filter=-GpuKernels.LargeChain 2>&1 |
    tee "$out/gpu-memcheck.log" | tail -1
  "$sanitizer" --tool racecheck "$here/ember-gpu-tests" \
    --gtest_filter='GpuKernels.Matmul:GpuKernels.Softmax*:GpuKernels.Mlp*' 2>&1 |
    tee "$out/gpu-racecheck.log" | tail -1
fi
# The front end on the GPU through the JIT (unpacked into a private folder).
jit=$(mktemp -d)/ember-gpu-jit
"$here/zstd" -q -d "$here/ember-gpu-jit.zst" -o "$jit" && chmod +x "$jit"
export EMBER_CACHE_DIR=$(mktemp -d)
"$jit" 2>&1 | tee "$out/gpu-jit-tests.log" | grep -E '^\[  (FAILED|PASSED) |FAILED \]'
if [[ -x $sanitizer ]]; then # JIT-compiled kernels too; one-block kernels use barriers
  "$sanitizer" --tool memcheck "$jit" --gtest_filter='GpuJit.*:-GpuJit.Traced*' 2>&1 |
    tee "$out/gpu-jit-memcheck.log" | tail -1
  "$sanitizer" --tool racecheck "$jit" --gtest_filter='GpuJit.PowerOf*:GpuJit.Control*' 2>&1 |
    tee "$out/gpu-jit-racecheck.log" | tail -1
fi
"$here/ember-gpu-bench" 2>&1 | tee "$out/gpu-bench.log"
"$jit" --bench 2>&1 | tee "$out/gpu-jit-bench.log"
python3 "$here/torch_peer.py" 2>&1 | grep -v Warning | tee "$out/torch-peer.log"
RUN
chmod +x "$bundle.tmp/run.sh"
rm -rf "$bundle" && mv "$bundle.tmp" "$bundle"
du -sh "$bundle"
