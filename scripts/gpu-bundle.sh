#!/usr/bin/env bash
# Builds what the GPU machine runs (it has CUDA and the driver but no
# LLVM/MLIR): the GPU tests and the GPU benchmark, compiled ahead of time
# here and linked with ember's runtime alone, into gpu-bundle/ (ignored by
# git; carry it with the device tool's `carry: ["gpu-bundle"]`). The front
# end's GPU tests and benchmark (ember-gpu-jit) need the JIT: they are built
# in build-static with MLIR and LLVM linked in (EMBER_STATIC_LLVM), stripped
# and compressed with xz (about 31 MB). There:
#   gpu-bundle/run.sh [GROUP...]  the tests, the benchmarks, the PyTorch peer
#                                (groups: tests bench peer ncu c2 sanitizers,
#                                and gemms; default all but gemms)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" >/dev/null
cmake --build "$build" --target emberrt-tests ember-gpu-tests ember-gpu-bench ember-compile emberrt
bundle="$root/gpu-bundle"
rm -rf "$bundle.tmp" && mkdir -p "$bundle.tmp"
cp "$build/bin/emberrt-tests" "$build/bin/ember-gpu-tests" "$build/bin/ember-gpu-bench" \
  "$root/bench/gpu/torch_peer.py" "$root/bench/gpu/torch_c2_train.py" "$bundle.tmp/"
# Fashion-MNIST for story C2's full run on the GPU, ember's and PyTorch's:
# the images recompressed with xz (27 MB rather than 31 MB of gzip, so that
# the bundle stays under the 64 MiB that travels; made once, kept in the
# build folder), the labels as they are. EMBER_BUNDLE_DATA=0 leaves it out.
data=/usr/share/datasets/fashion-mnist
if [[ ${EMBER_BUNDLE_DATA:-1} == 1 && -d $data ]]; then
  mkdir -p "$bundle.tmp/fashion-mnist" "$build/fashion-mnist-xz"
  for images in train-images-idx3-ubyte t10k-images-idx3-ubyte; do
    packed=$build/fashion-mnist-xz/$images.xz
    [[ -f $packed ]] || { zcat "$data/$images.gz" | xz -9e -T2 >"$packed.tmp" && mv "$packed.tmp" "$packed"; }
    cp "$packed" "$bundle.tmp/fashion-mnist/"
  done
  cp "$data"/*labels*.gz "$bundle.tmp/fashion-mnist/"
fi
strip "$bundle.tmp/emberrt-tests" "$bundle.tmp/ember-gpu-tests" "$bundle.tmp/ember-gpu-bench"
# ember-compile's GPU objects called from C (test/Tools/ember-compile-gpu.test).
aot=$(mktemp -d)
"$build/bin/ember-compile" "$root/test/Tools/Inputs/add.mlir" --target=cuda:sm_90 \
  -o "$aot/add.o" --header "$aot/add.h"
clang-22 -std=c99 -O2 -I"$aot" -I"$root/runtime/include" -c "$root/test/Tools/Inputs/call_add_gpu.c" \
  -o "$aot/main.o"
clang-22 -fuse-ld=lld "$aot/main.o" "$aot/add.o" "$build/runtime/libemberrt.a" -lstdc++ -lm -ldl \
  -lpthread -o "$bundle.tmp/ember-compile-gpu-example"
# And one object for every batch size (`?` dims; test/Tools/ember-compile-dynamic.test).
"$build/bin/ember-compile" "$root/test/Tools/Inputs/dynamic-batch.mlir" --target=cuda:sm_90 \
  -o "$aot/dynamic_batch_gpu.o" --header "$aot/dynamic_batch_gpu.h"
clang-22 -std=c99 -O2 -I"$aot" -I"$root/runtime/include" \
  -c "$root/test/Tools/Inputs/call_dynamic_batch_gpu.c" -o "$aot/dynamic_main.o"
clang-22 -fuse-ld=lld "$aot/dynamic_main.o" "$aot/dynamic_batch_gpu.o" "$build/runtime/libemberrt.a" \
  -lstdc++ -lm -ldl -lpthread -o "$bundle.tmp/ember-compile-gpu-dynamic"
rm -rf "$aot"
EMBER_BUILD_DIR="$root/build-static" EMBER_BUILD_TARGETS=ember-gpu-jit \
  "$root/scripts/build.sh" -DEMBER_STATIC_LLVM=ON >/dev/null
# xz (unpacked there by Python's lzma): 31 MB where zstd -19 gives 35; x86
# branch targets made absolute first (the BCJ filter) and one thread: 1 MB
# less, which the 64 MiB limit needed once the data came along.
strip -o "$bundle.tmp/ember-gpu-jit" "$root/build-static/bin/ember-gpu-jit"
xz -T1 --x86 --lzma2=preset=9e "$bundle.tmp/ember-gpu-jit"
# Shared libraries the GPU machine lacks (run.sh puts this folder on
# LD_LIBRARY_PATH): LLVM's OpenMP runtime (threads of compiled host code),
# and Gloo with what it needs (ember::distributed, linked into the JIT).
for library in libomp.so.5 libgloo.so.0 libhiredis.so.0.14 libibverbs.so.1 libnl-route-3.so.200 \
  libnl-3.so.200; do
  cp -L "$(ldconfig -p | awk -v name="$library" '$1 == name {print $NF; exit}')" "$bundle.tmp/"
done
cat > "$bundle.tmp/run.sh" <<'RUN'
#!/usr/bin/env bash
# On the GPU machine, in one run: the tests and the kernels under CUDA's
# checkers, ember's figures and PyTorch's, then story C2's full run on both
# (where the data came along). Each step has a time limit, so that
# one that hangs leaves the others their time; the logs go to $OUT/logs.tgz
# (the device tool brings back 8 files at most), renewed after each step.
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
out=$(mktemp -d)
step() { # step SECONDS LOG COMMAND...: runs, keeps the log, says how it ended
  local limit=$1 log=$2
  shift 2
  local start=$SECONDS status
  timeout "$limit" "$@" >"$out/$log" 2>&1
  status=$?
  echo "== $log: exit $status, $((SECONDS - start)) s"
  tar -czf "${OUT:-$here}/logs.tgz" -C "$out" .
}
# The groups to run: arguments (e.g. `run.sh tests gemms` in a short GPU
# session), else all of them.
groups=" ${*:-tests bench peer ncu c2 sanitizers} "
has() { [[ $groups == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# The front end on the GPU through the JIT (unpacked into a private folder).
unxz() { python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$@"; }
jit=$(mktemp -d)/ember-gpu-jit
unxz "$here/ember-gpu-jit.xz" "$jit" && chmod +x "$jit"
export EMBER_CACHE_DIR=$(mktemp -d)
if has tests; then
  step 60 runtime-tests.log "$here/emberrt-tests"; tail -1 "$out/runtime-tests.log"
  echo "ember-compile --target=cuda:sm_90, called from C: $("$here/ember-compile-gpu-example")"
  echo "the same with a batch of any size (expected: 2 rows: 4 5 10 11, 5 rows: 4 5 10 11 16 17 22 23 28 29, two errors):"
  "$here/ember-compile-gpu-dynamic"
  step 120 gpu-tests.log "$here/ember-gpu-tests"; grep -E '^\[  (FAILED|PASSED) |FAILED \]' "$out/gpu-tests.log"
  step 240 gpu-jit-tests.log "$jit"; grep -E '^\[  (FAILED|PASSED) |FAILED \]|Failure|error' "$out/gpu-jit-tests.log" | head -40
fi
# The kernels under CUDA's checkers: out-of-bounds and misaligned accesses
# (memcheck; the 256 MiB chain is left out for time) and shared-memory races
# between a block's threads (racecheck, on the kernels that use it); JIT-
# compiled kernels too (one-block kernels use barriers).
sanitizer=/usr/local/cuda/bin/compute-sanitizer
if has sanitizers && [[ -x $sanitizer ]]; then
  step 90 gpu-memcheck.log "$sanitizer" --tool memcheck "$here/ember-gpu-tests" \
    --gtest_filter=-GpuKernels.LargeChain; tail -1 "$out/gpu-memcheck.log"
  step 60 gpu-racecheck.log "$sanitizer" --tool racecheck "$here/ember-gpu-tests" \
    --gtest_filter='GpuKernels.Matmul:GpuKernels.Softmax*:GpuKernels.Mlp*'
  tail -1 "$out/gpu-racecheck.log"
  step 150 gpu-jit-memcheck.log "$sanitizer" --tool memcheck "$jit" \
    --gtest_filter='GpuJit.*:-GpuJit.Traced*'; tail -1 "$out/gpu-jit-memcheck.log"
  step 90 gpu-jit-racecheck.log "$sanitizer" --tool racecheck "$jit" \
    --gtest_filter='GpuJit.PowerOf*:GpuJit.Control*:GpuJit.Convolution*'
  tail -1 "$out/gpu-jit-racecheck.log"
fi
# The GEMMs alone: ember's (all of ember-gpu-bench and of the JIT's
# benchmark, their GEMM lines shown) and cuBLAS's.
if has gemms && ! has bench; then
  step 120 gpu-bench.log "$here/ember-gpu-bench"; grep -E "gemm|error" "$out/gpu-bench.log"
  step 180 gpu-jit-bench.log "$jit" --bench; grep -E "gemm|error" "$out/gpu-jit-bench.log"
  step 120 torch-gemms.log python3 "$here/torch_peer.py" gemms; grep -v Warning "$out/torch-gemms.log"
fi
if has bench; then
  step 120 gpu-bench.log "$here/ember-gpu-bench"
  step 180 gpu-jit-bench.log "$jit" --bench; cat "$out/gpu-jit-bench.log"
fi
if has peer; then
  step 300 torch-peer.log python3 "$here/torch_peer.py"; grep -v Warning "$out/torch-peer.log"
fi
# Where story C2's step at batch 256 spends its time, kernel by kernel.
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
if has ncu && [[ -x $ncu ]]; then
  EMBER_GPU_BENCH_C2_BATCH=256 step 180 c2-kernels.log "$ncu" --clock-control none \
    --metrics gpu__time_duration.sum --print-summary per-kernel "$jit" --bench
  grep -E "^  [a-z_0-9]+.*\(|gpu__time_duration" "$out/c2-kernels.log" | paste - - | \
    awk '{print $NF, $0}' | sort -rn | head -25 | cut -c1-200
fi
if has c2 && [[ -d $here/fashion-mnist ]]; then
  data=$(mktemp -d)
  cp "$here"/fashion-mnist/*.gz "$data/"
  for packed in "$here"/fashion-mnist/*.xz; do unxz "$packed" "$data/$(basename "$packed" .xz)"; done
  step 300 c2-ember.log "$jit" --c2 --device cuda --data "$data" --out "$(mktemp -d)"
  grep -vE '^ *[0-9]+/[0-9]+ ' "$out/c2-ember.log" | tail -14
  step 300 c2-torch.log python3 "$here/torch_c2_train.py" "$data"
  cat "$out/c2-torch.log"
  # Keras's mixed_bfloat16 policy against PyTorch's bfloat16 autocast.
  step 300 c2-ember-bf16.log "$jit" --c2 --device cuda --policy mixed_bfloat16 --data "$data" \
    --out "$(mktemp -d)"
  grep -vE '^ *[0-9]+/[0-9]+ ' "$out/c2-ember-bf16.log" | tail -14
  step 300 c2-torch-bf16.log python3 "$here/torch_c2_train.py" "$data" 3 1 mixed_bfloat16
  cat "$out/c2-torch-bf16.log"
fi
RUN
chmod +x "$bundle.tmp/run.sh"
rm -rf "$bundle" && mv "$bundle.tmp" "$bundle"
du -sh "$bundle"
